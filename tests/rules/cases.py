"""Pass and fail fixtures for every rule, in the wire format the engines send (camelCase inputs).

Each `Case` holds two small graphs: in `passing` the rule finds nothing; in `failing` it finds at
least one problem whose message contains `expect`, on the resource named `target`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from accelplane.clouds.aws import resource_types as t
from accelplane.rules import types as neutral
from accelplane.rules.view import Resource

TAGS = {"owner": "ml-platform", "cost-centre": "cc-1", "accelplane:platform": "acme", "accelplane:environment": "dev"}
PROD_TAGS = {**TAGS, "accelplane:environment": "prod"}
ROOT = "urn:pulumi:test::accelplane::pulumi:pulumi:Stack::accelplane-test"


def res(type_token: str, name: str, props: Mapping[str, Any] | None = None, **options: Any) -> Resource:
    """A resource with a deterministic URN and id (`id-<name>`)."""
    return Resource(urn=f"urn:pulumi:test::accelplane::{type_token}::{name}", type=type_token, name=name,
                    props=dict(props or {}), id=options.pop("id", f"id-{name}"), **options)


def doc(*statements: Mapping[str, Any]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


def allow(action: Any, resource: Any = "*", **extra: Any) -> dict[str, Any]:
    return {"Effect": "Allow", "Action": action, "Resource": resource, **extra}


def role_policy(name: str, *statements: Mapping[str, Any], role: str = "id-role") -> Resource:
    return res(t.IAM_ROLE_POLICY, name, {"role": role, "policy": doc(*statements)})


def service_role(name: str, service: str, **props: Any) -> Resource:
    trust = doc({"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"})
    return res(t.IAM_ROLE, name, {"assumeRolePolicy": trust, "tags": TAGS, **props}, id=name)


ISSUER = "oidc.eks.us-west-2.amazonaws.com/id/ABC"
PROVIDER = f"arn:aws:iam::123456789012:oidc-provider/{ISSUER}"


def workload_role(name: str, condition: Mapping[str, Any]) -> Resource:
    trust = doc({"Effect": "Allow", "Principal": {"Federated": PROVIDER}, "Action": "sts:AssumeRoleWithWebIdentity",
                 "Condition": condition})
    return res(t.IAM_ROLE, name, {"assumeRolePolicy": trust, "tags": TAGS})


def bucket(name: str, role: str = "datasets", tags: Mapping[str, str] = TAGS, **props: Any) -> Resource:
    return res(t.S3_BUCKET, name, {"bucketPrefix": f"{name}-", "tags": {**tags, "accelplane.io/bucket-role": role},
                                   **props})


def on_bucket(type_token: str, name: str, bucket_name: str, props: Mapping[str, Any]) -> Resource:
    return res(type_token, name, {"bucket": f"id-{bucket_name}", **props})


PAB = {"blockPublicAcls": True, "blockPublicPolicy": True, "ignorePublicAcls": True, "restrictPublicBuckets": True}
SSE_KMS = {"rules": [{"applyServerSideEncryptionByDefault": {"sseAlgorithm": "aws:kms",
                                                           "kmsMasterKeyId": "arn:aws:kms:us-west-2:1:key/k"}}]}
TLS_DENY = {"Sid": "DenyInsecureTransport", "Effect": "Deny", "Principal": "*", "Action": "s3:*",
            "Resource": ["arn:aws:s3:::b", "arn:aws:s3:::b/*"], "Condition": {"Bool": {"aws:SecureTransport": "false"}}}
LIFECYCLE = {"rules": [{"id": "x", "status": "Enabled", "filter": {"prefix": ""},
                        "noncurrentVersionExpiration": {"noncurrentDays": 3},
                        "abortIncompleteMultipartUpload": {"daysAfterInitiation": 1}}]}

METADATA = {"httpEndpoint": "enabled", "httpTokens": "required", "httpPutResponseHopLimit": 1}


def launch_template(name: str, *, metadata: Mapping[str, Any] = METADATA, interfaces: list[Any] | None = None,
                    volumes: list[Any] | None = None, **props: Any) -> Resource:
    return res(t.LAUNCH_TEMPLATE, name, {
        "metadataOptions": dict(metadata),
        "blockDeviceMappings": volumes if volumes is not None else [
            {"deviceName": "/dev/xvda", "ebs": {"volumeSize": 100, "volumeType": "gp3", "encrypted": "true"}}],
        "networkInterfaces": interfaces if interfaces is not None else [
            {"deviceIndex": 0, "associatePublicIpAddress": "false", "securityGroups": ["id-sg-nodes"]}],
        "tags": TAGS, **props})


VERSIONS_H100 = {
    "versions.accelplane.io/driver": "570.172.08", "versions.accelplane.io/cuda": "12.8",
    "versions.accelplane.io/nccl": "2.27.3", "versions.accelplane.io/kernel-module": "open",
    "versions.accelplane.io/fabric-manager": "570.172.08", "versions.accelplane.io/torch": "2.8.0",
    "versions.accelplane.io/python": "3.11", "versions.accelplane.io/os": "amazon-linux-2023",
    "versions.accelplane.io/cudnn": "9.10.2.21", "versions.accelplane.io/nccl-package": "nvidia-nccl-cu12",
}


def node_group(name: str, *, accelerator: str = "nvidia-hgx-h100-8gpu", instance: str = "p5.48xlarge",
               versions: Mapping[str, str] | None = None, extra_labels: Mapping[str, str] | None = None,
               lt: str = "lt", **props: Any) -> Resource:
    # The fixtures are a dev stack's (TAGS): its accelerator pools carry an owner and an expiry (AP-COST-003).
    labels = {"accelplane.io/pool": name, "accelplane.io/purpose": "training", "accelplane.io/accelerator": accelerator,
              "accelplane.io/efa": "false", "accelplane.io/owner": "ml-platform", "accelplane.io/expires": "2099-12-31"}
    if accelerator != "none":
        labels["accelplane.io/profile"] = "h100"
        labels.update(versions if versions is not None else VERSIONS_H100)
    labels.update(extra_labels or {})
    return res(t.EKS_NODE_GROUP, f"{name}-ng", {
        "nodeGroupName": name, "instanceTypes": [instance], "labels": labels, "releaseVersion": "1.33.5-20251120",
        "launchTemplate": {"id": f"id-{lt}", "version": "1"}, "subnetIds": ["id-private-0"], "tags": TAGS, **props})


DIGEST = "@sha256:" + "a" * 64


def container(name: str = "main", **props: Any) -> dict[str, Any]:
    return {"name": name, "image": f"registry.example.com/{name}:1.0{DIGEST}", **props}


def deployment(name: str, *containers_: Mapping[str, Any], kind: str = neutral.K8S_DEPLOYMENT,
               labels: Mapping[str, str] | None = None, namespace: str = "training",
               annotations: Mapping[str, str] | None = None, object_name: str | None = None,
               replicas: int | None = None, **pod: Any) -> Resource:
    """A workload named `name` in the graph; `object_name` (default `name`) is its metadata.name."""
    pod_spec = {"serviceAccountName": name, "containers": list(containers_ or [container()]), **pod}
    template = {"metadata": {"labels": dict(labels or {"app": name}), "annotations": dict(annotations or {})},
                "spec": pod_spec}
    spec: dict[str, Any] = {"selector": {"matchLabels": {"app": name}}, "template": template}
    if replicas is not None:
        spec["replicas"] = replicas
    metadata = {"name": object_name or name, "namespace": namespace, "labels": dict(labels or {})}
    if kind == neutral.K8S_POD:
        return res(kind, name, {"metadata": metadata, "spec": pod_spec})
    return res(kind, name, {"metadata": metadata, "spec": spec})


def gpu_container(gpus: int) -> dict[str, Any]:
    amount = {"nvidia.com/gpu": str(gpus)}
    return container(resources={"requests": amount, "limits": amount})


def gpu_quota(namespace: str, gpus: int) -> Resource:
    return res(neutral.K8S_RESOURCE_QUOTA, f"{namespace}-quota", {
        "metadata": {"name": "accelerators", "namespace": namespace},
        "spec": {"hard": {"requests.nvidia.com/gpu": str(gpus)}}})


PRIVILEGED = {"securityContext": {"privileged": True}}
DEVICE_PLUGIN = {"app.kubernetes.io/component": "device-plugin"}
NEURON_MONITOR_IMAGE = "public.ecr.aws/neuron/neuron-monitor@sha256:" + "b" * 64


MONITOR_LABELS = {"app.kubernetes.io/name": "neuron-monitor", "app.kubernetes.io/component": "device-monitor"}


def neuron_monitor(name: str = "neuron-monitor", *containers_: Mapping[str, Any], namespace: str = "kube-system",
                   image: str = NEURON_MONITOR_IMAGE, labels: Mapping[str, str] | None = MONITOR_LABELS,
                   **pod: Any) -> Resource:
    """The platform's neuron-monitor DaemonSet as `accelplane/k8s/neuron_monitor.py` declares it (privileged)."""
    main = {"name": "neuron-monitor", "image": image, **PRIVILEGED}
    return deployment(name, *(containers_ or [main]), kind=neutral.K8S_DAEMON_SET, namespace=namespace,
                      object_name="neuron-monitor", labels=labels, **pod)


GPU = {"requests": {"nvidia.com/gpu": "8"}, "limits": {"nvidia.com/gpu": "8"}}
PROBES = {"readinessProbe": {"httpGet": {"path": "/healthz", "port": 8000}},
          "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8000}}}


VERSIONS_L40S = {
    "versions.accelplane.io/driver": "570.172.08", "versions.accelplane.io/kernel-module": "open",
    "versions.accelplane.io/cuda": "12.8", "versions.accelplane.io/cudnn": "9.10.2.21",
    "versions.accelplane.io/nccl": "2.27.3", "versions.accelplane.io/torch": "2.8.0",
    "versions.accelplane.io/python": "3.11", "versions.accelplane.io/os": "amazon-linux-2023",
}
IMAGE_L40S = {"cuda": "12.8", "cudnn": "9.10.2.21", "nccl": "2.27.3", "torch": "2.8.0", "python": "3.11",
              "driver": "570.172.08", "kernel_module": "open", "os": "amazon-linux-2023"}
# An image built for CUDA 13.0 (its cuDNN and NCCL too): consistent alone, too new for an R570 driver.
IMAGE_CUDA13 = {**IMAGE_L40S, "cuda": "13.0", "cudnn": "9.13.0.50", "nccl": "2.27.7", "torch": "2.9.0"}


def infer_pool(name: str = "infer-l40s") -> Resource:
    return node_group(name, accelerator="nvidia-l40s", instance="g6e.2xlarge", versions=VERSIONS_L40S,
                      extra_labels={"accelplane.io/purpose": "inference", "accelplane.io/profile": "l40s"})


def backend(name: str, weight: int, *, pool: str = "infer-l40s", min_replicas: int = 1, profile: str = "l40s",
            versions: Mapping[str, str] | None = None, service: str = "chat") -> dict[str, Any]:
    """One backend as the `accelplane:k8s:InferenceService` component carries it (rollout/declared.py)."""
    return {"name": name, "objectName": f"{service}-{name}", "nodePool": pool, "accelerator": "nvidia-l40s",
            "weight": weight, "minReplicas": min_replicas, "maxReplicas": 8, "softwareProfile": profile,
            "versions": dict(versions if versions is not None else IMAGE_L40S)}


def inference_service(name: str, *backends: Mapping[str, Any], rollout: Mapping[str, Any] | None = None,
                      service: str = "chat") -> Resource:
    return res(neutral.INFERENCE_SERVICE, name, {
        "service": service, "pathPrefix": "/", "exposed": True, "backends": [dict(b) for b in backends],
        "rollout": dict(rollout) if rollout is not None else None}, id=None)


def canary_rollout(baseline: str = "stable", canary: str | None = "next") -> dict[str, Any]:
    return {"baseline": baseline, "canary": canary, "steps": [5, 25, 50, 100], "metrics": "cloudwatch"}


@dataclass
class Case:
    passing: list[Resource]
    failing: list[Resource]
    expect: str
    target: str
    environment: str | None = None
    also: tuple[str, ...] = ()  # rules that judge a pair report on both members
    # Other rules the failing fixture trips by design: the problem it shows is theirs too (a wildcard
    # action is also an escalation path). Anything else a failing fixture trips fails the suite.
    also_trips: frozenset[str] = frozenset()
    notes: list[str] = field(default_factory=list)


def ingress(name: str, group: str, **props: Any) -> Resource:
    return res(t.INGRESS_RULE, name, {"securityGroupId": f"id-{group}", "ipProtocol": "tcp", "tags": TAGS, **props})


def egress(name: str, group: str, **props: Any) -> Resource:
    return res(t.EGRESS_RULE, name, {"securityGroupId": f"id-{group}", "tags": TAGS, **props})


def group(name: str, **props: Any) -> Resource:
    return res(t.SECURITY_GROUP, name, {"vpcId": "vpc-1", "description": name, "tags": TAGS, **props})


def efa_interfaces(*groups: str, count: int = 2) -> list[dict[str, Any]]:
    return [{"deviceIndex": 0 if i == 0 else 1, "networkCardIndex": i, "interfaceType": "efa",
             "associatePublicIpAddress": "false", "securityGroups": [f"id-{g}" for g in groups]} for i in range(count)]


def efa_group_resources(name: str = "sg-efa") -> list[Resource]:
    return [group(name), ingress(f"{name}-in", name, ipProtocol="-1", referencedSecurityGroupId=f"id-{name}"),
            egress(f"{name}-out", name, ipProtocol="-1", referencedSecurityGroupId=f"id-{name}")]


def load_balancer(name: str = "alb", group_name: str = "sg-lb") -> Resource:
    return res(t.LOAD_BALANCER, name, {"loadBalancerType": "application", "internal": False, "securityGroups":
                                       [f"id-{group_name}"], "dropInvalidHeaderFields": True, "tags": TAGS})


def secret(name: str, **props: Any) -> Resource:
    return res(t.SECRET, name, {"kmsKeyId": "arn:aws:kms:us-west-2:123456789012:key/k", "tags": TAGS, **props})


READER = "arn:aws:iam::123456789012:role/acme-serve-role"


def secret_policy(name: str, secret_name: str, principal: Any) -> Resource:
    return res(t.SECRET_POLICY, name, {"secretArn": f"id-{secret_name}", "policy": doc(
        {"Effect": "Allow", "Principal": principal, "Action": ["secretsmanager:GetSecretValue"], "Resource": "*"})})


def listener(name: str, **props: Any) -> Resource:
    return res(t.LISTENER, name, {"loadBalancerArn": "arn:lb", "tags": TAGS, **props})


REDIRECT = {"type": "redirect", "redirect": {"protocol": "HTTPS", "port": "443", "statusCode": "HTTP_301"}}
FORWARD = {"type": "forward", "targetGroupArn": "arn:tg"}


def public_endpoint(*, https_port: int = 443, http_action: Mapping[str, Any] | None = REDIRECT,
                    cidr: Mapping[str, str] | None = None, alb: str = "alb", group_name: str = "sg-lb",
                    ) -> list[Resource]:
    """An internet-facing ALB as the program declares it: its group open to `cidr` (default the whole
    IPv4 internet) on the HTTPS listener port and, with `http_action`, port 80 with that listener action."""
    source = dict(cidr or {"cidrIpv4": "0.0.0.0/0"})
    found = [group(group_name), load_balancer(alb, group_name),
             ingress(f"lb-in-{https_port}", group_name, fromPort=https_port, toPort=https_port, **source),
             listener(f"{alb}-https", loadBalancerArn=f"id-{alb}", protocol="HTTPS", port=https_port,
                      sslPolicy="ELBSecurityPolicy-TLS13-1-2-2021-06",
                      certificateArn="arn:aws:acm:us-west-2:1:certificate/x", defaultActions=[FORWARD])]
    if http_action is not None:
        found += [ingress("lb-in-80", group_name, fromPort=80, toPort=80, **source),
                  listener(f"{alb}-http", loadBalancerArn=f"id-{alb}", protocol="HTTP", port=80,
                           defaultActions=[dict(http_action)])]
    return found


def cluster(**vpc: Any) -> dict[str, Any]:
    return {"name": "acme", "version": "1.33", "tags": TAGS,
            "vpcConfig": {"endpointPrivateAccess": True, "endpointPublicAccess": True,
                          "publicAccessCidrs": ["198.51.100.0/24"], "subnetIds": ["s-1"], **vpc},
            "encryptionConfig": [{"resources": ["secrets"], "provider": {"keyArn": "arn:aws:kms:us-west-2:1:key/k"}}],
            "enabledClusterLogTypes": ["api", "audit", "authenticator", "controllerManager", "scheduler"]}


def _b64(text: str) -> str:
    import base64

    return base64.b64encode(text.encode()).decode()


GOOD_TRUST = {"StringEquals": {f"{ISSUER}:sub": "system:serviceaccount:training:trainer",
                               f"{ISSUER}:aud": "sts.amazonaws.com"}}
OBJECTS = allow(["s3:GetObject"], "arn:aws:s3:::data-1/corpora/*")


CASES: dict[str, Case] = {
    # ---------------------------------------------------------------- IAM
    "AP-IAM-001": Case(
        also_trips=frozenset({"AP-IAM-003", "AP-IAM-004", "AP-S3-007"}),
        passing=[role_policy("p", allow(["s3:GetObject"], "arn:aws:s3:::b/x/*"))],
        failing=[role_policy("p", allow("*"))], expect="every action", target="p"),
    "AP-IAM-002": Case(
        also_trips=frozenset({"AP-S3-007"}),
        passing=[role_policy("p", allow("s3:*", "arn:aws:s3:::b/x/*"))],
        failing=[role_policy("p", allow(["s3:*", "ec2:DescribeInstances"]))], expect="s3:*", target="p"),
    "AP-IAM-003": Case(
        also_trips=frozenset({"AP-IAM-004"}),
        passing=[role_policy("p", allow("iam:PassRole", "arn:aws:iam::1:role/x",
                                        Condition={"StringEquals": {"iam:PassedToService": "ec2.amazonaws.com"}}),
                             allow("ec2:RunInstances", "arn:aws:ec2:us-west-2:1:instance/*"))],
        failing=[role_policy("p", allow(["iam:PassRole", "ec2:RunInstances"]))], expect="CreateEC2WithExistingIP",
        target="p"),
    "AP-IAM-004": Case(
        passing=[role_policy("p", allow("iam:PassRole", "arn:aws:iam::123456789012:role/node",
                                        Condition={"StringEquals": {"iam:PassedToService": "ec2.amazonaws.com"}}))],
        failing=[role_policy("p", allow("iam:PassRole", "arn:aws:iam::123456789012:role/*"))],
        expect="any role can be passed", target="p"),
    "AP-IAM-005": Case(
        passing=[service_role("r", "eks.amazonaws.com")],
        failing=[res(t.IAM_ROLE, "r", {"assumeRolePolicy": doc({"Effect": "Allow", "Principal": {"AWS": "*"},
                                                                "Action": "sts:AssumeRole"}), "tags": TAGS})],
        expect="any principal", target="r"),
    "AP-IAM-006": Case(
        passing=[workload_role("w", GOOD_TRUST)],
        failing=[workload_role("w", {"StringLike": {f"{ISSUER}:sub": "system:serviceaccount:training:*"}})],
        expect="StringLike", target="w"),
    "AP-IAM-007": Case(
        passing=[service_role("node", "ec2.amazonaws.com"),
                 res(t.IAM_ROLE_POLICY_ATTACHMENT, "node-worker",
                     {"role": "node", "policyArn": "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy"})],
        failing=[service_role("node", "ec2.amazonaws.com"),
                 res(t.IAM_ROLE_POLICY_ATTACHMENT, "node-s3",
                     {"role": "node", "policyArn": "arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess"})],
        expect="AmazonS3ReadOnlyAccess", target="node"),
    "AP-IAM-008": Case(
        passing=[service_role("r", "eks.amazonaws.com")],
        failing=[res(t.IAM_USER, "ci-user", {"name": "ci", "tags": TAGS})], expect="IAM user", target="ci-user"),
    "AP-IAM-009": Case(
        passing=[service_role("r", "eks.amazonaws.com")],
        failing=[res(t.IAM_ACCESS_KEY, "ci-key", {"user": "ci"})], expect="access key", target="ci-key"),
    "AP-IAM-010": Case(
        passing=[res(t.IAM_ROLE_POLICY_ATTACHMENT, "a", {"role": "r", "policyArn":
                                                         "arn:aws:iam::aws:policy/AmazonEKSClusterPolicy"})],
        failing=[res(t.IAM_ROLE_POLICY_ATTACHMENT, "a", {"role": "r", "policyArn":
                                                         "arn:aws:iam::aws:policy/AdministratorAccess"})],
        expect="AdministratorAccess", target="a"),
    "AP-IAM-011": Case(
        also_trips=frozenset({"AP-IAM-003", "AP-S3-007"}),
        passing=[role_policy("p", {"Effect": "Deny", "NotAction": "s3:GetObject", "Resource": "*"})],
        failing=[role_policy("p", {"Effect": "Allow", "NotAction": "iam:*", "Resource": "*"})],
        expect="NotAction", target="p"),
    "AP-IAM-012": Case(
        passing=[role_policy("p", allow(["s3:GetObject", "s3:Get*"], "arn:aws:s3:::b/x/*"))],
        failing=[role_policy("p", allow(["s3:GetObjects"], "arn:aws:s3:::b/x/*"))], expect="s3:GetObjects",
        target="p"),
    "AP-IAM-013": Case(
        also_trips=frozenset({"AP-IAM-004"}),
        passing=[service_role("role", "ec2.amazonaws.com"),
                 role_policy("a", allow("iam:PassRole", "arn:aws:iam::1:role/x"), role="role"),
                 role_policy("b", allow("s3:GetObject", "arn:aws:s3:::b/x/*"), role="role")],
        failing=[service_role("role", "ec2.amazonaws.com"),
                 role_policy("a", allow("iam:PassRole"), role="role"),
                 role_policy("b", allow("ec2:RunInstances"), role="role")],
        expect="together allow", target="role"),
    # ---------------------------------------------------------------- Storage
    "AP-S3-001": Case(
        passing=[on_bucket(t.S3_PUBLIC_ACCESS_BLOCK, "pab", "b", PAB)],
        failing=[on_bucket(t.S3_PUBLIC_ACCESS_BLOCK, "pab", "b", {**PAB, "restrictPublicBuckets": False})],
        expect="restrictPublicBuckets", target="pab"),
    "AP-S3-002": Case(
        also_trips=frozenset({"AP-S3-003", "AP-S3-004", "AP-S3-009"}),
        passing=[bucket("b"), on_bucket(t.S3_PUBLIC_ACCESS_BLOCK, "pab", "b", PAB)],
        failing=[bucket("b"), bucket("other"), on_bucket(t.S3_PUBLIC_ACCESS_BLOCK, "pab", "other", PAB)],
        expect="no public access block", target="b"),
    "AP-S3-003": Case(
        passing=[bucket("b"), on_bucket(t.S3_SSE, "sse", "b", SSE_KMS)],
        failing=[bucket("b"), on_bucket(t.S3_SSE, "sse", "b", {"rules": [
            {"applyServerSideEncryptionByDefault": {"sseAlgorithm": "AES256"}}]})],
        expect="not SSE-KMS", target="b"),
    "AP-S3-004": Case(
        passing=[bucket("b"), on_bucket(t.S3_POLICY, "pol", "b", {"policy": doc(TLS_DENY)})],
        failing=[bucket("b"), on_bucket(t.S3_POLICY, "pol", "b", {"policy": doc(
            {**TLS_DENY, "Condition": {"Bool": {"aws:SecureTransport": "true"}}})})],
        expect="SecureTransport", target="b"),
    "AP-S3-005": Case(
        passing=[bucket("ck", "checkpoints"),
                 on_bucket(t.S3_VERSIONING, "v", "ck", {"versioningConfiguration": {"status": "Enabled"}})],
        failing=[bucket("ck", "checkpoints"),
                 on_bucket(t.S3_VERSIONING, "v", "ck", {"versioningConfiguration": {"status": "Suspended"}})],
        expect="without versioning", target="ck"),
    "AP-S3-006": Case(
        passing=[bucket("ck", "checkpoints"), on_bucket(t.S3_LIFECYCLE, "lc", "ck", LIFECYCLE)],
        failing=[bucket("ck", "checkpoints"), on_bucket(t.S3_LIFECYCLE, "lc", "ck", {"rules": [
            {"id": "x", "status": "Enabled", "filter": {"prefix": ""}, "expiration": {"days": 30}}]})],
        expect="noncurrent", target="ck"),
    "AP-S3-007": Case(
        passing=[role_policy("p", OBJECTS, allow("s3:ListBucket", "arn:aws:s3:::data-1",
                                                 Condition={"StringLike": {"s3:prefix": ["corpora/*"]}}))],
        failing=[role_policy("p", allow(["s3:GetObject", "s3:PutObject"], "arn:aws:s3:::data-1/*"))],
        expect="scope them to a key prefix", target="p"),
    "AP-S3-008": Case(
        passing=[bucket("b")], failing=[bucket("b", acl="public-read")], expect="public-read", target="b"),
    "AP-S3-009": Case(
        passing=[bucket("b"),
                 on_bucket(t.S3_OWNERSHIP, "own", "b", {"rule": {"objectOwnership": "BucketOwnerEnforced"}})],
        failing=[bucket("b"), on_bucket(t.S3_OWNERSHIP, "own", "b", {"rule": {"objectOwnership": "ObjectWriter"}})],
        expect="ObjectWriter", target="b"),
    "AP-S3-010": Case(
        passing=[on_bucket(t.S3_POLICY, "pol", "b", {"policy": doc(TLS_DENY)})],
        failing=[on_bucket(t.S3_POLICY, "pol", "b", {"policy": doc(
            {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"})})],
        expect="to everyone", target="pol"),
    "AP-S3-011": Case(
        passing=[bucket("b", tags=PROD_TAGS, forceDestroy=False)],
        failing=[bucket("b", tags=PROD_TAGS, forceDestroy=True)], expect="forceDestroy", target="b",
        environment="prod"),
    # ---------------------------------------------------------------- Secrets and keys
    "AP-KMS-001": Case(
        passing=[res(t.KMS_KEY, "k", {"enableKeyRotation": True, "tags": TAGS}),
                 res(t.KMS_KEY, "sign", {"customerMasterKeySpec": "ECC_NIST_P256", "tags": TAGS})],
        failing=[res(t.KMS_KEY, "k", {"enableKeyRotation": False, "tags": TAGS})], expect="rotation", target="k"),
    "AP-KMS-002": Case(
        passing=[res(t.KMS_KEY, "k", {"enableKeyRotation": True, "policy": doc(
            {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::123456789012:root"}, "Action": "kms:*",
             "Resource": "*"})})],
        failing=[res(t.KMS_KEY, "k", {"enableKeyRotation": True, "policy": doc(
            {"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "kms:Decrypt", "Resource": "*"})})],
        expect="any principal", target="k"),
    "AP-SM-001": Case(
        passing=[secret("s")], failing=[secret("s", kmsKeyId=None)], expect="AWS-managed key", target="s"),
    "AP-SM-002": Case(
        passing=[secret("s"), secret_policy("sp", "s", {"AWS": [READER]})],
        failing=[secret("s"), secret_policy("sp", "s", {"AWS": "arn:aws:iam::123456789012:root"})],
        expect="name workload role ARNs only", target="s"),
    "AP-SEC-001": Case(
        passing=[launch_template("lt", userData=_b64("#!/bin/bash\n/etc/eks/bootstrap.sh acme\n"))],
        failing=[launch_template(
            "lt", userData=_b64("#!/bin/bash\nexport HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz0123456789\n"))],
        expect="Hugging Face token", target="lt"),
    "AP-SEC-002": Case(
        passing=[deployment("trainer", container(env=[
            {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf", "key": "token"}}},
            {"name": "NCCL_DEBUG", "value": "INFO"}]))],
        failing=[deployment("trainer", container(env=[{"name": "WANDB_API_KEY", "value": "0123456789abcdef0123"}]))],
        expect="WANDB_API_KEY", target="trainer"),
    # ---------------------------------------------------------------- Network and compute
    "AP-NET-001": Case(
        also_trips=frozenset({"AP-LB-002"}),
        # A public endpoint: HTTPS and the redirect-only port 80 open to the world on the ALB's group.
        passing=[*public_endpoint(),
                 group("sg-nodes"), ingress("nodes-8000", "sg-nodes", fromPort=8000, toPort=8000,
                                            referencedSecurityGroupId="id-sg-lb")],
        # Port 80 open to the world where the listener forwards plain HTTP; nodes open to the world.
        failing=[*public_endpoint(http_action=FORWARD),
                 group("sg-nodes"), ingress("nodes-8000", "sg-nodes", fromPort=8000, toPort=8000,
                                            cidrIpv4="0.0.0.0/0")],
        expect="HTTPS listener port", target="lb-in-80", also=("nodes-8000",)),
    "AP-NET-002": Case(
        also_trips=frozenset({"AP-NET-001"}),
        passing=[group("sg"), ingress("ssh-office", "sg", fromPort=22, toPort=22, cidrIpv4="198.51.100.0/24")],
        failing=[group("sg", ingress=[{"protocol": "tcp", "fromPort": 0, "toPort": 65535,
                                       "cidrBlocks": ["0.0.0.0/0"]}])],
        expect="SSH (22)", target="sg"),
    "AP-NET-003": Case(
        passing=[*efa_group_resources(), launch_template("lt", interfaces=efa_interfaces("sg-efa"))],
        failing=[group("sg-efa"), launch_template("lt", interfaces=efa_interfaces("sg-efa"))],
        expect="EFA interfaces", target="lt"),
    "AP-NET-004": Case(
        passing=[*efa_group_resources(), launch_template("lt", interfaces=efa_interfaces("sg-efa")),
                 launch_template("lt-cpu")],
        failing=[*efa_group_resources(), launch_template("lt", interfaces=efa_interfaces("sg-efa")),
                 launch_template("lt-cpu", interfaces=[{"deviceIndex": 0, "securityGroups": ["id-sg-efa"]}])],
        expect="lt-cpu", target="sg-efa"),
    "AP-EC2-001": Case(
        passing=[launch_template("lt")],
        failing=[launch_template("lt", metadata={**METADATA, "httpTokens": "optional"})], expect="IMDSv1",
        target="lt"),
    "AP-EC2-002": Case(
        passing=[launch_template("lt")],
        failing=[launch_template("lt", metadata={**METADATA, "httpPutResponseHopLimit": 2})], expect="not 1",
        target="lt"),
    "AP-EC2-003": Case(
        passing=[launch_template("lt"), res(t.EBS_VOLUME, "v", {"encrypted": True, "tags": TAGS})],
        failing=[launch_template("lt", volumes=[{"deviceName": "/dev/xvda", "ebs": {"volumeSize": 100}}])],
        expect="not encrypted", target="lt"),
    "AP-EC2-004": Case(
        passing=[node_group("train"), launch_template("lt"),
                 res(t.SUBNET, "private-0", {"mapPublicIpOnLaunch": False, "tags": TAGS})],
        failing=[node_group("train"), launch_template("lt", interfaces=[
            {"deviceIndex": 0, "associatePublicIpAddress": "true", "securityGroups": ["id-sg-nodes"]}]),
            res(t.SUBNET, "private-0", {"mapPublicIpOnLaunch": True, "tags": TAGS})],
        expect="public IP", target="train-ng"),
    "AP-EKS-001": Case(
        passing=[res(t.EKS_CLUSTER, "c", cluster())],
        failing=[res(t.EKS_CLUSTER, "c", cluster(publicAccessCidrs=[]))], expect="whole internet", target="c"),
    "AP-EKS-002": Case(
        passing=[res(t.EKS_CLUSTER, "c", cluster())],
        failing=[res(t.EKS_CLUSTER, "c", {**cluster(), "encryptionConfig": []})], expect="not envelope-encrypted",
        target="c"),
    "AP-EKS-003": Case(
        passing=[res(t.EKS_CLUSTER, "c", cluster())],
        failing=[res(t.EKS_CLUSTER, "c", {**cluster(), "enabledClusterLogTypes": ["api"]})], expect="audit",
        target="c"),
    # ---------------------------------------------------------------- Load balancer
    "AP-LB-001": Case(
        passing=[listener("https", protocol="HTTPS", port=443, sslPolicy="ELBSecurityPolicy-TLS13-1-2-2021-06",
                          certificateArn="arn:aws:acm:us-west-2:1:certificate/x")],
        failing=[listener("https", protocol="HTTPS", port=443, sslPolicy="ELBSecurityPolicy-2016-08",
                          certificateArn="arn:aws:acm:us-west-2:1:certificate/x")],
        expect="ELBSecurityPolicy-2016-08", target="https"),
    "AP-LB-002": Case(
        passing=[listener("http", protocol="HTTP", port=80, defaultActions=[
            {"type": "redirect", "redirect": {"protocol": "HTTPS", "port": "443", "statusCode": "HTTP_301"}}])],
        failing=[listener("http", protocol="HTTP", port=80, defaultActions=[{"type": "forward",
                                                                             "targetGroupArn": "arn:tg"}])],
        expect="instead of redirecting", target="http"),
    "AP-LB-003": Case(
        passing=[load_balancer()],
        failing=[res(t.LOAD_BALANCER, "alb", {"loadBalancerType": "application", "dropInvalidHeaderFields": False,
                                              "tags": TAGS})],
        expect="dropInvalidHeaderFields", target="alb"),
    # ---------------------------------------------------------------- Kubernetes
    "AP-K8S-001": Case(
        also_trips=frozenset({"AP-K8S-005"}),
        # The platform's own device monitor, by identity: kube-system, its name, its image by digest.
        passing=[deployment("trainer"), neuron_monitor()],
        # A workload-namespace DaemonSet labelled as a device plugin; a kube-system one labelled so but
        # running a foreign image; the monitor's name and place on a floating tag.
        failing=[deployment("trainer", container(**PRIVILEGED)),
                 deployment("gpu-plugin", container(**PRIVILEGED), kind=neutral.K8S_DAEMON_SET, labels=DEVICE_PLUGIN),
                 deployment("system-plugin", container(**PRIVILEGED), kind=neutral.K8S_DAEMON_SET, labels=DEVICE_PLUGIN,
                            namespace="kube-system"),
                 neuron_monitor("floating-monitor", image="public.ecr.aws/neuron/neuron-monitor:1.3.0")],
        expect="privileged", target="trainer", also=("gpu-plugin", "system-plugin", "floating-monitor")),
    "AP-K8S-002": Case(
        passing=[deployment("trainer")],
        # A device-plugin label exempts nothing.
        failing=[deployment("trainer", container(), hostNetwork=True),
                 deployment("gpu-plugin", container(), kind=neutral.K8S_DAEMON_SET, labels=DEVICE_PLUGIN,
                            hostPID=True)],
        expect="host", target="trainer", also=("gpu-plugin",)),
    "AP-K8S-003": Case(
        passing=[deployment("trainer", container(), volumes=[{"name": "scratch", "emptyDir": {}}])],
        failing=[deployment("trainer", container(), volumes=[{"name": "dev", "hostPath": {"path": "/dev"}}]),
                 deployment("gpu-plugin", container(), kind=neutral.K8S_DAEMON_SET, labels=DEVICE_PLUGIN, volumes=[
                     {"name": "plugins", "hostPath": {"path": "/var/lib/kubelet/device-plugins"}}])],
        expect="/dev", target="trainer", also=("gpu-plugin",)),
    "AP-K8S-004": Case(
        passing=[deployment("trainer", container(resources=GPU))],
        failing=[deployment("trainer", container(resources={"requests": {"nvidia.com/gpu": "8"},
                                                            "limits": {"nvidia.com/gpu": "4"}}))],
        expect="differs from limit", target="trainer"),
    "AP-K8S-005": Case(
        passing=[deployment("trainer")],
        failing=[deployment("trainer", {"name": "main", "image": "pytorch/pytorch:2.8.0-cuda12.8-cudnn9-runtime"})],
        expect="not pinned by digest", target="trainer"),
    "AP-K8S-006": Case(
        passing=[deployment("serve", container(**PROBES), labels={"accelplane.io/purpose": "inference"})],
        failing=[node_group("infer", extra_labels={"accelplane.io/purpose": "inference"}),
                 deployment("serve", container(), nodeSelector={"accelplane.io/pool": "infer"})],
        expect="readinessProbe", target="serve"),
    "AP-K8S-007": Case(
        passing=[deployment("trainer"), deployment("server")],
        failing=[deployment("trainer"), deployment("evaluator", serviceAccountName="trainer")],
        expect="shared with", target="trainer", also=("evaluator",)),
    "AP-K8S-008": Case(
        passing=[gpu_quota("training", 8), deployment("trainer", gpu_container(4), replicas=2)],
        failing=[gpu_quota("training", 8), deployment("trainer", gpu_container(4), replicas=3)],
        expect="asks 12 nvidia.com/gpu (3 replicas) but ResourceQuota accelerators in namespace training allows 8",
        target="trainer"),
    # ---------------------------------------------------------------- Version matrix
    "AP-VER-001": Case(
        passing=[node_group("train")],
        failing=[node_group("train", versions={**VERSIONS_H100, "versions.accelplane.io/fabric-manager": "565.57.01"})],
        expect="profile h100", target="train-ng"),
    "AP-VER-002": Case(
        passing=[node_group("train")],
        failing=[node_group("train", versions={**VERSIONS_H100, "versions.accelplane.io/driver": "550.54.15",
                                               "versions.accelplane.io/fabric-manager": "550.54.15"})],
        expect="is conditional", target="train-ng"),
    "AP-VER-003": Case(
        also_trips=frozenset({"AP-VER-001"}),
        passing=[node_group("a", extra_labels={"accelplane.io/group": "g"}),
                 node_group("b", extra_labels={"accelplane.io/group": "g"})],
        failing=[node_group("a", extra_labels={"accelplane.io/group": "g"}),
                 node_group("b", extra_labels={"accelplane.io/group": "g"},
                            versions={**VERSIONS_H100, "versions.accelplane.io/nccl": "2.26.2"})],
        expect="nccl 2.27.3 vs 2.26.2", target="a-ng", also=("b-ng",)),
    "AP-VER-004": Case(
        passing=[node_group("train"), deployment("trainer", container(), nodeSelector={"accelplane.io/pool": "train"},
                                                 annotations={"versions.accelplane.io/cuda": "12.8"})],
        failing=[node_group("train"), deployment("trainer", container(), nodeSelector={"accelplane.io/pool": "train"},
                                                 annotations={"versions.accelplane.io/cuda": "13.0"})],
        expect="needs CUDA 13.0", target="trainer"),
    "AP-VER-005": Case(
        passing=[node_group("train"), node_group("system", accelerator="none", instance="m7i.xlarge")],
        failing=[node_group("train", releaseVersion=None)], expect="releaseVersion", target="train-ng"),
    # ---------------------------------------------------------------- Rollout
    "AP-RO-001": Case(
        # The canary's image is built for CUDA 12.8, which the pool's R570 driver supports.
        passing=[infer_pool(), inference_service("chat-svc", backend("stable", 95), backend("next", 5),
                                                 rollout=canary_rollout())],
        # The canary's image is built for CUDA 13.0: R570 is too old for it. The pool alone is fine.
        failing=[infer_pool(), inference_service("chat-svc", backend("stable", 95), backend(
            "next", 5, profile="cuda13", versions=IMAGE_CUDA13),
            rollout=canary_rollout())],
        expect="backend next (profile cuda13) on pool infer-l40s: cuda 13.0 with driver 570.172.08: "
               "nvidia.cuda-driver", target="chat-svc"),
    "AP-RO-002": Case(
        # An idle canary at weight 0 may hold no replicas.
        passing=[inference_service("chat-svc", backend("stable", 100), backend("next", 0, min_replicas=0),
                                   rollout=canary_rollout())],
        failing=[inference_service("chat-svc", backend("stable", 95), backend("next", 5, min_replicas=0),
                                   rollout=canary_rollout())],
        expect="backend next takes 5% of the requests with min_replicas 0", target="chat-svc"),
    "AP-RO-003": Case(
        # A finished rollout may retire its baseline once the canary carries 100.
        passing=[inference_service("chat-svc", backend("stable", 95), backend("next", 5), rollout=canary_rollout()),
                 inference_service("done-svc", backend("next", 100, service="done"), service="done",
                                   rollout=canary_rollout())],
        # The baseline is gone while the traffic is still split; another service names no canary.
        failing=[inference_service("chat-svc", backend("next", 50), backend("other", 50), rollout=canary_rollout()),
                 inference_service("more-svc", backend("stable", 90, service="more"), backend("a", 5, service="more"),
                                   backend("b", 5, service="more"), service="more",
                                   rollout=canary_rollout(canary=None))],
        expect="baseline stable is not among the backends", target="chat-svc", also=("more-svc",)),
    # ---------------------------------------------------------------- Hygiene
    "AP-TAG-001": Case(
        passing=[bucket("b")],
        failing=[res(t.S3_BUCKET, "b", {"tags": {"owner": "x"}})], expect="cost-centre", target="b"),
    "AP-TAG-002": Case(
        passing=[replace(bucket("b", tags=PROD_TAGS), protect=True)],
        failing=[bucket("b", tags=PROD_TAGS)], expect="not protected", target="b", environment="prod"),
    "AP-TAG-003": Case(
        passing=[res(t.LOG_GROUP, "logs", {"retentionInDays": 90, "tags": TAGS})],
        failing=[res(t.LOG_GROUP, "logs", {"tags": TAGS})], expect="forever", target="logs"),
}
