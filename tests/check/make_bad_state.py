"""Regenerate `fixtures/bad-stack-export.json`: the dev stack as `pulumi stack export` would write it,
with one deliberate mistake per rule family. Run `python -m tests.check.make_bad_state` after any
change to the program, the dev stack or the export format; `test_bad_state_fixture.py` fails while
the committed file differs from what this writes.

The output is deterministic: the offline engine registers resources in whatever order its asyncio
tasks finish, so resources are written in dependency order (parents and dependencies first, as
`pulumi stack export` does) with ties broken by URN, and each resource's dependencies sorted.
"""

from __future__ import annotations

import base64
import heapq
import json
import sys
from pathlib import Path
from typing import Any

from accelplane.config.loader import load_stack
from accelplane.program import offline_graph

OUT = Path(__file__).parent / "fixtures" / "bad-stack-export.json"


def _policy(statements: list[dict[str, Any]]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": statements})


def _in_dependency_order(resources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Parents and dependencies before the resources that need them; otherwise by URN."""
    by_urn = {r["urn"]: r for r in resources}
    needs = {urn: {d for d in (r["parent"], *r["dependencies"]) if d in by_urn} for urn, r in by_urn.items()}
    needed_by: dict[str, list[str]] = {urn: [] for urn in by_urn}
    for urn, required in needs.items():
        for other in required:
            needed_by[other].append(urn)
    ready = [urn for urn, required in needs.items() if not required]
    heapq.heapify(ready)
    ordered = []
    while ready:
        urn = heapq.heappop(ready)
        ordered.append(by_urn[urn])
        for dependent in needed_by[urn]:
            needs[dependent].discard(urn)
            if not needs[dependent]:
                heapq.heappush(ready, dependent)
    assert len(ordered) == len(resources), "dependency cycle in the offline graph"
    return ordered


def render() -> str:
    """The fixture's text."""
    graph = offline_graph(load_stack("dev"))
    resources: list[dict[str, Any]] = []
    for r in graph.resources:
        inputs = json.loads(json.dumps(r.inputs))
        resources.append({"urn": r.urn, "custom": r.custom, "id": getattr(r, "id", None) or "", "type": r.type,
                          "inputs": inputs, "outputs": {**inputs, "id": getattr(r, "id", None) or ""},
                          "parent": r.parent or "", "protect": r.protect, "dependencies": sorted(r.dependencies)})
    by_name = {r["urn"].rsplit("::", 1)[-1]: r for r in resources}

    def inputs(name: str) -> dict[str, Any]:
        return by_name[name]["inputs"]

    # iam: a workload policy allowing every action, and a CI user with a static key
    inputs("acme-ml-dev-trainer-access")["policy"] = _policy([{"Effect": "Allow", "Action": "*", "Resource": "*"}])
    urns = {r["urn"] for r in resources}
    [stack_urn] = {r["parent"] for r in resources if r["parent"] and r["parent"] not in urns}  # the Stack
    for type_token, name, props in (
        ("aws:iam/user:User", "ci-deployer", {"name": "ci-deployer", "tags": inputs("acme-ml-dev-eks-role")["tags"]}),
        ("aws:iam/accessKey:AccessKey", "ci-deployer-key", {"user": "ci-deployer"}),
    ):
        resources.append({"urn": f"urn:pulumi:dev::accelplane::{type_token}::{name}", "custom": True, "id": name,
                          "type": type_token, "inputs": props, "outputs": props, "parent": stack_urn,
                          "protect": False, "dependencies": []})
    # storage: one public-access flag off; checkpoints without versioning
    inputs("acme-ml-dev-datasets-public-access")["restrictPublicBuckets"] = False
    inputs("acme-ml-dev-checkpoints-versioning")["versioningConfiguration"] = {"status": "Suspended"}
    # secrets and keys: no rotation on the data key; a token in user data
    inputs("acme-ml-dev-data-key")["enableKeyRotation"] = False
    inputs("acme-ml-dev-train-l4-lt")["userData"] = base64.b64encode(
        b"#!/bin/bash\nexport HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz0123456789\n").decode()
    # network: SSH from anywhere on the inference nodes
    ssh = inputs("acme-ml-dev-sg-inference-in-lb")
    ssh.update({"fromPort": 22, "toPort": 22, "cidrIpv4": "0.0.0.0/0"})
    ssh.pop("referencedSecurityGroupId", None)
    # compute: pods can reach the node role through IMDS
    inputs("acme-ml-dev-infer-l4-lt")["metadataOptions"]["httpPutResponseHopLimit"] = 2
    # cluster: API open to the internet
    inputs("acme-ml-dev-eks-cluster")["vpcConfig"]["publicAccessCidrs"] = ["0.0.0.0/0"]
    # load balancer: TLS 1.0 policy
    inputs("acme-ml-dev-inference-https")["sslPolicy"] = "ELBSecurityPolicy-2016-08"
    # kubernetes: a privileged server container on a floating tag
    deployment = next(r for r in resources if r["type"] == "kubernetes:apps/v1:Deployment")["inputs"]
    server = deployment["spec"]["template"]["spec"]["containers"][0]
    server["securityContext"] = {"privileged": True}
    server["image"] = "vllm/vllm-openai:latest"
    # version matrix: the L4 inference pool's driver cannot run its CUDA 13.0
    inputs("acme-ml-dev-infer-l4-ng")["labels"]["versions.accelplane.io/driver"] = "535.54.03"
    # rollout: the inference service's weighted backend holds no replicas (its share goes to no pods)
    service = next(r for r in resources if r["type"] == "accelplane:k8s:InferenceService")["inputs"]
    next(b for b in service["backends"] if b["weight"] > 0)["minReplicas"] = 0
    # cost: a development pool kept past its expiry
    inputs("acme-ml-dev-infer-l4-ng")["labels"]["accelplane.io/expires"] = "2020-01-31"
    # audit: a trail delivering into the checkpoints bucket (named outright), which has no Object Lock
    inputs("acme-ml-dev-checkpoints-bucket")["bucket"] = "acme-ml-dev-checkpoints"
    trail = {"name": "acme-ml-dev-audit", "s3BucketName": "acme-ml-dev-checkpoints", "isMultiRegionTrail": True,
             "enableLogFileValidation": True, "tags": inputs("acme-ml-dev-eks-role")["tags"]}
    resources.append({"urn": "urn:pulumi:dev::accelplane::aws:cloudtrail/trail:Trail::acme-ml-dev-audit",
                      "custom": True, "id": "acme-ml-dev-audit", "type": "aws:cloudtrail/trail:Trail", "inputs": trail,
                      "outputs": trail, "parent": stack_urn, "protect": False, "dependencies": []})
    # hygiene: an untagged VPC
    inputs("acme-ml-dev-network-vpc")["tags"] = {"Name": "acme-ml-dev-network-vpc"}
    for r in resources:
        r["outputs"] = {**r["inputs"], "id": r["id"]}
    document = {"version": 3, "deployment": {"manifest": {"time": "2026-01-01T00:00:00Z", "magic": "", "version":
                                                           "v3.272.0"}, "resources": _in_dependency_order(resources)}}
    return json.dumps(document, indent=1, sort_keys=True) + "\n"


def main(out: Path = OUT) -> None:
    text = render()
    out.write_text(text)
    print(f"wrote {out} ({len(json.loads(text)['deployment']['resources'])} resources)")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
