"""The committed bad-state fixture is exactly what its generator writes today: a change to the program,
the dev stack or the generator that is not followed by `python -m tests.check.make_bad_state` fails here,
so the `--state`, `--plan` and CrossGuard tests never judge a stale export."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.check import make_bad_state

COMMITTED = make_bad_state.OUT


def _by_urn(text: str) -> dict[str, Any]:
    return {r["urn"]: r for r in json.loads(text)["deployment"]["resources"]}


def _drift(committed: str, regenerated: str) -> str:
    """What differs, by resource and key, for the failure message."""
    old, new = _by_urn(committed), _by_urn(regenerated)
    lines = [f"only committed: {urn}" for urn in sorted(old.keys() - new.keys())]
    lines += [f"only regenerated: {urn}" for urn in sorted(new.keys() - old.keys())]
    for urn in sorted(old.keys() & new.keys()):
        keys = sorted(k for k in old[urn].keys() | new[urn].keys() if old[urn].get(k) != new[urn].get(k))
        if keys:
            lines.append(f"{urn}: {', '.join(keys)} differ")
    if not lines:
        lines.append("same resources and values; order or formatting differs")
    return "\n".join(lines[:20])


def test_committed_bad_state_is_what_the_generator_writes(tmp_path: Path) -> None:
    regenerated = tmp_path / COMMITTED.name
    make_bad_state.main(regenerated)
    committed, fresh = COMMITTED.read_text(), regenerated.read_text()
    assert fresh == committed, (
        f"{COMMITTED} is stale; run `python -m tests.check.make_bad_state` and commit it:\n{_drift(committed, fresh)}"
    )
