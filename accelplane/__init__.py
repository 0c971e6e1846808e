"""accelplane: one declaration per stack for accelerator platforms (cloud, nodes, guard rails)."""

__version__ = "0.1.0"
