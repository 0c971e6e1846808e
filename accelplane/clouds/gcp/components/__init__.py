"""Pulumi components for the Google Cloud layer. Each file holds one component (docs/conventions.md 2, 8).

Components take explicit arguments (names, ids, CIDRs, labels), never the stack declaration: the
GCP composition maps the declaration onto them. pulumi-gcp is imported per service module
(`import pulumi_gcp.container as container`): the whole package is 290 MB and slow to import.
"""
