"""The GCP rules read what pulumi-gcp (pinned 10.x) really sends.

- every `gcp:` token in `accelplane.rules.types` is the token a pulumi_gcp resource class registers;
- the fixtures' shapes (tests/rules/gcp_cases.py) are the engine's: the same resources built with
  pulumi_gcp under Pulumi mocks carry every key path the fixtures use (camelCase wire names, nested
  objects as maps, single-item blocks as objects and repeated blocks as lists);
- the rules judge those recorded inputs as they judge the fixtures: the hardened shapes pass every
  GCP rule, and a weakened one trips the rule that guards it.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
from collections.abc import Callable, Mapping
from typing import Any

import pulumi
import pulumi_gcp as gcp
import pytest
from pulumi.runtime.stack import run_pulumi_func

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.engine import run_rule
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.registry import RULES
from accelplane.rules.view import Resource
from tests.rules import gcp_cases as c
from tests.rules.gcp_cases import GCP_CASES

# pulumi_gcp's package imports warn about its own deprecated aliases.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

GCP_TOKENS = sorted({value for name, value in vars(t).items()
                     if name.isupper() and isinstance(value, str) and value.startswith("gcp:")})
GCP_RULES = [rule for rule in RULES if rule.id in GCP_CASES]


@pytest.mark.parametrize("token", GCP_TOKENS)
def test_every_gcp_token_is_a_pulumi_gcp_resource(token: str) -> None:
    module, class_name = token.removeprefix("gcp:").split(":")
    package = importlib.import_module(f"pulumi_gcp.{module.split('/')[0]}")
    cls = getattr(package, class_name, None)
    candidates = [cls] if cls is not None else []
    # Several modules define a class of the same name (IAMMember): find the one registering this token.
    candidates += [getattr(package, name) for name in dir(package) if name == class_name]
    assert any(f"'{token}'" in inspect.getsource(k._internal_init) for k in candidates if inspect.isclass(k)), token


class _Recorder(pulumi.runtime.Mocks):
    def __init__(self) -> None:
        self.resources: list[tuple[str, str, dict[str, Any]]] = []

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        self.resources.append((args.typ, args.name, dict(args.inputs)))
        return f"{args.name}-id", dict(args.inputs)

    def call(self, args: pulumi.runtime.MockCallArgs) -> dict[str, Any]:
        return {}


def _record(program: Callable[[], None]) -> dict[str, Resource]:
    """Run `program` under mocks (a preview); its resources by name, inputs as the engine received them."""
    mocks = _Recorder()
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        pulumi.runtime.settings.reset_options()
        pulumi.runtime.set_mocks(mocks, project="accelplane", stack="wire", preview=True)
        loop.run_until_complete(run_pulumi_func(program))
    finally:
        loop.close()
        asyncio.set_event_loop(None)
    return {name: c.res(type_token, name, inputs) for type_token, name, inputs in mocks.resources}


SHIELDED = {"enable_secure_boot": True, "enable_integrity_monitoring": True}
NODE_CONFIG: dict[str, Any] = {
    "machine_type": "n2-standard-8", "service_account": c.NODE_SA,
    "oauth_scopes": ["https://www.googleapis.com/auth/cloud-platform"], "shielded_instance_config": SHIELDED,
    "workload_metadata_config": {"mode": "GKE_METADATA"}, "metadata": {"disable-legacy-endpoints": "true"},
}
ARMOR_RULES = [
    {"action": "allow", "priority": 1000,
     "match": {"versioned_expr": "SRC_IPS_V1", "config": {"src_ip_ranges": ["198.51.100.0/24"]}}},
    {"action": "deny(403)", "priority": 2147483647, "description": "default deny",
     "match": {"versioned_expr": "SRC_IPS_V1", "config": {"src_ip_ranges": ["*"]}}},
]


def _hardened() -> None:
    """The shapes the GCP layer is asked to declare, written with pulumi_gcp's Python names."""
    gcp.container.Cluster(
        "gke", name="acme", location="us-central1", project=c.PROJECT, network="id-vpc", subnetwork="id-nodes",
        remove_default_node_pool=True, initial_node_count=1, deletion_protection=True,
        private_cluster_config={"enable_private_nodes": True, "enable_private_endpoint": False,
                                "master_ipv4_cidr_block": "172.16.0.0/28"},
        master_authorized_networks_config={"cidr_blocks": [{"cidr_block": "198.51.100.0/24",
                                                            "display_name": "office"}]},
        workload_identity_config={"workload_pool": c.POOL},
        database_encryption={"state": "ENCRYPTED", "key_name": c.KEY},
        logging_config={"enable_components": ["SYSTEM_COMPONENTS", "APISERVER", "CONTROLLER_MANAGER", "SCHEDULER",
                                              "WORKLOADS"]},
        enable_shielded_nodes=True, resource_labels=c.LABELS,
        master_auth={"client_certificate_config": {"issue_client_certificate": False}})
    gcp.container.NodePool("cpu", cluster="id-gke", location="us-central1", node_count=1, node_config=NODE_CONFIG,
                           network_config={"enable_private_nodes": True})
    gcp.container.NodePool(
        "train-v5p", cluster="id-gke", location="us-central1", node_count=4, node_locations=["us-east5-a"],
        node_config={**NODE_CONFIG, "machine_type": "ct5p-hightpu-4t"},
        placement_policy={"type": "COMPACT", "tpu_topology": "2x2x4"})
    gcp.container.NodePool(
        "train-v6e", cluster="id-gke", location="us-central1", node_locations=["us-east5-a"], initial_node_count=0,
        autoscaling={"min_node_count": 0, "max_node_count": 4},
        node_config={**NODE_CONFIG, "machine_type": "ct6e-standard-4t"},
        placement_policy={"type": "COMPACT", "tpu_topology": "4x4"})
    gcp.storage.Bucket(
        "data", name="acme-data", location="US-CENTRAL1", project=c.PROJECT, uniform_bucket_level_access=True,
        public_access_prevention="enforced", encryption={"default_kms_key_name": c.KEY}, versioning={"enabled": True},
        force_destroy=False, labels={**c.LABELS, "bucket-role": "checkpoints"})
    gcp.storage.BucketIAMMember("read", bucket="acme-data", role="roles/storage.objectViewer", member=c.TRAINER,
                                condition=c.prefix_condition("acme-data", "corpora/"))
    gcp.storage.BucketIAMBinding("write", bucket="acme-data", role="roles/storage.objectUser", members=[c.TRAINER],
                                 condition=c.prefix_condition("acme-data", "pretrain/"))
    gcp.storage.BucketIAMPolicy("policy", bucket="acme-data", policy_data=json.dumps({"bindings": [
        {"role": "roles/storage.objectViewer", "members": [c.TRAINER],
         "condition": c.prefix_condition("acme-data", "released/")}]}))
    gcp.projects.IAMMember("nodes", project=c.PROJECT, role="roles/container.defaultNodeServiceAccount",
                           member=c.NODES)
    gcp.serviceaccount.Account("nodes-sa", account_id="acme-nodes", project=c.PROJECT)
    gcp.serviceaccount.IAMMember("wi", service_account_id=f"projects/{c.PROJECT}/serviceAccounts/{c.NODE_SA}",
                                 role="roles/iam.workloadIdentityUser", member=f"serviceAccount:{c.POOL}[training/x]")
    gcp.kms.CryptoKey("key", key_ring=f"projects/{c.PROJECT}/locations/us-central1/keyRings/acme",
                      rotation_period="7776000s", purpose="ENCRYPT_DECRYPT", labels=c.LABELS)
    gcp.kms.CryptoKeyIAMMember("gcs-agent", crypto_key_id="id-key", role="roles/cloudkms.cryptoKeyEncrypterDecrypter",
                               member=f"serviceAccount:service-{c.NUMBER}@gs-project-accounts.iam.gserviceaccount.com")
    gcp.secretmanager.Secret("hf-token", secret_id="acme-hf-token", project=c.PROJECT, labels=c.LABELS,
                             replication={"auto": {"customer_managed_encryption": {"kms_key_name": c.KEY}}})
    gcp.secretmanager.Secret("wandb", secret_id="acme-wandb", project=c.PROJECT, labels=c.LABELS, replication={
        "user_managed": {"replicas": [{"location": "us-central1",
                                       "customer_managed_encryption": {"kms_key_name": c.KEY}}]}})
    gcp.secretmanager.SecretIamMember("hf-pretrain", secret_id="id-hf-token", project=c.PROJECT,
                                      role="roles/secretmanager.secretAccessor", member=c.TRAINER)
    gcp.compute.Firewall("health-checks", network="id-vpc", direction="INGRESS", source_ranges=c.HEALTH_CHECKS,
                         allows=[{"protocol": "tcp", "ports": ["8080"]}], target_tags=["acme-nodes"])
    gcp.compute.SSLPolicy("tls", name="acme-tls12", min_tls_version="TLS_1_2", profile="CUSTOM",
                          custom_features=["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"])
    gcp.compute.SecurityPolicy("armor", name="acme-inference", type="CLOUD_ARMOR", labels=c.LABELS,
                               rules=ARMOR_RULES)
    gcp.compute.BackendService("backend", load_balancing_scheme="EXTERNAL_MANAGED", security_policy="id-armor",
                               protocol="HTTP")
    gcp.compute.GlobalAddress("address", name="acme-inference", labels=c.LABELS)
    gcp.compute.Address("nat", name="acme-nat", region="us-central1", labels=c.LABELS)


@pytest.fixture(scope="module")
def hardened() -> dict[str, Resource]:
    return _record(_hardened)


def _paths(value: Any, prefix: str = "") -> set[str]:
    if isinstance(value, Mapping):
        found = {prefix} if prefix else set()
        for key, item in value.items():
            found |= _paths(item, f"{prefix}.{key}" if prefix else str(key))
        return found
    if isinstance(value, list):
        return {prefix} | {p for item in value for p in _paths(item, f"{prefix}[]")}
    return {prefix}


def _fixtures() -> dict[str, Resource]:
    """One fixture per shape the GCP cases build, named as in `_hardened`."""
    return {
        "gke": c.gke_cluster(masterAuth={"clientCertificateConfig": {"issueClientCertificate": False}}),
        "cpu": c.node_pool("cpu", networkConfig={"enablePrivateNodes": True}),
        "train-v5p": c.tpu_pool("train-v5p", "ct5p-hightpu-4t", "2x2x4", count=4),
        "train-v6e": c.tpu_pool("train-v6e", "ct6e-standard-4t", "4x4", initialNodeCount=0,
                                autoscaling={"minNodeCount": 0, "maxNodeCount": 4}),
        "data": c.gcs_bucket("data", "checkpoints"),
        "read": c.member(t.GCP_BUCKET_IAM_MEMBER, "read", "roles/storage.objectViewer", c.TRAINER, bucket="acme-data",
                         condition=c.prefix_condition("acme-data", "corpora/")),
        "write": c.binding(t.GCP_BUCKET_IAM_BINDING, "write", "roles/storage.objectUser", c.TRAINER,
                           bucket="acme-data", condition=c.prefix_condition("acme-data", "pretrain/")),
        "policy": c.policy(t.GCP_BUCKET_IAM_POLICY, "policy", {"role": "roles/storage.objectViewer"},
                           bucket="acme-data"),
        "nodes": c.member(t.GCP_PROJECT_IAM_MEMBER, "nodes", "roles/container.defaultNodeServiceAccount", c.NODES,
                          project=c.PROJECT),
        "nodes-sa": GCP_CASES["AP-GIAM-004"].passing[0],
        "wi": GCP_CASES["AP-GIAM-002"].passing[0],
        "key": c.crypto_key(),
        "gcs-agent": GCP_CASES["AP-GKMS-002"].passing[0],
        "hf-token": c.secret("hf-token"),
        "wandb": GCP_CASES["AP-GSM-001"].passing[1],
        "hf-pretrain": GCP_CASES["AP-GSM-002"].passing[0],
        "health-checks": GCP_CASES["AP-GNET-002"].passing[0],
        "tls": GCP_CASES["AP-GLB-001"].passing[1],
        "armor": c.armor(),
        "backend": GCP_CASES["AP-GLB-004"].passing[0],
        "address": GCP_CASES["AP-GTAG-001"].passing[5],
        "nat": c.res(t.GCP_ADDRESS, "nat", {"labels": c.LABELS}),
    }


def test_fixture_shapes_are_what_pulumi_gcp_sends(hardened: dict[str, Resource]) -> None:
    for name, fixture in _fixtures().items():
        recorded = hardened[name]
        assert recorded.type == fixture.type, name
        missing = _paths(fixture.props) - _paths(recorded.props)
        assert not missing, f"{name}: fixture keys pulumi_gcp does not send: {sorted(missing)}"


def test_the_hardened_shapes_pass_every_gcp_rule(hardened: dict[str, Resource]) -> None:
    graph = ReferenceGraph(list(hardened.values()), environment="prod")
    for rule in GCP_RULES:
        findings, skipped = run_rule(rule, graph)
        assert [f.message for f in findings] == [], rule.id
        assert skipped == 0, rule.id


def _weakened() -> None:
    gcp.container.NodePool("default-sa", cluster="id-gke", node_count=1, node_config={
        **NODE_CONFIG, "service_account": c.DEFAULT_SA, "workload_metadata_config": {"mode": "GCE_METADATA"},
        "metadata": {"startup-script": "true"}, "shielded_instance_config": {"enable_secure_boot": False}})
    gcp.container.NodePool("slice", cluster="id-gke", node_count=2, node_locations=["us-east5-a"],
                           node_config={**NODE_CONFIG, "machine_type": "ct5lp-hightpu-4t"},
                           placement_policy={"type": "COMPACT", "tpu_topology": "4x4"})
    gcp.storage.Bucket("open", location="US", force_destroy=True, public_access_prevention="inherited")
    gcp.storage.BucketIAMMember("public", bucket="acme-data", role="roles/storage.objectViewer", member="allUsers")
    gcp.projects.IAMBinding("editors", project=c.PROJECT, role="roles/editor",
                            members=[c.principal_set("namespace/training")])
    gcp.serviceaccount.Key("ci-key", service_account_id="id-ci")
    gcp.kms.CryptoKey("slow", key_ring="id-ring", rotation_period="31536000s")
    gcp.secretmanager.Secret("plain", secret_id="plain", replication={"auto": {}})
    gcp.compute.Firewall("ssh", network="id-vpc", allows=[{"protocol": "tcp", "ports": ["22"]}])
    gcp.compute.SSLPolicy("old", name="old")
    gcp.compute.SecurityPolicy("allow-all", name="allow-all", rules=[
        {**ARMOR_RULES[1], "action": "allow"}])


EXPECTED = {
    "AP-GKE-008": {"default-sa"}, "AP-GKE-009": {"default-sa"}, "AP-GKE-007": {"default-sa"},
    "AP-GKE-006": {"default-sa"}, "AP-TPU-002": {"slice"}, "AP-GCS-001": {"open"}, "AP-GCS-002": {"open"},
    "AP-GCS-003": {"open"}, "AP-GCS-005": {"open"}, "AP-GCS-006": {"public"}, "AP-GIAM-001": {"editors"},
    "AP-GIAM-003": {"editors"}, "AP-GIAM-005": {"editors"}, "AP-GIAM-004": {"ci-key"}, "AP-GKMS-001": {"slow"},
    "AP-GSM-001": {"plain"}, "AP-GNET-001": {"ssh"}, "AP-GNET-002": {"ssh"}, "AP-GLB-001": {"old"},
    "AP-GLB-002": {"allow-all"}, "AP-GTAG-001": {"open", "slow", "plain", "allow-all"},
}


def test_weakened_shapes_trip_the_rules_that_guard_them() -> None:
    graph = ReferenceGraph(list(_record(_weakened).values()), environment="prod")
    for rule in GCP_RULES:
        findings, _ = run_rule(rule, graph)
        assert {f.name for f in findings} == EXPECTED.get(rule.id, set()), (rule.id, [f.message for f in findings])
