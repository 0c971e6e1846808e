"""Idle accelerators: which accelerator nodes stayed below their pool's utilisation threshold over a
window, read from Prometheus, and what releasing them saves (`accelplane cost idle`, docs/cost.md)."""
