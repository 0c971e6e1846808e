"""Secrets and keys: KMS keys, Secrets Manager secrets, secret material in user data and env."""
