"""Audit rules: Data Access audit logs on, kept in a locked log bucket."""
