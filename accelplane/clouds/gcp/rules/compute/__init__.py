"""Compute rules: TPU slices (topology, node count, compact placement)."""
