"""Pulumi components for the AWS layer. Each file holds one component (docs/conventions.md 2, 8)."""
