"""A third cloud, installed the way a plug-in distribution is: `tests/support/third_cloud/site` holds a
package (`accelplane_tinycloud`) and its `*.dist-info/entry_points.txt` naming it in the
`accelplane.clouds` group. Put on PYTHONPATH, it previews, checks, prices and appears in the schema
from its own folder; nothing of accelplane names it, and without it `cloud: tiny` is refused.

Each command runs as a new process, so the entry point is found as an installed one is (no registry
is patched in the test process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
THIRD_CLOUD = ROOT / "tests" / "support" / "third_cloud"
STACK = THIRD_CLOUD / "Pulumi.tiny.yaml"


def _accelplane(*argv: str, installed: bool = True, stack_text: str | None = None,
                tmp_path: Path | None = None, metadata_first: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    if installed:
        # `metadata_first`: a folder whose dist-info of the same distribution is found first (it wins)
        env["PYTHONPATH"] = os.pathsep.join(str(p) for p in (metadata_first, THIRD_CLOUD / "site") if p)
    stack = STACK
    if stack_text is not None:
        assert tmp_path is not None
        stack = tmp_path / "Pulumi.tiny.yaml"
        stack.write_text(stack_text)
    args = [a.replace("{stack}", str(stack)) for a in argv]
    return subprocess.run([sys.executable, "-m", "accelplane", *args], capture_output=True, text=True, env=env,
                          cwd=THIRD_CLOUD, timeout=120, check=False)


def test_the_third_cloud_previews_and_checks_its_stack() -> None:
    preview = _accelplane("preview", "--stack-file", "{stack}")
    assert preview.returncode == 0, preview.stderr
    assert "tiny:compute/machinePool:MachinePool  acme-tiny-infer-l4" in preview.stdout
    # 0.5 USD/h x 730 h = 365 a node (infer-l4: 1/2/4), 0.1 x 730 = 73 (system: 2/2/3): 511 / 876 / 1,679
    assert "$511.00 at minimum, $876.00 at desired, $1,679.00 at maximum" in preview.stdout
    check = _accelplane("check", "--stack-file", "{stack}")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "PASSED" in check.stdout


def test_the_third_cloud_prices_its_stack_from_its_own_table() -> None:
    cost = _accelplane("cost", "--stack-file", "{stack}", "--as-of", "2026-12-02", "--format", "json")
    assert cost.returncode == 0, cost.stderr
    report = json.loads(cost.stdout)
    assert (report["cloud"], report["region"]) == ("tiny", "eu-central-1")
    assert report["pools"] == {"infer-l4": {"minimum": 365.0, "desired": 730.0, "maximum": 1460.0},
                               "system": {"minimum": 146.0, "desired": 146.0, "maximum": 219.0}}
    assert report["total"] == {"minimum": 511.0, "desired": 876.0, "maximum": 1679.0}


def test_a_cloud_without_the_pricing_facet_previews_and_says_it_has_no_prices(tmp_path: Path) -> None:
    """The same distribution with only its `accelplane.clouds` entry point: prices are optional."""
    info = tmp_path / "accelplane_tinycloud-0.1.0.dist-info"
    info.mkdir()
    shipped = THIRD_CLOUD / "site" / info.name
    (info / "METADATA").write_text((shipped / "METADATA").read_text())
    (info / "entry_points.txt").write_text("[accelplane.clouds]\ntiny = accelplane_tinycloud:SUPPORT\n")
    preview = _accelplane("preview", "--stack-file", "{stack}", metadata_first=tmp_path)
    assert preview.returncode == 0, preview.stderr
    assert "Monthly cost: not estimated (the tiny cloud ships no prices)" in preview.stdout
    cost = _accelplane("cost", "--stack-file", "{stack}", metadata_first=tmp_path)
    assert cost.returncode == 2 and "the tiny cloud ships no prices (no accelplane.pricing entry point)" in cost.stderr


def test_the_schema_offers_the_third_clouds_keys_on_its_branch_only() -> None:
    schema = _accelplane("schema")
    assert schema.returncode == 0, schema.stderr
    definitions = json.loads(schema.stdout)["$defs"]
    assert definitions["Platform"]["properties"]["cloud"]["enum"] == ["aws", "gcp", "tiny"]
    assert {"datacenter", "node_pools"} <= set(definitions["TinyPlatform"]["properties"])
    assert "rack" in definitions["TinyNodePool"]["properties"]
    assert "rack" not in definitions["AwsNodePool"]["properties"]


@pytest.mark.parametrize(("edit", "message"), [
    # Another cloud's key on a tiny pool: refused by the model, naming the cloud that reads it.
    (("        rack: r12\n", "        rack: r12\n        efa: true\n"), "efa is for cloud: aws stacks"),
    # The third cloud's own required key left out.
    (("        rack: r1\n", ""), "node_pools[0].rack: required field is missing"),
])
def test_bad_input_on_the_third_cloud_is_refused_with_the_field(
    tmp_path: Path, edit: tuple[str, str], message: str
) -> None:
    text = STACK.read_text()
    assert edit[0] in text
    result = _accelplane("check", "--stack-file", "{stack}", stack_text=text.replace(edit[0], edit[1], 1),
                         tmp_path=tmp_path)
    assert result.returncode == 2 and message in result.stderr, result.stderr


def test_without_the_distribution_the_cloud_is_unknown() -> None:
    result = _accelplane("check", "--stack-file", "{stack}", installed=False)
    assert result.returncode == 2
    assert "accelplane:platform.cloud: no cloud 'tiny' (installed clouds: aws, gcp)" in result.stderr


def test_adding_the_cloud_changed_no_file_of_accelplane() -> None:
    """The plug-in lives in its own folder: no file of the package, the policies or the plugins names it."""
    named = [str(path.relative_to(ROOT)) for folder in ("accelplane", "policies", "plugins")
             for path in (ROOT / folder).rglob("*") if path.is_file() and path.suffix in {".py", ".yaml", ".json"}
             and ("tinycloud" in path.read_text(errors="replace") or "accelplane_tinycloud" in path.name)]
    assert named == []


@pytest.mark.parametrize(("argv", "refusal"), [
    # its `not_yet` table says what to do instead ...
    (["verify"], "Pulumi.tiny.yaml:4: cloud: live verification (`accelplane verify`) is not supported on tiny yet: "
                 "tinycloud has no API to read"),
    # ... and a facet it does not offer at all is named by its entry-point group

    (["preflight"], "preflight checks (`accelplane preflight`) is not supported on tiny yet: the cloud offers no "
                    "accelplane.preflight entry point"),
    (["preflight", "--profile", "ci"], "--profile: not used on the tiny cloud (AWS only): it takes no connection "
                                    "options"),
])
def test_a_live_command_the_third_cloud_offers_no_facet_for_is_refused_at_its_cloud_line(
        argv: list[str], refusal: str) -> None:
    """Live verification, preflight and connection options are optional facets: the third cloud offers
    none, so each command says so (exit 2), without a method the cloud had to stub."""
    result = _accelplane(*argv, "--stack-file", "{stack}")
    assert result.returncode == 2, result.stdout + result.stderr
    assert refusal in result.stderr and "Traceback" not in result.stderr
