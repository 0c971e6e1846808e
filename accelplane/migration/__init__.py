"""A migration: one service moved from one stack to another (on the same cloud or another) behind
weighted DNS records, step by step, gated on both ends and on parity.

A migration is a stack of its own kind (`accelplane:migration` in its stack file): it names the two
ends (stack and service) and the DNS that hosts the public name, never a cloud. What each end's cloud
exposes (an ALB's name, a Gateway's address) and what each DNS service can do (Route 53, Cloud DNS)
come from the clouds' folders through two facets (`facets.py`).
"""
