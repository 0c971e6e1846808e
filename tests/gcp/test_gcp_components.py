"""What each GCP component declares: the inputs that make the platform least-privilege and correct.

Every test reads the wire-format inputs recorded under GcpLikeMocks (what `pulumi up` would send)
for the scenario in gcp_scenario.py, and names the resource in its assertion messages.
"""

from __future__ import annotations

import inspect
import re

import pulumi_gcp.compute as compute
import pulumi_gcp.container as container
import pulumi_gcp.kms as kms
import pulumi_gcp.secretmanager as secretmanager
import pulumi_gcp.storage as storage
import pytest

from accelplane.clouds.gcp.components.network import GOOGLE_LOAD_BALANCER_RANGES
from accelplane.engine.graph import RecordedResource
from tests.gcp.gcp_harness import PROJECT, PROJECT_NUMBER, REGION, Run, run_components
from tests.gcp.gcp_scenario import (
    API_CIDRS,
    ENDPOINT_CIDRS,
    NODE_CIDR,
    PODS_CIDR,
    POOLS,
    RESERVATION,
    SERVICES_CIDR,
    TARGET_PORT,
    VERSION,
    platform_labels,
)

NODE_EMAIL = f"acme-ml-nodes@{PROJECT}.iam.gserviceaccount.com"
GKE_AGENT = f"serviceAccount:service-{PROJECT_NUMBER}@container-engine-robot.iam.gserviceaccount.com"
GCS_AGENT = f"serviceAccount:service-{PROJECT_NUMBER}@gs-project-accounts.iam.gserviceaccount.com"
SM_AGENT = f"serviceAccount:service-{PROJECT_NUMBER}@gcp-sa-secretmanager.iam.gserviceaccount.com"
PRIMITIVE_ROLES = {"roles/owner", "roles/editor", "roles/viewer"}
PUBLIC_MEMBERS = {"allUsers", "allAuthenticatedUsers"}


def _one(run: Run, token: str) -> RecordedResource:
    [resource] = run.of_type(token)
    return resource


def _key_id(name: str) -> str:
    return f"projects/{PROJECT}/locations/{REGION}/keyRings/acme-ml/cryptoKeys/{name}"


# ---- network -----------------------------------------------------------------------------------


def test_vpc_has_no_auto_subnets_and_one_private_node_subnet_with_pod_and_service_ranges(gcp_prod: Run) -> None:
    vpc = _one(gcp_prod, "gcp:compute/network:Network")
    assert vpc.inputs["autoCreateSubnetworks"] is False, vpc.name
    subnet = _one(gcp_prod, "gcp:compute/subnetwork:Subnetwork")
    inputs = subnet.inputs
    assert inputs["network"] == vpc.id and inputs["region"] == REGION, subnet.name
    assert inputs["ipCidrRange"] == NODE_CIDR
    assert inputs["privateIpGoogleAccess"] is True, "nodes without external IPs reach Google APIs privately"
    assert inputs["secondaryIpRanges"] == [
        {"rangeName": "pods", "ipCidrRange": PODS_CIDR},
        {"rangeName": "services", "ipCidrRange": SERVICES_CIDR},
    ]
    assert inputs["logConfig"] == {
        "aggregationInterval": "INTERVAL_5_SEC",
        "flowSampling": 0.5,
        "metadata": "INCLUDE_ALL_METADATA",
    }, "flow logs on"
    assert (gcp_prod.outputs["podsRange"], gcp_prod.outputs["servicesRange"]) == ("pods", "services")
    assert gcp_prod.outputs["subnetId"] == subnet.id


def test_nat_translates_only_the_node_subnet_and_logs_errors(gcp_prod: Run) -> None:
    router = _one(gcp_prod, "gcp:compute/router:Router")
    nat = _one(gcp_prod, "gcp:compute/routerNat:RouterNat")
    subnet = _one(gcp_prod, "gcp:compute/subnetwork:Subnetwork")
    assert nat.inputs["router"] == router.outputs["name"] and nat.inputs["region"] == REGION, nat.name
    assert nat.inputs["natIpAllocateOption"] == "AUTO_ONLY"
    assert nat.inputs["sourceSubnetworkIpRangesToNat"] == "LIST_OF_SUBNETWORKS"
    assert nat.inputs["subnetworks"] == [{"name": subnet.id, "sourceIpRangesToNats": ["ALL_IP_RANGES"]}]
    assert nat.inputs["logConfig"] == {"enable": True, "filter": "ERRORS_ONLY"}


def test_firewall_admits_only_google_load_balancers_to_the_target_port_of_the_nodes(gcp_prod: Run) -> None:
    rules = {r.name: r.inputs for r in gcp_prod.of_type("gcp:compute/firewall:Firewall")}
    assert set(rules) == {"acme-ml-net-allow-lb", "acme-ml-net-deny-ssh-rdp"}, "nothing else is opened"
    allow = rules["acme-ml-net-allow-lb"]
    assert allow["direction"] == "INGRESS"
    # Google's documented ranges (load-balancing/docs/health-check-concepts#ip-ranges).
    assert sorted(allow["sourceRanges"]) == ["130.211.0.0/22", "35.191.0.0/16"] == sorted(GOOGLE_LOAD_BALANCER_RANGES)
    assert allow["allows"] == [{"protocol": "tcp", "ports": [str(TARGET_PORT)]}]
    assert allow["targetServiceAccounts"] == [NODE_EMAIL], "only the nodes, never the whole VPC"
    for name, rule in rules.items():
        assert "0.0.0.0/0" not in rule.get("sourceRanges", []) or "allows" not in rule, f"{name} allows the world"
        for allowed in rule.get("allows", []):
            assert allowed["protocol"] != "all" and allowed.get("ports"), f"{name} allows every port"
            assert not {"22", "3389"} & set(allowed["ports"]), f"{name} allows SSH/RDP"


def test_ssh_and_rdp_are_denied_from_anywhere_ahead_of_allow_rules(gcp_prod: Run) -> None:
    deny = gcp_prod.named("acme-ml-net-deny-ssh-rdp").inputs
    assert deny["direction"] == "INGRESS" and deny["sourceRanges"] == ["0.0.0.0/0"]
    assert deny["denies"] == [{"protocol": "tcp", "ports": ["22", "3389"]}]
    assert deny["priority"] < 1000, "ahead of the default priority allow rules get"
    assert "targetServiceAccounts" not in deny and "targetTags" not in deny, "applies to every instance"
    assert deny["logConfig"] == {"metadata": "INCLUDE_ALL_METADATA"}


def test_no_endpoint_means_no_allow_rule_at_all() -> None:
    from accelplane.clouds.gcp.components.network import NetworkArgs, PlatformNetwork

    run = run_components(
        lambda: PlatformNetwork(
            "bare",
            NetworkArgs(REGION, NODE_CIDR, PODS_CIDR, SERVICES_CIDR, [], "nodes@p.iam.gserviceaccount.com"),
        )
        and None
    )
    assert [r.name for r in run.of_type("gcp:compute/firewall:Firewall")] == ["bare-deny-ssh-rdp"]


# ---- keys ----------------------------------------------------------------------------------------


def test_key_ring_is_retained_on_delete_and_protected_in_prod(gcp_run: tuple[str, Run]) -> None:
    env, run = gcp_run
    ring = _one(run, "gcp:kms/keyRing:KeyRing")
    assert ring.inputs == {"name": "acme-ml", "location": REGION}
    assert run.option(ring, "retainOnDelete") is True, "key rings cannot be deleted: say so"
    assert ring.protect is (env == "prod")
    assert run.outputs["keyRingId"] == f"projects/{PROJECT}/locations/{REGION}/keyRings/acme-ml"


@pytest.mark.parametrize(
    ("key", "member", "rotation"),
    [("gke", GKE_AGENT, "7776000s"), ("data", GCS_AGENT, "7776000s"), ("secrets", SM_AGENT, "2592000s")],
)
def test_each_key_rotates_and_only_its_service_agent_may_use_it(
    gcp_run: tuple[str, Run], key: str, member: str, rotation: str
) -> None:
    env, run = gcp_run
    crypto = run.named(f"acme-ml-{key}-key-key")
    assert crypto.id == _key_id(key)
    assert crypto.inputs["rotationPeriod"] == rotation, "90 days by default"
    assert crypto.inputs["purpose"] == "ENCRYPT_DECRYPT"
    template = crypto.inputs["versionTemplate"]
    assert template == {"algorithm": "GOOGLE_SYMMETRIC_ENCRYPTION", "protectionLevel": "SOFTWARE"}
    assert crypto.inputs["labels"] == platform_labels(env)
    assert crypto.protect is (env == "prod")
    [binding] = [b for b in run.of_type("gcp:kms/cryptoKeyIAMBinding:CryptoKeyIAMBinding") if b.parent == crypto.parent]
    assert binding.inputs == {
        "cryptoKeyId": crypto.id,
        "role": "roles/cloudkms.cryptoKeyEncrypterDecrypter",
        "members": [member],
    }, "authoritative for the role on this key: exactly the service agent"
    assert not run.of_type("gcp:kms/cryptoKeyIAMMember:CryptoKeyIAMMember")


# ---- cluster -------------------------------------------------------------------------------------


def test_cluster_is_private_with_authorized_networks_only(gcp_run: tuple[str, Run]) -> None:
    env, run = gcp_run
    cluster = _one(run, "gcp:container/cluster:Cluster").inputs
    public = env == "prod"
    assert cluster["privateClusterConfig"] == {"enablePrivateNodes": True, "enablePrivateEndpoint": not public}
    networks = cluster["masterAuthorizedNetworksConfig"]
    cidrs = [block["cidrBlock"] for block in networks.get("cidrBlocks", [])]
    assert cidrs == (API_CIDRS if public else [])
    assert "0.0.0.0/0" not in cidrs
    assert networks["gcpPublicCidrsAccessEnabled"] is False, "Google Cloud's own IPs are not admitted"
    assert networks["privateEndpointEnforcementEnabled"] is True
    assert cluster["controlPlaneEndpointsConfig"] == {"dnsEndpointConfig": {"allowExternalTraffic": False}}
    assert cluster["masterAuth"] == {"clientCertificateConfig": {"issueClientCertificate": False}}
    assert cluster["enableLegacyAbac"] is False


def test_cluster_identity_encryption_and_nodes(gcp_run: tuple[str, Run]) -> None:
    env, run = gcp_run
    resource = _one(run, "gcp:container/cluster:Cluster")
    cluster = resource.inputs
    assert cluster["name"] == "acme-ml" and cluster["location"] == REGION and cluster["project"] == PROJECT
    assert cluster["workloadIdentityConfig"] == {"workloadPool": f"{PROJECT}.svc.id.goog"}
    assert cluster["databaseEncryption"] == {"state": "ENCRYPTED", "keyName": _key_id("gke")}
    grant = run.named("acme-ml-gke-key-encrypter-decrypter")
    assert grant.urn in resource.dependencies, "the cluster waits for GKE's agent to hold the key"
    assert cluster["enableShieldedNodes"] is True
    assert cluster["datapathProvider"] == "ADVANCED_DATAPATH", "NetworkPolicies are enforced"
    assert cluster["gatewayApiConfig"] == {"channel": "CHANNEL_STANDARD"}
    assert cluster["removeDefaultNodePool"] is True and cluster["initialNodeCount"] == 1
    node = cluster["nodeConfig"]
    assert node["serviceAccount"] == NODE_EMAIL, "the default pool never runs as the Compute Engine default SA"
    assert node["workloadMetadataConfig"] == {"mode": "GKE_METADATA"}
    assert node["shieldedInstanceConfig"] == {"enableSecureBoot": True, "enableIntegrityMonitoring": True}
    assert run.option(resource, "ignoreChanges") == ["nodeConfig", "initialNodeCount"]
    assert cluster["deletionProtection"] is (env == "prod")
    assert cluster["resourceLabels"] == platform_labels(env)


def test_cluster_version_is_pinned_without_a_release_channel_and_logs_the_control_plane(gcp_prod: Run) -> None:
    cluster = _one(gcp_prod, "gcp:container/cluster:Cluster").inputs
    assert cluster["minMasterVersion"] == VERSION
    assert cluster["releaseChannel"] == {"channel": "UNSPECIFIED"}
    components = ["SYSTEM_COMPONENTS", "APISERVER", "CONTROLLER_MANAGER", "SCHEDULER"]
    assert cluster["loggingConfig"] == {"enableComponents": components}
    assert cluster["monitoringConfig"] == {"enableComponents": components, "managedPrometheus": {"enabled": True}}


def test_cluster_is_vpc_native_on_the_subnet_ranges(gcp_prod: Run) -> None:
    cluster = _one(gcp_prod, "gcp:container/cluster:Cluster").inputs
    assert cluster["network"] == _one(gcp_prod, "gcp:compute/network:Network").id
    assert cluster["subnetwork"] == _one(gcp_prod, "gcp:compute/subnetwork:Subnetwork").id
    assert cluster["networkingMode"] == "VPC_NATIVE"
    assert cluster["ipAllocationPolicy"] == {
        "clusterSecondaryRangeName": "pods",
        "servicesSecondaryRangeName": "services",
    }


def test_cluster_outputs_for_the_kubernetes_provider(gcp_prod: Run) -> None:
    outputs = gcp_prod.outputs
    assert outputs["clusterName"] == "acme-ml"
    assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+", outputs["endpoint"])
    assert outputs["caCertificate"].startswith("LS0tLS1CRUdJTi")  # base64 of "-----BEGIN"
    assert outputs["workloadPool"] == f"{PROJECT}.svc.id.goog"


def test_a_declared_release_channel_is_used() -> None:
    from accelplane.clouds.gcp.components.cluster import GkeCluster, GkeClusterArgs

    run = run_components(
        lambda: GkeCluster(
            "chan",
            GkeClusterArgs(
                cluster_name="chan", project=PROJECT, location=REGION, kubernetes_version="1.33",
                network_id="n", subnet_id="s", pods_range_name="pods", services_range_name="services",
                api_allowed_cidrs=[], secrets_key_id=_key_id("gke"), node_service_account_email=NODE_EMAIL,
                labels={}, deletion_protection=False, release_channel="STABLE",
            ),
        )
        and None
    )
    assert _one(run, "gcp:container/cluster:Cluster").inputs["releaseChannel"] == {"channel": "STABLE"}


# ---- node service account -----------------------------------------------------------------------


def test_nodes_run_as_a_dedicated_account_with_only_the_node_role(gcp_prod: Run) -> None:
    account = _one(gcp_prod, "gcp:serviceaccount/account:Account")
    assert account.inputs["accountId"] == "acme-ml-nodes" and account.inputs["project"] == PROJECT
    [grant] = gcp_prod.of_type("gcp:projects/iAMMember:IAMMember")
    assert grant.inputs == {
        "project": PROJECT,
        "role": "roles/container.defaultNodeServiceAccount",
        "member": f"serviceAccount:{NODE_EMAIL}",
    }, "the only project-level grant of the platform"
    assert gcp_prod.outputs["nodeEmail"] == NODE_EMAIL
    assert gcp_prod.outputs["nodeMember"] == f"serviceAccount:{NODE_EMAIL}"
    assert not gcp_prod.of_type("gcp:serviceaccount/key:Key"), "no service account keys"


def test_nothing_runs_as_the_compute_engine_default_service_account(gcp_prod: Run) -> None:
    for resource in gcp_prod.graph.resources:
        text = str(resource.inputs)
        assert "-compute@developer.gserviceaccount.com" not in text, resource.name


# ---- node pools ----------------------------------------------------------------------------------


def _pool(run: Run, pool: str) -> RecordedResource:
    return run.named(f"acme-ml-{pool}-pool")


@pytest.mark.parametrize("pool", sorted(POOLS))
def test_every_pool_is_hardened_and_pinned(gcp_run: tuple[str, Run], pool: str) -> None:
    env, run = gcp_run
    resource = _pool(run, pool)
    inputs = resource.inputs
    config = inputs["nodeConfig"]
    assert inputs["name"] == pool and inputs["location"] == REGION
    assert inputs["cluster"] == _one(run, "gcp:container/cluster:Cluster").id
    assert inputs["nodeLocations"] == POOLS[pool]["node_locations"]
    assert config["machineType"] == POOLS[pool]["machine_type"]
    assert config["diskSizeGb"] == POOLS[pool]["disk_size_gb"]
    assert config["diskType"] == POOLS[pool].get("disk_type", "pd-balanced")
    assert config["serviceAccount"] == NODE_EMAIL, pool
    assert config["oauthScopes"] == ["https://www.googleapis.com/auth/cloud-platform"]
    assert config["workloadMetadataConfig"] == {"mode": "GKE_METADATA"}, pool
    assert config["shieldedInstanceConfig"] == {"enableSecureBoot": True, "enableIntegrityMonitoring": True}, pool
    assert config["metadata"] == {"disable-legacy-endpoints": "true"}, pool
    assert config["labels"] == POOLS[pool]["node_labels"]
    assert config["resourceLabels"] == {**platform_labels(env), "pool": pool}
    assert config["taints"] == [
        {"key": t.key, "value": t.value, "effect": t.effect} for t in POOLS[pool]["taints"]
    ]
    assert inputs["version"] == VERSION
    assert inputs["management"] == {"autoRepair": True, "autoUpgrade": False}, "a pinned version is not upgraded"
    assert run.option(resource, "deleteBeforeReplace") is True


def test_multi_host_tpu_slice_is_compact_on_its_reservation_and_replaced_on_a_shape_change(gcp_prod: Run) -> None:
    resource = _pool(gcp_prod, "train-v5p")
    inputs = resource.inputs
    assert inputs["placementPolicy"] == {"type": "COMPACT", "tpuTopology": "2x2x4"}
    assert inputs["nodeCount"] == 4, "a 2x2x4 v5p slice is 4 VMs of 4 chips"
    assert len(inputs["nodeLocations"]) == 1
    assert "autoscaling" not in inputs
    config = inputs["nodeConfig"]
    assert config["reservationAffinity"] == {
        "consumeReservationType": "SPECIFIC_RESERVATION",
        "key": "compute.googleapis.com/reservation-name",
        "values": [RESERVATION],
    }
    assert config["spot"] is False
    assert "guestAccelerators" not in config
    assert gcp_prod.option(resource, "replaceOnChanges") == ["nodeConfig.machineType", "placementPolicy.tpuTopology"]
    assert inputs["upgradeSettings"] == {"strategy": "SURGE", "maxSurge": 0, "maxUnavailable": 1}, (
        "no spare capacity in a reservation for a surge node"
    )


def test_single_host_tpu_pool_on_spot_scales_node_by_node(gcp_prod: Run) -> None:
    resource = _pool(gcp_prod, "infer-v6e")
    inputs = resource.inputs
    assert inputs["nodeConfig"]["spot"] is True
    assert "reservationAffinity" not in inputs["nodeConfig"]
    assert inputs["autoscaling"] == {"totalMinNodeCount": 1, "totalMaxNodeCount": 4}
    assert inputs["initialNodeCount"] == 1 and "nodeCount" not in inputs
    assert "placementPolicy" not in inputs
    assert gcp_prod.option(resource, "ignoreChanges") == ["nodeCount", "initialNodeCount"]
    assert gcp_prod.option(resource, "replaceOnChanges") == []
    assert inputs["upgradeSettings"] == {"strategy": "SURGE", "maxSurge": 1, "maxUnavailable": 0}


def test_gpu_pool_declares_its_accelerators_and_driver_installation(gcp_prod: Run) -> None:
    inputs = _pool(gcp_prod, "gpu-h100").inputs
    assert inputs["nodeConfig"]["guestAccelerators"] == [
        {"type": "nvidia-h100-80gb", "count": 8, "gpuDriverInstallationConfig": {"gpuDriverVersion": "LATEST"}}
    ]
    assert inputs["nodeCount"] == 2 and "placementPolicy" not in inputs


def test_cpu_pool_has_no_accelerator_taint_or_placement(gcp_prod: Run) -> None:
    inputs = _pool(gcp_prod, "cpu").inputs
    assert "guestAccelerators" not in inputs["nodeConfig"] and "placementPolicy" not in inputs
    assert inputs["nodeConfig"]["taints"] == []
    assert inputs["nodeLocations"] == ["us-east5-a", "us-east5-b"]


def test_an_unpinned_pool_lets_gke_upgrade_it() -> None:
    from accelplane.clouds.gcp.components.node_pool import AcceleratorNodePool, NodePoolArgs

    run = run_components(
        lambda: AcceleratorNodePool(
            "free",
            NodePoolArgs(
                pool_name="free", cluster_id="c", location=REGION, node_locations=["us-east5-a"],
                machine_type="n2-standard-8", node_service_account_email=NODE_EMAIL, kubernetes_version=None,
                disk_size_gb=100, node_labels={}, taints=[], labels={}, node_count=1,
            ),
        )
        and None
    )
    pool = _one(run, "gcp:container/nodePool:NodePool").inputs
    assert pool["management"] == {"autoRepair": True, "autoUpgrade": True} and "version" not in pool


# ---- buckets -------------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["datasets", "checkpoints"])
def test_buckets_are_private_cmek_encrypted_and_versioned(gcp_run: tuple[str, Run], role: str) -> None:
    env, run = gcp_run
    resource = run.named(f"acme-ml-{role}-bucket")
    bucket = resource.inputs
    assert bucket["uniformBucketLevelAccess"] is True, role
    assert bucket["publicAccessPrevention"] == "enforced", role
    assert bucket["encryption"] == {"defaultKmsKeyName": _key_id("data")}, role
    grant = run.named("acme-ml-data-key-encrypter-decrypter")
    assert grant.urn in resource.dependencies, "creation fails until the GCS agent holds the key"
    assert bucket["versioning"] == {"enabled": True}
    assert bucket["forceDestroy"] is False
    assert bucket["location"] == REGION and bucket["storageClass"] == "STANDARD"
    assert bucket["labels"] == {**platform_labels(env), "bucket-role": role}
    assert resource.protect is (env == "prod")
    assert run.outputs["bucketUrls"][role] == f"gs://{run.outputs['bucketNames'][role]}"


def test_bucket_lifecycle_rules_map_one_action_per_rule(gcp_prod: Run) -> None:
    datasets = gcp_prod.named("acme-ml-datasets-bucket").inputs["lifecycleRules"]
    live = {"withState": "LIVE"}
    assert datasets == [
        {"action": {"type": "SetStorageClass", "storageClass": "NEARLINE"}, "condition": {"age": 30, **live}},
        {"action": {"type": "SetStorageClass", "storageClass": "COLDLINE"}, "condition": {"age": 90, **live}},
        {"action": {"type": "Delete"}, "condition": {"daysSinceNoncurrentTime": 30, "withState": "ARCHIVED"}},
        {"action": {"type": "AbortIncompleteMultipartUpload"}, "condition": {"age": 7}},
    ]
    checkpoints = gcp_prod.named("acme-ml-checkpoints-bucket").inputs
    prefix = {"matchesPrefixes": ["runs/"]}
    assert checkpoints["lifecycleRules"] == [
        {"action": {"type": "Delete"}, "condition": {"age": 60, "withState": "LIVE", **prefix}},
        {"action": {"type": "Delete"}, "condition": {"daysSinceNoncurrentTime": 14, "withState": "ARCHIVED", **prefix}},
        {"action": {"type": "AbortIncompleteMultipartUpload"}, "condition": {"age": 3, **prefix}},
    ]
    assert checkpoints["retentionPolicy"] == {"retentionPeriod": str(7 * 86400), "isLocked": False}
    assert "retentionPolicy" not in gcp_prod.named("acme-ml-datasets-bucket").inputs


# ---- secrets -------------------------------------------------------------------------------------


def test_secrets_replicate_in_the_region_only_with_the_secrets_key(gcp_run: tuple[str, Run]) -> None:
    env, run = gcp_run
    grant = run.named("acme-ml-secrets-key-encrypter-decrypter")
    secrets = {r.inputs["secretId"]: r for r in run.of_type("gcp:secretmanager/secret:Secret")}
    assert set(secrets) == {"acme-ml-secrets-hf-token", "acme-ml-secrets-wandb-key"}
    for secret_id, secret in secrets.items():
        assert secret.inputs["replication"] == {
            "userManaged": {
                "replicas": [{"location": REGION, "customerManagedEncryption": {"kmsKeyName": _key_id("secrets")}}]
            }
        }, secret_id
        assert secret.inputs["labels"] == platform_labels(env)
        assert secret.protect is (env == "prod")
        assert grant.urn in secret.dependencies, "creation fails until Secret Manager's agent holds the key"
    assert secrets["acme-ml-secrets-hf-token"].inputs["annotations"] == {"description": "Hugging Face read token"}
    assert run.outputs["secretIds"] == {
        "hf-token": f"projects/{PROJECT}/secrets/acme-ml-secrets-hf-token",
        "wandb-key": f"projects/{PROJECT}/secrets/acme-ml-secrets-wandb-key",
    }


def test_a_secret_version_exists_only_for_a_given_value_and_stays_secret(gcp_prod: Run) -> None:
    [version] = gcp_prod.of_type("gcp:secretmanager/secretVersion:SecretVersion")
    secret = f"projects/{PROJECT}/secrets/acme-ml-secrets-hf-token"
    assert version.inputs == {"secret": secret, "secretData": "[secret]"}
    assert "hf_offline_value" not in str([r.inputs for r in gcp_prod.graph.resources])


# ---- workload access -----------------------------------------------------------------------------


def _principal(namespace: str, ksa: str) -> str:
    return (
        f"principal://iam.googleapis.com/projects/{PROJECT_NUMBER}/locations/global/workloadIdentityPools/"
        f"{PROJECT}.svc.id.goog/subject/ns/{namespace}/sa/{ksa}"
    )


def test_workload_grants_are_on_the_exact_bucket_with_the_role_of_the_access(gcp_prod: Run) -> None:
    names = gcp_prod.outputs["bucketNames"]
    grants = {r.name: r.inputs for r in gcp_prod.of_type("gcp:storage/bucketIAMMember:BucketIAMMember")}
    assert set(grants) == {"acme-ml-train-datasets", "acme-ml-train-checkpoints", "acme-ml-serve-checkpoints",
                           "acme-ml-ingest-datasets"}
    assert grants["acme-ml-train-datasets"] == {
        "bucket": names["datasets"], "role": "roles/storage.objectViewer", "member": _principal("training", "trainer")
    }
    assert grants["acme-ml-ingest-datasets"] == {
        "bucket": names["datasets"], "role": "roles/storage.objectCreator", "member": _principal("batch", "ingest")
    }
    train = grants["acme-ml-train-checkpoints"]
    assert train["role"] == "roles/storage.objectUser" and train["member"] == _principal("training", "trainer")
    assert gcp_prod.outputs["trainerPrincipal"] == _principal("training", "trainer")


def test_a_declared_prefix_becomes_an_iam_condition_on_object_names_and_listing(gcp_prod: Run) -> None:
    checkpoints = gcp_prod.outputs["bucketNames"]["checkpoints"]
    condition = gcp_prod.named("acme-ml-train-checkpoints").inputs["condition"]
    assert condition["expression"] == (
        f'resource.name.startsWith("projects/_/buckets/{checkpoints}/objects/runs/llm/")'
        ' || api.getAttribute("storage.googleapis.com/objectListPrefix", "").startsWith("runs/llm/")'
    )
    assert condition["title"] == "prefix runs/llm/"
    serve = gcp_prod.named("acme-ml-serve-checkpoints").inputs
    assert serve["role"] == "roles/storage.objectViewer"
    assert f"/buckets/{checkpoints}/objects/exports/" in serve["condition"]["expression"]
    assert "condition" not in gcp_prod.named("acme-ml-train-datasets").inputs, "no prefix: the whole bucket"


def test_only_listing_workloads_read_each_secret(gcp_prod: Run) -> None:
    grants = {r.name: r.inputs for r in gcp_prod.of_type("gcp:secretmanager/secretIamMember:SecretIamMember")}
    assert grants == {
        "acme-ml-train-secret-hf-token": {
            "secretId": f"projects/{PROJECT}/secrets/acme-ml-secrets-hf-token",
            "role": "roles/secretmanager.secretAccessor",
            "member": _principal("training", "trainer"),
        },
        "acme-ml-ingest-secret-wandb-key": {
            "secretId": f"projects/{PROJECT}/secrets/acme-ml-secrets-wandb-key",
            "role": "roles/secretmanager.secretAccessor",
            "member": _principal("batch", "ingest"),
        },
    }


def test_no_primitive_roles_no_public_members_no_project_grants_to_workloads(gcp_run: tuple[str, Run]) -> None:
    _, run = gcp_run
    for resource in run.graph.resources:
        role = resource.inputs.get("role")
        members = set(resource.inputs.get("members", [])) | {resource.inputs.get("member")} - {None}
        if role is None:
            continue
        assert role not in PRIMITIVE_ROLES, f"{resource.name} grants {role}"
        assert not members & PUBLIC_MEMBERS, f"{resource.name} grants {role} to the public"
        if resource.type == "gcp:projects/iAMMember:IAMMember":
            assert members == {f"serviceAccount:{NODE_EMAIL}"}, f"{resource.name}: project grant to {members}"
        if any(str(m).startswith("principal://") for m in members):
            assert resource.type in (
                "gcp:storage/bucketIAMMember:BucketIAMMember",
                "gcp:secretmanager/secretIamMember:SecretIamMember",
            ), f"{resource.name}: a workload is granted on {resource.type}"


# ---- inference endpoint --------------------------------------------------------------------------


def test_endpoint_reserves_a_global_ipv4_address(gcp_run: tuple[str, Run]) -> None:
    env, run = gcp_run
    address = _one(run, "gcp:compute/globalAddress:GlobalAddress")
    assert address.inputs["addressType"] == "EXTERNAL" and address.inputs["ipVersion"] == "IPV4"
    assert address.inputs["labels"] == platform_labels(env)
    assert run.outputs["addressName"] == address.outputs["name"]
    assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+", run.outputs["address"])


def test_endpoint_ssl_policy_allows_tls_1_2_and_later_only(gcp_run: tuple[str, Run]) -> None:
    env, run = gcp_run
    policy = _one(run, "gcp:compute/sSLPolicy:SSLPolicy")
    assert policy.inputs["minTlsVersion"] == "TLS_1_2"
    assert policy.inputs["profile"] == ("RESTRICTED" if env == "prod" else "MODERN")
    assert run.outputs["sslPolicyName"] == policy.outputs["name"]


def test_cloud_armor_admits_only_the_allowed_cidrs_and_denies_the_rest(gcp_run: tuple[str, Run]) -> None:
    env, run = gcp_run
    [policy] = [p for p in run.of_type("gcp:compute/securityPolicy:SecurityPolicy") if p.name.endswith("-armor")]
    assert policy.inputs["type"] == "CLOUD_ARMOR"
    rules = sorted(policy.inputs["rules"], key=lambda r: r["priority"])
    *allows, default = rules
    expected = ENDPOINT_CIDRS if env == "prod" else ["203.0.113.0/24"]
    assert [c for r in allows for c in r["match"]["config"]["srcIpRanges"]] == expected
    assert all(r["action"] == "allow" and r["match"]["versionedExpr"] == "SRC_IPS_V1" for r in allows)
    assert all(len(r["match"]["config"]["srcIpRanges"]) <= 10 for r in allows), "Cloud Armor: 10 ranges per rule"
    assert len(allows) == (2 if env == "prod" else 1)
    assert default["action"] == "deny(403)" and default["priority"] == 2147483647
    assert default["match"] == {"versionedExpr": "SRC_IPS_V1", "config": {"srcIpRanges": ["*"]}}
    assert policy.inputs["labels"] == platform_labels(env)
    assert run.outputs["securityPolicyName"] == policy.outputs["name"]


def test_a_rate_limited_service_gets_its_own_policy_throttling_the_allowed_ranges(gcp_run: tuple[str, Run]) -> None:
    env, run = gcp_run
    [policy] = [p for p in run.of_type("gcp:compute/securityPolicy:SecurityPolicy") if p.name.endswith("-armor-llm")]
    rules = sorted(policy.inputs["rules"], key=lambda r: r["priority"])
    cidrs = ENDPOINT_CIDRS if env == "prod" else ["203.0.113.0/24"]
    limited = [r for r in rules if r["action"] in ("throttle", "rate_based_ban")]
    # The same source ranges as the allow-list (a client outside them never reaches a rate rule), at most
    # 10 per rule, each rule ahead of the plain allows and the default deny.
    assert [c for r in limited for c in r["match"]["config"]["srcIpRanges"]] == cidrs
    allows = [r for r in rules if r["action"] == "allow" and r["match"].get("versionedExpr") == "SRC_IPS_V1"]
    assert max(r["priority"] for r in limited) < min(r["priority"] for r in allows)
    assert rules[-1]["action"] == "deny(403)" and rules[-1]["priority"] == 2147483647
    options = limited[0]["rateLimitOptions"]
    assert options["conformAction"] == "allow" and options["exceedAction"] == "deny(429)"
    if env == "prod":
        assert limited[0]["action"] == "throttle" and limited[0]["preview"] is False
        assert options["enforceOnKey"] == "IP" and options["rateLimitThreshold"] == {"count": 300, "intervalSec": 60}
        # The exempt path is allowed first, once per allowed range, each expression two sub-expressions.
        exempt = [r for r in rules if "expr" in r["match"]]
        assert [r["match"]["expr"]["expression"] for r in exempt] == [
            f"request.path.startsWith('/healthz') && inIpRange(origin.ip, '{cidr}')" for cidr in cidrs]
        assert max(r["priority"] for r in exempt) < min(r["priority"] for r in limited)
    else:
        assert limited[0]["action"] == "rate_based_ban" and limited[0]["preview"] is True  # count-only
        assert (options["enforceOnKey"], options["enforceOnKeyName"], options["banDurationSec"]) == (
            "HTTP_HEADER", "X-Api-Key", 600)


# ---- across components ---------------------------------------------------------------------------


def _labelled_types() -> dict[str, str]:
    """Type token -> the input carrying Google Cloud labels, for every pulumi-gcp class the layer may use."""
    found: dict[str, str] = {}
    for module in (compute, container, kms, secretmanager, storage):
        for _, cls in inspect.getmembers(module, inspect.isclass):
            token = getattr(cls, "pulumi_type", None)
            init = getattr(cls, "_internal_init", None)
            if not isinstance(token, str) or init is None:
                continue
            parameters = inspect.signature(init).parameters
            if "labels" in parameters:
                found[token] = "labels"
            elif "resource_labels" in parameters:
                found[token] = "resourceLabels"
    return found


_GCP_LABEL_KEY = re.compile(r"[a-z][a-z0-9_-]{0,62}")
_GCP_LABEL_VALUE = re.compile(r"[a-z0-9_-]{0,63}")


def test_every_labellable_resource_carries_the_platform_labels_and_they_are_valid(gcp_run: tuple[str, Run]) -> None:
    env, run = gcp_run
    expected = platform_labels(env)
    labelled = _labelled_types()
    checked = 0
    for resource in run.graph.resources:
        if resource.type == "gcp:container/nodePool:NodePool":  # labels its VMs through node_config
            labels = resource.inputs["nodeConfig"].get("resourceLabels")
        elif resource.type in labelled:
            labels = resource.inputs.get(labelled[resource.type])
        else:
            continue
        assert labels is not None, f"{resource.name} ({resource.type}) carries no labels"
        missing = {k: v for k, v in expected.items() if labels.get(k) != v}
        assert not missing, f"{resource.name} lacks labels {missing}"
        for key, value in labels.items():
            assert _GCP_LABEL_KEY.fullmatch(key) and _GCP_LABEL_VALUE.fullmatch(value), (resource.name, key, value)
        assert len(labels) <= len(expected) + 1, f"{resource.name}: components add at most one label"
        checked += 1
    assert checked == 15, checked  # 3 keys, cluster, 4 pools, 2 buckets, 2 secrets, address, 2 armor policies
    assert labelled.get("gcp:compute/network:Network") is None, "VPCs take no labels in Google Cloud"


def test_component_type_tokens_and_child_names(gcp_prod: Run) -> None:
    components = [r for r in gcp_prod.graph.resources if not r.custom]
    assert {r.type for r in components} == {
        f"accelplane:gcp:{cls}"
        for cls in (
            "PlatformNetwork", "KeyRing", "EncryptionKey", "GkeCluster", "NodeServiceAccount", "AcceleratorNodePool",
            "SecureBucket", "SecretStore", "WorkloadAccess", "InferenceEndpoint", "ServiceAgents",
        )
    }
    for component in components:
        for child in gcp_prod.children(component):
            assert child.name.startswith(f"{component.name}-"), f"{child.name} under {component.name}"
