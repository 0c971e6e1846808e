"""Secrets and keys: Cloud KMS keys and Secret Manager secrets."""
