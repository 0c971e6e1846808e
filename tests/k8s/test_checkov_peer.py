"""A peer's opinion of the pods the stacks run: checkov's Kubernetes checks over the Kubernetes objects
of prod's and tpu-prod's offline plans. The project's own rules (AP-K8S-009) are the gate; this keeps
them honest against a scanner people already run.

Every inference Deployment passes CKV_K8S_22 (read-only root file system), CKV_K8S_29 (a pod security
context), CKV_K8S_38 (no service-account token where none is needed) and CKV_K8S_40 (a high UID).
checkov runs from its own virtual environment (tests/support/checkov/install.sh): its pins clash with
the project's.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from accelplane.config.loader import load_stack
from accelplane.k8s.manifests import manifests
from accelplane.program import offline_graph
from tests.support.prerequisites import missing

CHECKOV = Path(__file__).resolve().parents[1] / ".cache" / "checkov" / "bin" / "checkov"
CHECKS = ("CKV_K8S_22", "CKV_K8S_29", "CKV_K8S_38", "CKV_K8S_40")
INFERENCE = {"prod": ("serve-l40s", "serve-inf2"), "tpu-prod": ("llm-server-h100", "llm-server-v5e")}


def _scan(stack: str, work: Path) -> dict[str, Any]:
    if not CHECKOV.exists():
        missing("checkov is not installed (bash tests/support/checkov/install.sh)")
    graph = offline_graph(load_stack(stack))
    for index, (_, manifest) in enumerate(manifests(graph.resources)):
        (work / f"{index:03d}-{manifest['kind'].lower()}.yaml").write_text(yaml.safe_dump(manifest))
    result = subprocess.run(
        [str(CHECKOV), "--directory", str(work), "--framework", "kubernetes", "--check", ",".join(CHECKS),
         "--output", "json", "--compact", "--skip-download"],
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode in (0, 1), result.stderr[-2000:]
    report = json.loads(result.stdout)
    return report[0] if isinstance(report, list) else report


@pytest.mark.parametrize("stack", sorted(INFERENCE))
def test_checkov_passes_every_inference_deployment_on_the_hardening_checks(stack: str, tmp_path: Path) -> None:
    report = _scan(stack, tmp_path)
    results = report["results"]

    def deployments(entries: list[dict[str, Any]]) -> set[tuple[str, str]]:
        return {(e["check_id"], e["resource"]) for e in entries if e["resource"].startswith("Deployment.")}

    failed = deployments(results["failed_checks"])
    assert failed == set(), sorted(failed)
    passed = deployments(results["passed_checks"])
    # Not vacuous: each inference Deployment was checked, and passed, on each of the four checks.
    for name in INFERENCE[stack]:
        for check in CHECKS:
            assert (check, f"Deployment.inference.{name}") in passed, (check, name, sorted(passed))
