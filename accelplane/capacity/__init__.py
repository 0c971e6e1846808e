"""Capacity as code: what scarce accelerator capacity can be had (`accelplane capacity offerings`), read
from each cloud through its `accelplane.capacity_offerings` facet."""
