"""Stacks priced offline: the example stacks and variants of them, each planned once per session."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from accelplane.config.loader import StackConfig, load_stack, load_stack_file
from accelplane.cost.estimate import Estimate
from tests.support.stack_files import stack_text

DATA = Path(__file__).parent / "data"
HOURS = 730


def variant(tmp_path: Path, *edits: tuple[str, str], stack: str = "prod") -> StackConfig:
    """The example stack with each `old -> new` edit made once."""
    text = stack_text(stack)
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / f"Pulumi.{stack}.yaml"
    path.write_text(text)
    return load_stack_file(path, stack=stack)


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
