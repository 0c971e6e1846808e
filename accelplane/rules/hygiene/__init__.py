"""Hygiene rules: tags, protection of stateful resources, log retention."""
