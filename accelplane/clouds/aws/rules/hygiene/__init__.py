"""Hygiene rules: tags and log retention."""
