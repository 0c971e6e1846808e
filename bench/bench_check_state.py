"""Benchmark: `accelplane check --state` on a `pulumi stack export` of 200 GPU Deployments, whole process.

A state or plan check needs no Pulumi engine, gRPC or OpenTelemetry, and no cloud's code: this
prints the median of 7 whole-process runs (after one warm-up) and the modules the check loaded from
those packages (expected: none). With `--checkov PATH` it also times checkov on the same Deployments
(as Kubernetes YAML) and prints the ratio. Asserts nothing (docs/design.md). Targets: <= 0.25 s (issue
27), at least 15x faster than checkov on the same objects (issue 44).

    .venv/bin/python bench/bench_check_state.py [--deployments 200] [--checkov tests/.cache/checkov/bin/checkov]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STACK, PROJECT = "bench", "accelplane"
HEAVY = ("pulumi", "grpc", "opentelemetry", "pulumi_aws", "pulumi_gcp", "pulumi_kubernetes", "boto3", "botocore")


def deployment(index: int) -> dict:
    name = f"trainer-{index:03d}"
    urn = f"urn:pulumi:{STACK}::{PROJECT}::kubernetes:apps/v1:Deployment::{name}"
    return {
        "urn": urn,
        "custom": True,
        "id": f"training/{name}",
        "type": "kubernetes:apps/v1:Deployment",
        "inputs": {
            "metadata": {"name": name, "namespace": "training"},
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": {"app": name}},
                "template": {
                    "metadata": {"labels": {"app": name}},
                    "spec": {
                        "serviceAccountName": name,
                        "containers": [{
                            "name": "trainer",
                            "image": f"registry.example.com/trainer@sha256:{index:064x}",
                            "resources": {"requests": {"nvidia.com/gpu": "8", "cpu": "32"},
                                          "limits": {"nvidia.com/gpu": "8"}},
                            "securityContext": {"allowPrivilegeEscalation": False, "runAsNonRoot": True},
                        }],
                    },
                },
            },
        },
        "outputs": {},
        "parent": f"urn:pulumi:{STACK}::{PROJECT}::pulumi:pulumi:Stack::{PROJECT}-{STACK}",
    }


def state(deployments: int) -> dict:
    stack = {"urn": f"urn:pulumi:{STACK}::{PROJECT}::pulumi:pulumi:Stack::{PROJECT}-{STACK}", "custom": False,
             "type": "pulumi:pulumi:Stack"}
    return {"version": 3, "deployment": {"manifest": {}, "resources": [stack, *map(deployment, range(deployments))]}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--deployments", type=int, default=200)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--checkov", type=Path, help="a checkov executable to time on the same objects")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "state.json"
        path.write_text(json.dumps(state(args.deployments)))
        command = [sys.executable, "-m", "accelplane", "check", "--state", str(path), "--format", "json"]
        walls = []
        for run in range(args.runs + 1):
            start = time.perf_counter()
            result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
            if run:
                walls.append(time.perf_counter() - start)
        findings = len(json.loads(result.stdout)["findings"])
        probe = (
            "import sys\nfrom accelplane.cli import main\n"
            f"main(['check', '--state', {str(path)!r}, '--format', 'json'])\n"
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})), file=sys.stderr)\n"
        )
        loaded = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True,
                                check=False).stderr.strip().splitlines()[-1]
        checkov = _checkov_median(args.checkov, args.deployments, args.runs, Path(directory)) if args.checkov else None
    print(f"check --state, {args.deployments} GPU Deployments: median {statistics.median(walls):.3f} s "
          f"(min {min(walls):.3f}, max {max(walls):.3f}, {args.runs} runs), exit {result.returncode}, "
          f"{findings} findings")
    print(f"engine/cloud packages loaded: {loaded}")
    if checkov is not None:
        print(f"checkov on the same {args.deployments} Deployments (YAML): median {checkov:.3f} s; "
              f"accelplane is {checkov / statistics.median(walls):.1f}x faster")


def _checkov_median(checkov: Path, deployments: int, runs: int, directory: Path) -> float:
    manifests = directory / "deployments.yaml"
    documents = [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": r["inputs"]["metadata"],
                  "spec": r["inputs"]["spec"]} for r in map(deployment, range(deployments))]
    manifests.write_text("---\n".join(json.dumps(d) + "\n" for d in documents))  # JSON is YAML
    command = [str(checkov), "-f", str(manifests), "--framework", "kubernetes", "--quiet", "--compact", "-o", "json"]
    walls = []
    for run in range(runs + 1):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, text=True, check=False)
        if run:
            walls.append(time.perf_counter() - start)
    return statistics.median(walls)


if __name__ == "__main__":
    main()
