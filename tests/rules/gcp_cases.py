"""Pass and fail fixtures for the Google Cloud rules, in the wire format pulumi-gcp 10.x sends
(camelCase inputs, nested objects as dicts; tests/rules/test_gcp_wire_format.py builds the same
shapes with pulumi_gcp itself under mocks and checks the keys agree).

`tests/rules/all_cases.py` merges these with `cases.CASES` for the meta-tests.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules import types as neutral
from accelplane.rules.view import Resource
from tests.rules.cases import Case
from tests.rules.cases import res as _res

PROJECT = "acme-ml-prod"
NUMBER = "123456789012"
POOL = f"{PROJECT}.svc.id.goog"
LABELS = {"owner": "ml-platform", "cost-centre": "cc-1", "accelplane-platform": "acme", "accelplane-environment": "dev"}
PROD_LABELS = {**LABELS, "accelplane-environment": "prod"}
KEY = f"projects/{PROJECT}/locations/us-central1/keyRings/acme/cryptoKeys/storage"
NODE_SA = f"acme-nodes@{PROJECT}.iam.gserviceaccount.com"
DEFAULT_SA = f"{NUMBER}-compute@developer.gserviceaccount.com"


def _clean(value: Any) -> Any:
    """Inputs as the engine sends them: a `None` (an input left out) is no key at all."""
    if isinstance(value, Mapping):
        return {k: _clean(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def res(type_token: str, name: str, props: Mapping[str, Any] | None = None, **options: Any) -> Resource:
    return _res(type_token, name, _clean(props or {}), **options)


def principal(namespace: str = "training", ksa: str = "pretrain") -> str:
    """A GKE Workload Identity principal: one Kubernetes service account."""
    return (f"principal://iam.googleapis.com/projects/{NUMBER}/locations/global/workloadIdentityPools/{POOL}"
            f"/subject/ns/{namespace}/sa/{ksa}")


def principal_set(rest: str) -> str:
    return f"principalSet://iam.googleapis.com/projects/{NUMBER}/locations/global/workloadIdentityPools/{POOL}/{rest}"


TRAINER = principal()
NODES = f"serviceAccount:{NODE_SA}"


def member(type_token: str, name: str, role: str, who: str, **props: Any) -> Resource:
    return res(type_token, name, {"role": role, "member": who, **props})


def binding(type_token: str, name: str, role: str, *who: str, **props: Any) -> Resource:
    return res(type_token, name, {"role": role, "members": list(who), **props})


def policy(type_token: str, name: str, *bindings: Mapping[str, Any], **props: Any) -> Resource:
    return res(type_token, name, {"policyData": json.dumps({"bindings": list(bindings)}), **props})


def prefix_condition(bucket: str, prefix: str) -> dict[str, str]:
    return {"title": f"prefix {prefix}",
            "expression": f'resource.name.startsWith("projects/_/buckets/{bucket}/objects/{prefix}")'}


def gcs_bucket(name: str, role: str = "datasets", labels: Mapping[str, str] = LABELS, **props: Any) -> Resource:
    """A bucket as the GCP layer declares it: UBLA, PAP enforced, CMEK, versioning, labels with its role."""
    return res(t.GCS_BUCKET, name, {
        "name": f"acme-{name}", "location": "US-CENTRAL1", "project": PROJECT, "uniformBucketLevelAccess": True,
        "publicAccessPrevention": "enforced", "encryption": {"defaultKmsKeyName": KEY}, "versioning": {"enabled": True},
        "forceDestroy": False, "labels": {**labels, "bucket-role": role}, **props})


def crypto_key(name: str = "key", **props: Any) -> Resource:
    return res(t.GCP_KMS_CRYPTO_KEY, name, {"keyRing": f"projects/{PROJECT}/locations/us-central1/keyRings/acme",
                                             "rotationPeriod": "7776000s", "purpose": "ENCRYPT_DECRYPT",
                                             "labels": LABELS, **props})


def secret(name: str = "hf-token", replication: Mapping[str, Any] | None = None, **props: Any) -> Resource:
    return res(t.GCP_SECRET, name, {"secretId": f"acme-{name}", "project": PROJECT, "labels": LABELS, "replication":
                                    dict(replication or {"auto": {"customerManagedEncryption": {"kmsKeyName": KEY}}}),
                                    **props})


NODE_CONFIG: dict[str, Any] = {
    "machineType": "n2-standard-8", "serviceAccount": NODE_SA,
    "oauthScopes": ["https://www.googleapis.com/auth/cloud-platform"],
    "shieldedInstanceConfig": {"enableSecureBoot": True, "enableIntegrityMonitoring": True},
    "workloadMetadataConfig": {"mode": "GKE_METADATA"},
    "metadata": {"disable-legacy-endpoints": "true"},
}


def node_pool(name: str, node_config: Mapping[str, Any] | None = None, **props: Any) -> Resource:
    """A separately managed node pool; `node_config` entries replace the hardened defaults'."""
    return res(t.GKE_NODE_POOL, name, {"cluster": "id-gke", "location": "us-central1", "nodeCount": 1,
                                       "nodeConfig": {**NODE_CONFIG, **(node_config or {})}, **props})


def tpu_pool(name: str, machine: str, topology: str | None, *, count: int | None = None,
             placement: str | None = "COMPACT", **props: Any) -> Resource:
    """A TPU node pool in one zone; `topology` None leaves tpuTopology out, `placement` None the policy."""
    placement_policy: dict[str, Any] = {}
    if placement is not None:
        placement_policy["type"] = placement
    if topology is not None:
        placement_policy["tpuTopology"] = topology
    extra: dict[str, Any] = {"placementPolicy": placement_policy or None, "nodeCount": count,
                             "nodeLocations": ["us-east5-a"]}
    return node_pool(name, {"machineType": machine}, **{**extra, **props})


def gke_cluster(name: str = "gke", **props: Any) -> Resource:
    """A cluster as the GCP layer declares it: private nodes, authorized networks, Workload Identity,
    secrets encryption, control-plane logs, its default pool removed (pools are managed separately)."""
    return res(t.GKE_CLUSTER, name, {
        "name": "acme", "location": "us-central1", "project": PROJECT, "network": "id-vpc",
        "subnetwork": "id-nodes", "removeDefaultNodePool": True, "initialNodeCount": 1, "deletionProtection": True,
        "privateClusterConfig": {"enablePrivateNodes": True, "enablePrivateEndpoint": False,
                                 "masterIpv4CidrBlock": "172.16.0.0/28"},
        "masterAuthorizedNetworksConfig": {"cidrBlocks": [{"cidrBlock": "198.51.100.0/24", "displayName": "office"}]},
        "workloadIdentityConfig": {"workloadPool": POOL},
        "databaseEncryption": {"state": "ENCRYPTED", "keyName": KEY},
        "loggingConfig": {"enableComponents": ["SYSTEM_COMPONENTS", "APISERVER", "CONTROLLER_MANAGER", "SCHEDULER",
                                               "WORKLOADS"]},
        "enableShieldedNodes": True, "resourceLabels": LABELS, **props})


def firewall(name: str, *allows: Mapping[str, Any], **props: Any) -> Resource:
    return res(t.GCP_FIREWALL, name, {"network": "id-vpc", "direction": "INGRESS", "allows": list(allows),
                                      "targetTags": ["acme-nodes"], **props})


HEALTH_CHECKS = ["130.211.0.0/22", "35.191.0.0/16"]
DEFAULT_DENY = {"action": "deny(403)", "priority": 2147483647, "description": "default deny",
                "match": {"versionedExpr": "SRC_IPS_V1", "config": {"srcIpRanges": ["*"]}}}


def allow_rule(priority: int, *ranges: str) -> dict[str, Any]:
    return {"action": "allow", "priority": priority,
            "match": {"versionedExpr": "SRC_IPS_V1", "config": {"srcIpRanges": list(ranges)}}}


def armor(name: str = "armor", *rules: Mapping[str, Any]) -> Resource:
    return res(t.GCP_SECURITY_POLICY, name, {"name": "acme-inference", "type": "CLOUD_ARMOR", "labels": LABELS,
                                             "rules": list(rules or [allow_rule(1000, "198.51.100.0/24"),
                                                                     DEFAULT_DENY])})


def k8s(type_token: str, name: str, namespace: str, spec: Mapping[str, Any]) -> Resource:
    api, kind = type_token.removeprefix("kubernetes:").rsplit(":", 1)
    return res(type_token, f"{namespace}-{name}-{kind.lower()}", {
        "apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": namespace}, "spec": dict(spec)})


def gateway(name: str = "inference", gateway_class: str = "gke-l7-global-external-managed") -> Resource:
    return k8s(neutral.K8S_GATEWAY, name, "inference", {
        "gatewayClassName": gateway_class,
        "listeners": [{"name": "https", "protocol": "HTTPS", "port": 443,
                       "tls": {"mode": "Terminate", "options": {"networking.gke.io/pre-shared-certs": "acme"}}}],
        "addresses": [{"type": "NamedAddress", "value": "acme-inference"}]})


def http_route(name: str, gateway_name: str, *services: str) -> Resource:
    return k8s(neutral.K8S_HTTP_ROUTE, name, "inference", {
        "parentRefs": [{"name": gateway_name}],
        "rules": [{"matches": [{"path": {"type": "PathPrefix", "value": "/"}}],
                   "backendRefs": [{"name": service, "port": 8080} for service in services]}]})


def backend_policy(service: str, security_policy: str = "acme-inference") -> Resource:
    return k8s(t.GKE_BACKEND_POLICY, service, "inference", {
        "default": {"securityPolicy": security_policy}, "targetRef": {"group": "", "kind": "Service", "name": service}})


def health_policy(service: str, path: str | None = "/healthz") -> Resource:
    probe = {"port": 8080, **({"requestPath": path} if path else {})}
    return k8s(t.GKE_HEALTH_CHECK_POLICY, service, "inference", {
        "default": {"config": {"type": "HTTP", "httpHealthCheck": probe}},
        "targetRef": {"group": "", "kind": "Service", "name": service}})


def gateway_policy(gateway_name: str, ssl_policy: str = "acme-tls12") -> Resource:
    return k8s(t.GKE_GATEWAY_POLICY, gateway_name, "inference", {
        "default": {"sslPolicy": ssl_policy},
        "targetRef": {"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": gateway_name}})


GCP_CASES: dict[str, Case] = {
    # ---------------------------------------------------------------- IAM
    "AP-GIAM-001": Case(
        also_trips=frozenset({"AP-GCS-008"}),
        passing=[member(t.GCP_PROJECT_IAM_MEMBER, "nodes-log", "roles/logging.logWriter", NODES, project=PROJECT),
                 member(t.GCP_BUCKET_IAM_MEMBER, "read", "roles/storage.objectViewer", TRAINER, bucket="acme-data")],
        failing=[binding(t.GCP_PROJECT_IAM_BINDING, "editors", "roles/editor", "group:ml@example.com",
                         project=PROJECT),
                 policy(t.GCP_BUCKET_IAM_POLICY, "bucket-policy",
                        {"role": "roles/storage.objectViewer", "members": [TRAINER]},
                        {"role": "roles/owner", "members": ["user:admin@example.com"]}, bucket="acme-data")],
        expect="basic role roles/", target="editors", also=("bucket-policy",)),
    "AP-GIAM-002": Case(
        passing=[member(t.GCP_SERVICE_ACCOUNT_IAM_MEMBER, "wi", "roles/iam.workloadIdentityUser",
                        f"serviceAccount:{POOL}[training/pretrain]",
                        serviceAccountId=f"projects/{PROJECT}/serviceAccounts/{NODE_SA}")],
        failing=[member(t.GCP_REPOSITORY_IAM_MEMBER, "pull", "roles/artifactregistry.reader", "allUsers",
                        location="us", repository="images"),
                 member(t.GCP_PROJECT_IAM_MEMBER, "anyone", "roles/logging.viewer", "principalSet://goog/public:all",
                        project=PROJECT)],
        expect="anyone can use it", target="pull", also=("anyone",)),
    "AP-GIAM-003": Case(
        passing=[member(t.GCP_PROJECT_IAM_MEMBER, "nodes", "roles/container.defaultNodeServiceAccount", NODES,
                        project=PROJECT),
                 member(t.GCP_PROJECT_IAM_MEMBER, "nodes-metrics", "roles/monitoring.metricWriter", NODES,
                        project=PROJECT),
                 member(t.GCP_PROJECT_IAM_MEMBER, "oncall", "roles/container.viewer", "group:oncall@example.com",
                        project=PROJECT)],
        failing=[member(t.GCP_PROJECT_IAM_MEMBER, "trainer", "roles/storage.objectViewer", TRAINER, project=PROJECT),
                 member(t.GCP_PROJECT_IAM_MEMBER, "nodes-storage", "roles/storage.objectViewer", NODES,
                        project=PROJECT)],
        expect="on the project level", target="trainer", also=("nodes-storage",)),
    "AP-GIAM-004": Case(
        passing=[res(t.GCP_SERVICE_ACCOUNT, "nodes", {"accountId": "acme-nodes", "project": PROJECT})],
        failing=[res(t.GCP_SERVICE_ACCOUNT, "ci", {"accountId": "acme-ci", "project": PROJECT}),
                 res(t.GCP_SERVICE_ACCOUNT_KEY, "ci-key", {"serviceAccountId": "id-ci"})],
        expect="service-account key", target="ci-key"),
    "AP-GIAM-005": Case(
        also_trips=frozenset({"AP-GSM-002"}),
        passing=[member(t.GCP_BUCKET_IAM_MEMBER, "read", "roles/storage.objectViewer", TRAINER, bucket="acme-data",
                        condition=prefix_condition("acme-data", "corpora/")),
                 member(t.GCP_SERVICE_ACCOUNT_IAM_MEMBER, "wi", "roles/iam.workloadIdentityUser",
                        f"serviceAccount:{POOL}[training/pretrain]", serviceAccountId="id-sa")],
        failing=[member(t.GCP_SECRET_IAM_MEMBER, "ns-wide", "roles/secretmanager.secretAccessor",
                        principal_set("namespace/training"), secretId="id-hf-token"),
                 member(t.GCP_SERVICE_ACCOUNT_IAM_MEMBER, "wi", "roles/iam.workloadIdentityUser",
                        f"serviceAccount:{POOL}[training/*]", serviceAccountId="id-sa"),
                 member(t.GCP_BUCKET_IAM_MEMBER, "read", "roles/storage.objectViewer",
                        principal(ksa="*"), bucket="acme-data", condition=prefix_condition("acme-data", "corpora/"))],
        expect="principal set 'namespace/training'", target="ns-wide", also=("wi", "read")),
    # ---------------------------------------------------------------- Storage
    "AP-GCS-001": Case(
        passing=[gcs_bucket("data")], failing=[gcs_bucket("data", uniformBucketLevelAccess=False)],
        expect="uniformBucketLevelAccess is off", target="data"),
    "AP-GCS-002": Case(
        passing=[gcs_bucket("data")], failing=[gcs_bucket("data", publicAccessPrevention="inherited")],
        expect="publicAccessPrevention is inherited", target="data"),
    "AP-GCS-003": Case(
        passing=[gcs_bucket("data")], failing=[gcs_bucket("data", encryption=None)],
        expect="Google-managed key", target="data"),
    "AP-GCS-004": Case(
        passing=[gcs_bucket("ck", "checkpoints"), gcs_bucket("logs", "logs", versioning=None)],
        failing=[gcs_bucket("ck", "checkpoints", versioning={"enabled": False})],
        expect="checkpoint bucket without versioning", target="ck"),
    "AP-GCS-005": Case(
        passing=[gcs_bucket("data", labels=PROD_LABELS)],
        failing=[gcs_bucket("data", labels=PROD_LABELS, forceDestroy=True)], expect="forceDestroy", target="data",
        environment="prod"),
    "AP-GCS-006": Case(
        passing=[member(t.GCP_BUCKET_IAM_MEMBER, "read", "roles/storage.objectViewer", TRAINER, bucket="acme-data",
                        condition=prefix_condition("acme-data", "corpora/"))],
        failing=[member(t.GCP_BUCKET_IAM_MEMBER, "public", "roles/storage.objectViewer", "allUsers",
                        bucket="acme-data"),
                 binding(t.GCP_MANAGED_FOLDER_IAM_BINDING, "folder", "roles/storage.objectViewer",
                         "allAuthenticatedUsers", bucket="acme-data", managedFolder="released/")],
        expect="anyone can use it", target="public", also=("folder",)),
    "AP-GCS-007": Case(
        passing=[member(t.GCP_BUCKET_IAM_MEMBER, "read", "roles/storage.objectViewer", TRAINER, bucket="acme-data",
                        condition=prefix_condition("acme-data", "corpora/")),
                 # Objects under the prefix, and listing with that prefix only (what the GCP layer writes).
                 member(t.GCP_BUCKET_IAM_MEMBER, "list", "roles/storage.objectViewer", TRAINER, bucket="acme-data",
                        condition={"title": "prefix corpora/", "expression":
                                   'resource.name.startsWith("projects/_/buckets/acme-data/objects/corpora/") || '
                                   'api.getAttribute("storage.googleapis.com/objectListPrefix", "")'
                                   '.startsWith("corpora/")'}),
                 # Humans are not workloads.
                 member(t.GCP_BUCKET_IAM_MEMBER, "admins", "roles/storage.admin", "group:data@example.com",
                        bucket="acme-data", condition={"title": "t", "expression": "request.time < "
                                                       'timestamp("2030-01-01T00:00:00Z")'})],
        failing=[member(t.GCP_BUCKET_IAM_MEMBER, "empty", "roles/storage.objectUser", TRAINER, bucket="acme-data",
                        condition=prefix_condition("acme-data", "")),
                 binding(t.GCP_BUCKET_IAM_BINDING, "other-bucket", "roles/storage.objectViewer", NODES,
                         bucket="acme-data", condition=prefix_condition("acme-logs", "pretrain/")),
                 member(t.GCP_BUCKET_IAM_MEMBER, "lists-all", "roles/storage.objectViewer", TRAINER,
                        bucket="acme-data", condition={"title": "x", "expression":
                                                       'resource.name.startsWith("projects/_/buckets/acme-data/'
                                                       'objects/corpora/") || resource.type == '
                                                       '"storage.googleapis.com/Bucket"'}),
                 member(t.GCP_BUCKET_IAM_MEMBER, "timed", "roles/storage.objectViewer", TRAINER, bucket="acme-data",
                        condition={"title": "t", "expression": 'request.time < timestamp("2030-01-01T00:00:00Z")'})],
        expect="covers every object of the bucket", target="empty", also=("other-bucket", "lists-all", "timed")),
    "AP-GCS-008": Case(
        passing=[member(t.GCP_BUCKET_IAM_MEMBER, "read", "roles/storage.objectViewer", TRAINER, bucket="acme-data",
                        condition=prefix_condition("acme-data", "corpora/")),
                 member(t.GCP_BUCKET_IAM_MEMBER, "admins", "roles/storage.admin", "group:data@example.com",
                        bucket="acme-data")],
        failing=[member(t.GCP_BUCKET_IAM_MEMBER, "whole", "roles/storage.objectUser", TRAINER, bucket="acme-data"),
                 policy(t.GCP_BUCKET_IAM_POLICY, "policy", {"role": "roles/storage.objectViewer", "members": [NODES]},
                        bucket="acme-data")],
        expect="covers every object of the bucket", target="whole", also=("policy",)),
    # ---------------------------------------------------------------- Secrets and keys
    "AP-GKMS-001": Case(
        passing=[crypto_key("key"), crypto_key("weekly", rotationPeriod="604800s"),
                 crypto_key("signing", purpose="ASYMMETRIC_SIGN", rotationPeriod=None,
                            versionTemplate={"algorithm": "EC_SIGN_P256_SHA256"})],
        failing=[crypto_key("key", rotationPeriod=None), crypto_key("yearly", rotationPeriod="31536000s")],
        expect="never rotates", target="key", also=("yearly",)),
    "AP-GKMS-002": Case(
        passing=[member(t.GCP_CRYPTO_KEY_IAM_MEMBER, "gcs-agent", "roles/cloudkms.cryptoKeyEncrypterDecrypter",
                        f"serviceAccount:service-{NUMBER}@gs-project-accounts.iam.gserviceaccount.com",
                        cryptoKeyId="id-key")],
        failing=[binding(t.GCP_CRYPTO_KEY_IAM_BINDING, "everyone", "roles/cloudkms.cryptoKeyDecrypter",
                         "allAuthenticatedUsers", cryptoKeyId="id-key")],
        expect="allAuthenticatedUsers", target="everyone"),
    "AP-GSM-001": Case(
        passing=[secret("hf-token"),
                 secret("wandb", {"userManaged": {"replicas": [
                     {"location": "us-central1", "customerManagedEncryption": {"kmsKeyName": KEY}}]}})],
        failing=[secret("hf-token", {"auto": {}}),
                 secret("wandb", {"userManaged": {"replicas": [
                     {"location": "us-central1", "customerManagedEncryption": {"kmsKeyName": KEY}},
                     {"location": "us-east1"}]}})],
        expect="Google-managed key", target="hf-token", also=("wandb",)),
    "AP-GSM-002": Case(
        passing=[member(t.GCP_SECRET_IAM_MEMBER, "hf-pretrain", "roles/secretmanager.secretAccessor", TRAINER,
                        secretId="id-hf-token", project=PROJECT)],
        failing=[member(t.GCP_SECRET_IAM_MEMBER, "hf-all", "roles/secretmanager.secretAccessor", "allUsers",
                        secretId="id-hf-token"),
                 member(t.GCP_SECRET_IAM_MEMBER, "hf-group", "roles/secretmanager.secretAccessor",
                        "group:ml@example.com", secretId="id-hf-token"),
                 member(t.GCP_SECRET_IAM_MEMBER, "hf-admin", "roles/secretmanager.admin", TRAINER,
                        secretId="id-hf-token")],
        expect="anyone can read the secret", target="hf-all", also=("hf-group", "hf-admin")),
    # ---------------------------------------------------------------- Network
    "AP-GNET-001": Case(
        also_trips=frozenset({"AP-GNET-002"}),
        passing=[firewall("iap-ssh", {"protocol": "tcp", "ports": ["22"]}, sourceRanges=["35.235.240.0/20"]),
                 firewall("deny-all", sourceRanges=["0.0.0.0/0"], denies=[{"protocol": "all"}])],
        failing=[firewall("admin", {"protocol": "tcp", "ports": ["20-25", "3389"]}, sourceRanges=["0.0.0.0/0"]),
                 firewall("no-source", {"protocol": "all"})],
        expect="SSH (22) open to the internet", target="admin", also=("no-source",)),
    "AP-GNET-002": Case(
        passing=[firewall("health-checks", {"protocol": "tcp", "ports": ["8080"]}, sourceRanges=HEALTH_CHECKS),
                 firewall("egress", {"protocol": "tcp", "ports": ["443"]}, direction="EGRESS",
                          destinationRanges=["0.0.0.0/0"]),
                 firewall("off", {"protocol": "all"}, sourceRanges=["0.0.0.0/0"], disabled=True)],
        failing=[firewall("world", {"protocol": "udp"}, sourceRanges=["10.0.0.0/8", "::/0"]),
                 firewall("https", {"protocol": "tcp", "ports": ["443"]}, sourceRanges=["0.0.0.0/0"])],
        expect="udp (every port) open to the internet", target="world", also=("https",)),
    # ---------------------------------------------------------------- Compute: TPU slices
    "AP-TPU-001": Case(
        passing=[tpu_pool("train-v5p", "ct5p-hightpu-4t", "2x2x4", count=4),
                 tpu_pool("serve-v6e", "ct6e-standard-8t", "2x4", count=2, placement=None),
                 node_pool("cpu")],
        failing=[tpu_pool("train-v5p", "ct5p-hightpu-4t", "2x2x4", count=4, placement=None),
                 tpu_pool("train-v6e", "ct6e-standard-4t", None, count=4)],
        expect="not COMPACT", target="train-v5p", also=("train-v6e",)),
    "AP-TPU-002": Case(
        passing=[tpu_pool("train-v5p", "ct5p-hightpu-4t", "2x2x4", count=4),
                 tpu_pool("train-v6e", "ct6e-standard-4t", "4x4", autoscaling={"minNodeCount": 0, "maxNodeCount": 4},
                          initialNodeCount=0),
                 tpu_pool("serve-v5e", "ct5lp-hightpu-4t", "2x2", count=3, placement=None),
                 tpu_pool("zonal", "ct5p-hightpu-4t", "2x2x2", count=2, location="us-east5-a", nodeLocations=None)],
        failing=[tpu_pool("train-v5p", "ct5p-hightpu-4t", "2x2x4", count=8),
                 tpu_pool("train-v6e", "ct6e-standard-4t", "4x4", autoscaling={"minNodeCount": 1, "maxNodeCount": 8}),
                 tpu_pool("train-v4", "ct4p-hightpu-4t", "2x2x2", count=2,
                          nodeLocations=["us-central2-b", "us-central2-c"]),
                 tpu_pool("regional", "ct4p-hightpu-4t", "2x2x2", count=2, nodeLocations=None)],
        expect="is 4 VMs of ct5p-hightpu-4t, but nodeCount is 8", target="train-v5p",
        also=("train-v6e", "train-v4", "regional")),
    "AP-TPU-003": Case(
        passing=[tpu_pool("train-v5e", "ct5lp-hightpu-4t", "4x4", count=4),
                 tpu_pool("serve-v6e", "ct6e-standard-8t", "2x4", count=1, placement=None),
                 tpu_pool("train-v5p", "ct5p-hightpu-4t", "2x2x2", count=2)],
        failing=[tpu_pool("serve-v6e", "ct6e-standard-8t", "4x4", count=2),
                 tpu_pool("train-v5p", "ct5p-hightpu-4t", "4x4", count=4),
                 tpu_pool("tiny-v5e", "ct5lp-hightpu-8t", "2x2", count=1, placement=None)],
        expect="single-host machine type ct6e-standard-8t declares the multi-host topology 4x4", target="serve-v6e",
        also=("train-v5p", "tiny-v5e")),
    # ---------------------------------------------------------------- Cluster: GKE
    "AP-GKE-001": Case(
        passing=[gke_cluster(), node_pool("private", networkConfig={"enablePrivateNodes": True})],
        failing=[gke_cluster(privateClusterConfig={"enablePrivateNodes": False}),
                 node_pool("public", networkConfig={"enablePrivateNodes": False})],
        expect="nodes get public IP addresses", target="gke", also=("public",)),
    "AP-GKE-002": Case(
        passing=[gke_cluster(),
                 gke_cluster("private", masterAuthorizedNetworksConfig=None,
                             privateClusterConfig={"enablePrivateNodes": True, "enablePrivateEndpoint": True})],
        failing=[gke_cluster(masterAuthorizedNetworksConfig={"cidrBlocks": [{"cidrBlock": "0.0.0.0/0"}]}),
                 gke_cluster("open", masterAuthorizedNetworksConfig=None),
                 gke_cluster("gcp-wide", masterAuthorizedNetworksConfig={"gcpPublicCidrsAccessEnabled": True,
                                                                         "cidrBlocks": [{"cidrBlock": "10.0.0.0/8"}]})],
        expect="allows 0.0.0.0/0", target="gke", also=("open", "gcp-wide")),
    "AP-GKE-003": Case(
        passing=[gke_cluster()],
        failing=[gke_cluster(workloadIdentityConfig=None),
                 gke_cluster("foreign", workloadIdentityConfig={"workloadPool": "other-project.svc.id.goog"})],
        expect="Workload Identity is off", target="gke", also=("foreign",)),
    "AP-GKE-004": Case(
        passing=[gke_cluster()],
        failing=[gke_cluster(databaseEncryption={"state": "DECRYPTED"})], expect="not envelope-encrypted",
        target="gke"),
    "AP-GKE-005": Case(
        passing=[gke_cluster()],
        failing=[gke_cluster(loggingConfig={"enableComponents": ["SYSTEM_COMPONENTS", "WORKLOADS"]})],
        expect="APISERVER, CONTROLLER_MANAGER, SCHEDULER", target="gke"),
    "AP-GKE-006": Case(
        passing=[gke_cluster(), node_pool("cpu")],
        failing=[gke_cluster(), node_pool("cpu", {"shieldedInstanceConfig": {"enableIntegrityMonitoring": True}}),
                 gke_cluster("unshielded", enableShieldedNodes=False)],
        expect="enableSecureBoot is not true", target="cpu", also=("unshielded",)),
    "AP-GKE-007": Case(
        passing=[node_pool("cpu"), node_pool("bare", {"metadata": None})],
        failing=[node_pool("cpu", {"metadata": {"startup-script": "echo hi"}}),
                 node_pool("legacy", {"metadata": {"disable-legacy-endpoints": "false"}})],
        expect="without disable-legacy-endpoints", target="cpu", also=("legacy",)),
    "AP-GKE-008": Case(
        also_trips=frozenset({"AP-GKE-006", "AP-GKE-009"}),
        passing=[gke_cluster(), node_pool("cpu")],
        failing=[node_pool("cpu", {"serviceAccount": DEFAULT_SA}),
                 node_pool("unset", {"serviceAccount": None}),
                 gke_cluster("kept-default-pool", removeDefaultNodePool=False)],
        expect="Compute Engine default service account", target="cpu", also=("unset", "kept-default-pool")),
    "AP-GKE-009": Case(
        passing=[gke_cluster(), node_pool("cpu")],
        failing=[node_pool("cpu", {"workloadMetadataConfig": {"mode": "GCE_METADATA"}})],
        expect="GCE_METADATA, not GKE_METADATA", target="cpu"),
    "AP-GKE-010": Case(
        passing=[gke_cluster(masterAuth={"clientCertificateConfig": {"issueClientCertificate": False}})],
        failing=[gke_cluster(enableLegacyAbac=True)], expect="enableLegacyAbac", target="gke"),
    # ---------------------------------------------------------------- Load balancer
    "AP-GLB-001": Case(
        passing=[res(t.GCP_SSL_POLICY, "tls", {"minTlsVersion": "TLS_1_2", "profile": "RESTRICTED"}),
                 res(t.GCP_SSL_POLICY, "custom", {"minTlsVersion": "TLS_1_2", "profile": "CUSTOM", "customFeatures": [
                     "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"]})],
        failing=[res(t.GCP_SSL_POLICY, "tls", {"profile": "MODERN"}),
                 res(t.GCP_SSL_POLICY, "custom", {"minTlsVersion": "TLS_1_2", "profile": "CUSTOM", "customFeatures": [
                     "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_RSA_WITH_AES_128_CBC_SHA"]})],
        expect="minTlsVersion is TLS_1_0", target="tls", also=("custom",)),
    "AP-GLB-002": Case(
        passing=[armor()],
        failing=[armor("armor", allow_rule(1000, "0.0.0.0/0"), DEFAULT_DENY),
                 armor("open", allow_rule(1000, "198.51.100.0/24"), {**DEFAULT_DENY, "action": "allow"})],
        expect="allows 0.0.0.0/0", target="armor", also=("open",)),
    "AP-GLB-003": Case(
        passing=[gateway(), http_route("serve", "inference", "serve"), backend_policy("serve"), armor(),
                 # An internal gateway needs no Cloud Armor.
                 gateway("internal", "gke-l7-rilb"), http_route("batch", "internal", "batch")],
        failing=[gateway(), http_route("serve", "inference", "serve", "canary"), backend_policy("serve"),
                 backend_policy("canary", ""), health_policy("serve"), health_policy("canary")],
        expect="inference/canary has no GCPBackendPolicy", target="inference-inference-gateway"),
    "AP-GLB-004": Case(
        passing=[res(t.GCP_BACKEND_SERVICE, "backend", {"loadBalancingScheme": "EXTERNAL_MANAGED",
                                                        "securityPolicy": "id-armor", "protocol": "HTTP"}),
                 res(t.GCP_BACKEND_SERVICE, "internal", {"loadBalancingScheme": "INTERNAL_MANAGED"})],
        failing=[res(t.GCP_BACKEND_SERVICE, "backend", {"protocol": "HTTP"})],
        expect="EXTERNAL backend service without a Cloud Armor securityPolicy", target="backend"),
    "AP-GLB-005": Case(
        passing=[gateway(), gateway_policy("inference"),
                 res(t.GCP_SSL_POLICY, "tls", {"name": "acme-tls12", "minTlsVersion": "TLS_1_2",
                                               "profile": "RESTRICTED"})],
        failing=[gateway(), gateway_policy("other-gateway")],
        expect="without a GCPGatewayPolicy sslPolicy", target="inference-inference-gateway"),
    # ---------------------------------------------------------------- Hygiene
    "AP-GTAG-001": Case(
        passing=[gcs_bucket("data"), gke_cluster(), crypto_key(), secret(), armor(),
                 res(t.GCP_GLOBAL_ADDRESS, "address", {"labels": LABELS}),
                 # A label the provider's defaultLabels add counts.
                 res(t.GCP_ADDRESS, "nat", {"labels": {k: v for k, v in LABELS.items() if k != "owner"},
                                            "effectiveLabels": LABELS})],
        failing=[gcs_bucket("data", labels={"owner": "ml-platform"}),
                 gke_cluster(resourceLabels={**LABELS, "accelplane-platform": ""})],
        expect="cost-centre, accelplane-platform, accelplane-environment", target="data", also=("gke",)),
}
