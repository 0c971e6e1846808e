"""Compute rules: launch templates, instances and accelerator node groups."""
