"""Capacity rules: what the stack buys (EC2 Capacity Blocks for ML)."""
