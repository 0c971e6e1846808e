"""Capacity rules: what the stack buys (calendar-mode future reservations)."""
