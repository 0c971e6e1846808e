"""`python -m accelplane` is the same as the `accelplane` console script."""

from accelplane.cli import run

run()
