"""pyright (standard mode) over the package, the CrossGuard pack (`policies/`) and the Ansible plugins
(`plugins/`): a misspelt nested input or a wrong type fails here, before any run, because nested inputs
are annotated with pulumi-aws, pulumi-gcp and pulumi-kubernetes `...ArgsDict` types.

One pyright run checks every path `pyrightconfig.json` includes and two canary files (AWS, Google
Cloud) with known mistakes that mocks would accept; the canaries prove the check can fail, the count
of analysed files that no included file was skipped.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# First-party Python that runs outside the tests: the program and CLI, the CrossGuard pack, the Ansible plugins.
CHECKED = {"accelplane", "__main__.py", "policies", "plugins"}

CANARY = """
import pulumi_aws as aws
from pulumi_aws.ec2 import LaunchTemplateMetadataOptionsArgsDict

options: LaunchTemplateMetadataOptionsArgsDict = {"http_tokenz": "required"}
aws.ec2.LaunchTemplate("t", metadata_options=options)
aws.eks.NodeGroup("g", cluster_name="c", node_role_arn="r", subnet_ids=["s"],
                  scaling_config={"min_size": "one", "max_size": 1, "desired_size": 1})
"""
# A misspelt node config key, a wrong value type in a lifecycle condition, a misspelt key of a typed
# dict the GCP components build, a string where a boolean goes.
GCP_CANARY = """
import pulumi_gcp.container as container
import pulumi_gcp.storage as storage
from pulumi_gcp.container import NodePoolPlacementPolicyArgsDict

container.NodePool("p", cluster="c", node_config={"shielded_instance_config": {"enable_secure_bot": True}})
storage.Bucket("b", location="EU", lifecycle_rules=[{"action": {"type": "Delete"}, "condition": {"age": "30"}}])
placement: NodePoolPlacementPolicyArgsDict = {"type": "COMPACT", "tpu_topolgy": "2x2x4"}
container.Cluster("c", private_cluster_config={"enable_private_nodes": "yes"})
"""


def _python_files(include: list[str]) -> list[Path]:
    found = []
    for entry in include:
        path = ROOT / entry
        found.extend([path] if path.is_file() else (p for p in path.rglob("*.py") if "__pycache__" not in p.parts))
    return found


def test_package_type_checks_clean_and_canary_mistakes_are_caught(tmp_path: Path) -> None:
    pyright = Path(sys.executable).with_name("pyright")
    assert pyright.exists() or shutil.which("pyright"), "pyright[nodejs] is pinned in requirements.txt"
    include = json.loads((ROOT / "pyrightconfig.json").read_text())["include"]
    assert set(include) >= CHECKED, f"pyrightconfig.json must include {sorted(CHECKED - set(include))}"
    canary = tmp_path / "canary.py"
    canary.write_text(CANARY)
    gcp_canary = tmp_path / "gcp_canary.py"
    gcp_canary.write_text(GCP_CANARY)
    result = subprocess.run(
        [
            str(pyright),
            "--outputjson",
            "-p",
            str(ROOT / "pyrightconfig.json"),
            *(str(ROOT / entry) for entry in include),
            str(canary),
            str(gcp_canary),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    report = json.loads(result.stdout)
    errors = [d for d in report["generalDiagnostics"] if d["severity"] == "error"]
    canaries = (str(canary), str(gcp_canary))
    in_package = [
        f"{d['file']}:{d['range']['start']['line'] + 1}: {d['message']}" for d in errors if d["file"] not in canaries
    ]
    assert not in_package, "\n".join(in_package)
    canary_lines = sorted({d["range"]["start"]["line"] + 1 for d in errors if d["file"] == str(canary)})
    assert canary_lines == [5, 8], [d["message"] for d in errors]
    gcp_lines = sorted({d["range"]["start"]["line"] + 1 for d in errors if d["file"] == str(gcp_canary)})
    assert gcp_lines == [6, 7, 8, 9], [d["message"] for d in errors]
    assert report["summary"]["filesAnalyzed"] == len(_python_files(include)) + 2  # every included file, the canaries
