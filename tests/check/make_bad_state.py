"""Regenerate `fixtures/bad-stack-export.json`: the dev stack as `pulumi stack export` would write it,
with one deliberate mistake per rule family. Run by hand (`python -m tests.check.make_bad_state`)
when the export format or the families change; the committed file is the fixture."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from accelplane.config.loader import load_stack
from accelplane.engine.offline import run_offline

OUT = Path(__file__).parent / "fixtures" / "bad-stack-export.json"


def _policy(statements: list[dict[str, Any]]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": statements})


def main() -> None:
    graph = run_offline(load_stack("dev"))
    resources: list[dict[str, Any]] = []
    for r in graph.resources:
        inputs = json.loads(json.dumps(r.inputs))
        resources.append({"urn": r.urn, "custom": r.custom, "id": getattr(r, "id", None) or "", "type": r.type,
                          "inputs": inputs, "outputs": {**inputs, "id": getattr(r, "id", None) or ""},
                          "parent": r.parent or "", "protect": r.protect, "dependencies": list(r.dependencies)})
    by_name = {r["urn"].rsplit("::", 1)[-1]: r for r in resources}

    def inputs(name: str) -> dict[str, Any]:
        return by_name[name]["inputs"]

    # iam: a workload policy allowing every action, and a CI user with a static key
    inputs("acme-ml-dev-trainer-access")["policy"] = _policy([{"Effect": "Allow", "Action": "*", "Resource": "*"}])
    stack_urn = resources[0]["parent"] or resources[0]["urn"]
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
    # hygiene: an untagged VPC
    inputs("acme-ml-dev-network-vpc")["tags"] = {"Name": "acme-ml-dev-network-vpc"}
    for r in resources:
        r["outputs"] = {**r["inputs"], "id": r["id"]}
    document = {"version": 3, "deployment": {"manifest": {"time": "2026-01-01T00:00:00Z", "magic": "", "version":
                                                           "v3.272.0"}, "resources": resources}}
    OUT.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT} ({len(resources)} resources)")


if __name__ == "__main__":
    main()
