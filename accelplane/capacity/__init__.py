"""Capacity as code: what scarce accelerator capacity can be had (`accelplane capacity offerings`), what a
stack buys and must keep (purchases, AP-CAP-002 in `diff`), and pools that follow what was bought
(`accelplane capacity sync`), each read from a cloud through its facet."""
