"""Schemas of the custom resources the Kubernetes layer creates (package data; see crd_schemas.py)."""
