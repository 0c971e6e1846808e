"""Secrets and keys: KMS keys, Secrets Manager secrets, secret material in launch templates' user data."""
