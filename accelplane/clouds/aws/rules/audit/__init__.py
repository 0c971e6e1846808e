"""Audit rules: the stack keeps a trail of who changed or read its data, keys and secrets."""
