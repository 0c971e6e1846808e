"""Hygiene rules: required labels."""
