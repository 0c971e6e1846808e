"""The cloud boundary means what it says: outside `accelplane/clouds/` (and the registry) the code
names no cloud — as identifiers, type tokens or string branches (`cloud_names.py` says what counts).

The move is not finished: `cloud_names_outside_clouds.json` records, per module, how many places
still name a cloud (the rules and their type names, the price-table refresher, the EKS AMI commands,
the stack loader's provider keys...). The test holds the code to it both ways: a module may not name a
cloud more often than recorded, nor a new module at all; and when a move lowers a count, the record
is lowered with it (`python -m tests.architecture.cloud_names --write`), so it only ever shrinks."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.architecture import cloud_names


def test_no_module_outside_the_clouds_names_a_cloud_more_than_recorded() -> None:
    recorded: dict[str, int] = json.loads(cloud_names.BUDGET.read_text())
    now = cloud_names.counts()
    grown = {module: (recorded.get(module, 0), count) for module, count in now.items()
             if count > recorded.get(module, 0)}
    assert grown == {}, f"(recorded, now) per module; move the cloud's part into accelplane/clouds/: {grown}"
    shrunk = {module: (count, now.get(module, 0)) for module, count in recorded.items()
              if now.get(module, 0) < count}
    assert shrunk == {}, f"lower the record: python -m tests.architecture.cloud_names --write ({shrunk})"


def test_what_is_neutral_already_stays_so() -> None:
    """The offline engine, the program, the reports and the declaration's platform and pool models."""
    recorded = json.loads(cloud_names.BUDGET.read_text())
    neutral = ("accelplane/engine/", "accelplane/program.py", "accelplane/report/", "accelplane/declaration/pools.py",
               "accelplane/declaration/network.py", "accelplane/declaration/endpoint.py")
    assert [module for module in recorded if module.startswith(neutral)] == []


@pytest.mark.parametrize(("code", "named"), [
    ("if platform.cloud == 'gcp':\n    pass\n", ["'gcp'"]),  # a string branch
    ("TOKEN = 'aws:ec2/vpc:Vpc'\n", ["'aws:ec2/vpc:Vpc'"]),  # a type token
    ("def eks_version(): ...\n", ["eks_version"]),  # a name
    ("from accelplane.clouds.gcp import catalog\n", ["gcp"]),  # an import of a cloud's module
    ("'''How EKS and GKE differ.'''\nMESSAGE = 'AWS: use an account'\n", []),  # prose is not counted
    ("subscription = 'S3C'\ngcsfuse_like = 1\n", []),  # a word inside another word is not a cloud
])
def test_the_counter_sees_names_tokens_and_branches_not_prose(tmp_path: Path, code: str, named: list[str]) -> None:
    module = tmp_path / "module.py"
    module.write_text(textwrap.dedent(code))
    assert sorted(what for _, what in cloud_names.places(module)) == sorted(named)
