"""Hygiene rules over neutral views: protection of stateful resources, air-gapped sources."""
