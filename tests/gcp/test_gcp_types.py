"""pyright (the project's pinned, standard-mode configuration) over the GCP layer, with a canary.

The GCP components annotate nested inputs with pulumi-gcp's `...ArgsDict` types, so a misspelt
nested key is a type error before any run. The canary proves pulumi-gcp's types really catch the
kinds of mistakes mocks accept (a misspelt node config key, a wrong value type in a lifecycle
condition, a misspelt key in a typed dict the components build). The whole package is checked by
tests/program/test_types.py; this check is narrower and says which layer broke.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CANARY = """
import pulumi_gcp.container as container
import pulumi_gcp.storage as storage
from pulumi_gcp.container import NodePoolPlacementPolicyArgsDict

container.NodePool("p", cluster="c", node_config={"shielded_instance_config": {"enable_secure_bot": True}})
storage.Bucket("b", location="EU", lifecycle_rules=[{"action": {"type": "Delete"}, "condition": {"age": "30"}}])
placement: NodePoolPlacementPolicyArgsDict = {"type": "COMPACT", "tpu_topolgy": "2x2x4"}
container.Cluster("c", private_cluster_config={"enable_private_nodes": "yes"})
"""


def test_gcp_layer_type_checks_clean_and_canary_mistakes_are_caught(tmp_path: Path) -> None:
    pyright = Path(sys.executable).with_name("pyright")
    canary = tmp_path / "canary.py"
    canary.write_text(CANARY)
    result = subprocess.run(
        [
            str(pyright),
            "--outputjson",
            "-p",
            str(ROOT / "pyrightconfig.json"),
            str(ROOT / "accelplane" / "gcp"),
            str(ROOT / "accelplane" / "engine" / "gcp_mocks.py"),
            str(canary),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    report = json.loads(result.stdout)
    errors = [d for d in report["generalDiagnostics"] if d["severity"] == "error"]
    in_layer = [
        f"{d['file']}:{d['range']['start']['line'] + 1}: {d['message']}" for d in errors if d["file"] != str(canary)
    ]
    assert not in_layer, "\n".join(in_layer)
    canary_lines = sorted({d["range"]["start"]["line"] + 1 for d in errors if d["file"] == str(canary)})
    assert canary_lines == [6, 7, 8, 9], [d["message"] for d in errors]
