"""The layers of docs/design.md hold: no import cycle, no upward import, no cloud named outside its
folder, no unexplained function-level import. The checker (`tests/architecture/layers.py`) is proved
able to see each kind on a small tree of its own first."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.architecture import layers


def test_the_package_has_no_cycle_upward_import_or_cloud_named_outside_its_folder() -> None:
    findings, _ = layers.check()
    assert findings.total() == 0, vars(findings)


def test_every_cloud_has_a_layer_and_the_same_sub_layout() -> None:
    assert set(layers.CLOUDS) <= {unit for layer in layers.LAYERS for unit in layer}
    shared = ("catalog.py", "declaration_checks.py", "components", "composition.py", "mocks.py", "provenance.py", "k8s")
    for cloud in layers.CLOUDS:
        folder = layers.PACKAGE / "clouds" / cloud.rsplit(".", 1)[-1]
        assert [name for name in shared if not (folder / name).exists()] == [], folder


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    package = tmp_path / "accelplane"
    for folder in ("", "config", "matrix", "clouds", "clouds/aws", "cli"):
        (package / folder).mkdir(parents=True, exist_ok=True)
        (package / folder / "__init__.py").write_text("")
    monkeypatch.setattr(layers, "ROOT", tmp_path)
    monkeypatch.setattr(layers, "PACKAGE", package)
    return package


def test_the_checker_sees_a_module_cycle_and_the_package_cycle_it_makes(tree: Path) -> None:
    (tree / "config" / "a.py").write_text("from accelplane.matrix import b\n")
    (tree / "matrix" / "b.py").write_text("from accelplane.config import a\n")
    findings, _ = layers.check()
    assert findings.module_cycles == [["accelplane.config.a", "accelplane.matrix.b"]]
    assert findings.unit_cycles == [["accelplane.config", "accelplane.matrix"]]
    assert any("accelplane.matrix.b imports accelplane.config.a" in u for u in findings.upward)


def test_the_checker_sees_an_upward_import_and_a_cloud_named_by_neutral_code(tree: Path) -> None:
    (tree / "clouds" / "aws" / "declaration_checks.py").write_text("X = 1\n")
    (tree / "config" / "loader.py").write_text("from accelplane.clouds.aws.declaration_checks import X\n")
    findings, _ = layers.check()
    assert [u.split(": ", 1)[1] for u in findings.upward] == [
        "accelplane.config.loader imports accelplane.clouds.aws.declaration_checks (layer 8 above 4)"]
    assert findings.cloud_by_name == ["accelplane/config/loader.py:1: accelplane.config.loader imports the cloud "
                                      "module accelplane.clouds.aws.declaration_checks"]


def test_type_checking_imports_count_and_function_imports_must_say_why(tree: Path) -> None:
    (tree / "matrix" / "m.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from accelplane.cli import main\n"
        "def f():\n    import json\n    return json\n"
        "def g():\n    # Start-up time: yaml only for g.\n    import yaml\n    return yaml\n"
    )
    findings, _ = layers.check()
    assert [u.split(": ", 1)[1] for u in findings.upward] == [
        "accelplane.matrix.m imports accelplane.cli (layer 10 above 1)"]
    assert findings.unexplained_function_imports == [
        "accelplane/matrix/m.py:5: json imported inside a function without a comment saying why"]


def test_node_side_helpers_import_only_the_standard_library() -> None:
    """`accelplane/ansible_module_utils/` ships to the nodes inside Ansible module payloads: nothing of accelplane
    or of a third party can follow it there."""
    import ast
    import sys

    for path in (layers.PACKAGE / "ansible_module_utils").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        foreign = [n for n in names if n.split(".")[0] not in sys.stdlib_module_names]
        assert foreign == [], path


def test_tests_decide_skip_or_fail_in_one_place() -> None:
    """`tests/support/prerequisites.missing()` is the only skip: it fails unless the test is marked optional."""
    import re

    tests = layers.ROOT / "tests"
    skipping = [
        str(path.relative_to(layers.ROOT))
        for path in tests.rglob("*.py")
        # tests/.cache holds fetched tools (checkov's own virtual environment), not tests.
        if ".cache" not in path.relative_to(tests).parts
        and path.name != "prerequisites.py"
        and re.search(r"pytest\.skip\(|pytest\.mark\.skip|importorskip|os\.environ\.get\(\"CI\"", path.read_text())
        and path.name != "test_layers.py"
    ]
    assert skipping == []


def _printed_by(code: str) -> str:
    """What `code` prints, run in a fresh interpreter at the repository root (what it imports is its own)."""
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=layers.ROOT).stdout.strip()


def test_building_the_command_line_loads_no_command_s_work() -> None:
    """Every command's parser is built at start: none may load the engine, a cloud, the rules, the
    matrix or the declaration model for another command (`check --state` in 0.2 s depends on it). Of
    each cloud only its connection options, price lists and matrix commands load (commands show them as
    options), and its package's `__init__` imports nothing."""
    code = (
        "import sys\nfrom accelplane.cli import build_parser\nbuild_parser()\n"
        "heavy = ('pulumi', 'boto3', 'accelplane.rules.registry', 'accelplane.matrix.judge', "
        "'accelplane.declaration', 'accelplane.clouds.aws', 'accelplane.clouds.gcp')\n"
        "light = tuple(f'accelplane.clouds.{c}{m}' for c in ('aws', 'gcp') for m in ('', '.connection', "
        "'.price_lists', '.eks_ami', '.eks_ami.matrix_cli'))\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy) and m not in light))\n"
    )
    assert _printed_by(code) == "[]"


def test_an_aws_stack_builds_without_the_other_cloud_s_models_or_provider() -> None:
    """A stack loads its own cloud: building an AWS stack's plan asks every installed cloud for the fabric
    resources Kueue leaves out, which loads Google Cloud's support object and light modules only, not its
    declaration models, checks or pulumi-gcp (building the GKE models cost an AWS preview ~40 ms)."""
    code = (
        "import sys\nfrom accelplane.config.loader import load_stack\nfrom accelplane.program import offline_graph\n"
        "offline_graph(load_stack('dev'))\n"
        "light = {'accelplane.clouds.gcp' + m for m in ('', '.support', '.connection', '.price_lists')}\n"
        "print(sorted(m for m in sys.modules if m.startswith(('accelplane.clouds.gcp', 'pulumi_gcp')) "
        "and m not in light))\n"
    )
    found = _printed_by(code)
    assert found == "[]", found
