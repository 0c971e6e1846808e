"""Stacks priced offline: the example stacks and variants of them, each planned once per session."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from accelplane.config.loader import StackConfig, load_stack
from accelplane.cost.estimate import Estimate
from tests.support.stack_files import edited_stack

DATA = Path(__file__).parent / "data"
HOURS = 730


variant = edited_stack  # the example stack with each `old -> new` edit made once


def priced(stack: StackConfig) -> Estimate:
    from accelplane.cli.cost import stack_estimate

    return stack_estimate(stack)[0]


@pytest.fixture(scope="session")
def estimate_of() -> Callable[[str], Estimate]:
    cache: dict[str, Estimate] = {}

    def get(name: str) -> Estimate:
        if name not in cache:
            cache[name] = priced(load_stack(name))
        return cache[name]

    return get
