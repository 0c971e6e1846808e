"""Hypothesis settings for the fuzz tests (tests/fuzz): reproducible in CI, deeper on request.

CI runs a fixed number of examples from a fixed seed (`derandomize=True`, no example database), so
a run is the same on every machine and a failure reproduces from the test name alone. For a
deeper hunt, `ACCELPLANE_FUZZ_SCALE=20 pytest tests/fuzz` multiplies every budget and draws fresh
random examples (a failure then prints the seed to rerun it with `--hypothesis-seed`).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

SCALE = float(os.environ.get("ACCELPLANE_FUZZ_SCALE", "1"))


def fuzz_settings(examples: int) -> settings:
    """`examples` draws per test in CI (budgeted so tests/fuzz stays under a minute on 2 cores)."""
    return settings(
        max_examples=max(1, round(examples * SCALE)),
        deadline=None,  # one example may run the whole program under mocks (1-3 s)
        derandomize=SCALE == 1,
        database=None,
        print_blob=True,
        # The seed documents are real stack files and state exports: larger than hypothesis likes.
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )
