"""Secrets rules over neutral views: secret material in container environments."""
