"""Pulumi components for the AWS layer. Each file holds one component (STYLE.md 2, 8)."""
