"""A broken `matrix check` file is refused naming the file (exit 2) or judged (0/1): never a traceback.

Seeds are real stacks: the profile `matrix resolve` proves compatible for every accelerator the
matrix knows, and each accelerator pool's profile of the example stacks. Besides the generic
mutations, values are swapped for version-shaped text (`matrix check` parses every version), so
the version parser and every rule meet odd but well-typed input.
"""

from __future__ import annotations

import datetime as dt
import functools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accelplane.config.loader import load_stack
from accelplane.matrix import accelerators, resolve
from accelplane.matrix.keys import MATRIX_KEYS
from tests.support.cli_contract import ANY_VERDICT, run_and_check
from tests.support.fuzz_settings import fuzz_settings
from tests.support.mutations import DATE_LIKE, dump_json, dump_yaml, mutated_document

AS_OF = dt.date(2026, 12, 1)
VERSIONISH = st.one_of(
    st.sampled_from(["0", "00000001", "1.-1", "1..2", ".1", "1.", "v12", "12.8+cu128", "2.9.0a0", "1.0.0-rc.1",
                     "1" * 5000, "9" * 400 + ".1", ".".join(["1"] * 2000), "1.2.3.4.5.6.7.8.9.10", "12.x", "*",
                     "latest", "12.8 ", " 12.8", "\uff11\uff12.\uff18", "12,8", "1e3", "0x10", "nan", "inf", "-1",
                     "+1"]),
    st.from_regex(r"[0-9]{1,3}(\.[0-9]{1,3}){0,4}([.+_-][a-z0-9]{1,6})?", fullmatch=True),
    st.sampled_from(DATE_LIKE),
)


@functools.cache
def _seeds() -> list[dict[str, Any]]:
    """Built on the first draw, not at import: resolving every accelerator's profile takes seconds,
    and every pytest-xdist worker imports this module to collect it."""
    seeds = []
    for accelerator in sorted(accelerators()):
        try:
            seeds.append(dict(resolve(accelerator, as_of=AS_OF)))
        except Exception:  # an accelerator with no resolvable profile adds no seed
            continue
    for name in ("dev", "prod", "lab"):
        platform = load_stack(name).platform
        for pool in platform.node_pools:
            profile = platform.pool_profile(pool)
            if pool.accelerator and profile:
                seeds.append(profile.matrix_stack(pool.accelerator, pool.instance_type))
    return seeds


SEEDS = st.deferred(lambda: st.sampled_from(_seeds()))


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz-matrix")


@st.composite
def matrix_file(draw: st.DrawFn) -> bytes:
    seed = dict(draw(SEEDS))
    if draw(st.booleans()):
        # Well-typed but odd: version-shaped text under a (known or unknown) key.
        key = draw(st.one_of(st.sampled_from(sorted(MATRIX_KEYS)), st.sampled_from(sorted(seed))))
        seed[key] = draw(VERSIONISH)
        if draw(st.booleans()):
            return (dump_yaml(seed) if draw(st.booleans()) else dump_json(seed)).encode()
    return draw(mutated_document(seed))


@fuzz_settings(250)
@given(content=matrix_file(), strict=st.booleans(), as_json=st.booleans(),
       as_of=st.one_of(st.none(), st.sampled_from(["2026-12-01", "2020-01-01", "2099-12-31"])))
def test_a_mutated_matrix_file_is_refused_naming_the_file_or_judged(
    workspace: Path, content: bytes, strict: bool, as_json: bool, as_of: str | None
) -> None:
    path = workspace / "stack.yaml"
    path.write_bytes(content)
    argv = ["matrix", "check", str(path)]
    argv += ["--strict"] * strict + ["--json"] * as_json + (["--as-of", as_of] if as_of else [])
    run_and_check(argv, names=[str(path)], expect=ANY_VERDICT)
