"""Every key and enum value the GCP components send exists in Google's API discovery documents.

The scenario (gcp_scenario.py) builds every component in prod and dev; each recorded input is
resolved in the schema of the API pulumi-gcp calls (gcp_discovery.py). A misspelt key, a value
Google does not list, a deprecated or output-only field fails here, offline, instead of halfway
through `pulumi up`. The mutation tests prove the walk can fail.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from accelplane.clouds.gcp import catalog as gcp_catalog
from accelplane.engine.graph import RecordedResource
from tests.gcp.gcp_discovery import (
    DEPRECATED_ALLOWED,
    SHAPES,
    Report,
    _resolve,
    check_inputs,
    check_resources,
    document,
)
from tests.gcp.gcp_harness import Run


def test_every_key_and_value_the_components_send_is_in_the_api_schemas(gcp_run: tuple[str, Run]) -> None:
    env, run = gcp_run
    report = check_resources(run.graph.resources)
    assert not report.problems, f"{env}:\n" + "\n".join(map(str, report.problems))
    # The walk really ran: hundreds of leaves, every enum-valued field the layer sets.
    assert len(report.checked) > 300, len(report.checked)
    checked_enums = {(token, path) for token, path, _ in report.enums}
    for expected in [
        ("gcp:container/cluster:Cluster", "databaseEncryption.state"),
        ("gcp:container/cluster:Cluster", "releaseChannel.channel"),
        ("gcp:container/cluster:Cluster", "loggingConfig.componentConfig.enableComponents"),
        ("gcp:container/cluster:Cluster", "networkConfig.datapathProvider"),
        ("gcp:container/nodePool:NodePool", "config.workloadMetadataConfig.mode"),
        ("gcp:container/nodePool:NodePool", "config.reservationAffinity.consumeReservationType"),
        ("gcp:container/nodePool:NodePool", "config.accelerators.gpuDriverInstallationConfig.gpuDriverVersion"),
        ("gcp:container/nodePool:NodePool", "config.taints.effect"),
        ("gcp:container/nodePool:NodePool", "placementPolicy.type"),
        ("gcp:compute/sSLPolicy:SSLPolicy", "minTlsVersion"),
        ("gcp:compute/securityPolicy:SecurityPolicy", "rules.action"),
        ("gcp:compute/securityPolicy:SecurityPolicy", "rules.rateLimitOptions.enforceOnKey"),
        ("gcp:compute/routerNat:RouterNat", "logConfig.filter"),
        ("gcp:compute/subnetwork:Subnetwork", "logConfig.aggregationInterval"),
        ("gcp:storage/bucket:Bucket", "iamConfiguration.publicAccessPrevention"),
        ("gcp:storage/bucket:Bucket", "lifecycle.rule.action.type"),
        ("gcp:storage/bucket:Bucket", "lifecycle.rule.action.storageClass"),
        ("gcp:kms/cryptoKey:CryptoKey", "versionTemplate.protectionLevel"),
    ]:
        assert expected in checked_enums, f"{env}: {expected} was not checked against an enum"


# Types the prod stack does not declare, each with the test that checks a plan holding one.
OTHER_STACKS = {"gcp:compute/futureReservation:FutureReservation": "tests/capacity/test_future_reservation.py"}


def test_every_gcp_resource_type_the_components_create_has_an_api_shape(gcp_prod: Run) -> None:
    types = {r.type for r in gcp_prod.graph.resources if r.custom and r.type.startswith("gcp:")}
    assert types <= set(SHAPES), f"no API shape for {sorted(types - set(SHAPES))}"
    unused = set(SHAPES) - types - set(OTHER_STACKS)
    assert not unused, f"API shapes for types no component creates: {sorted(unused)}"


@pytest.mark.parametrize("token", sorted(SHAPES))
def test_api_shapes_point_at_schemas_that_exist(token: str) -> None:
    shape = SHAPES[token]
    schemas = document(shape.document)["schemas"]
    assert shape.schema in schemas, f"{token}: {shape.document} has no schema {shape.schema}"
    node = _resolve(shape.document, schemas[shape.schema])
    for step in shape.root.split(".") if shape.root else []:
        node = node["properties"][step]
    for source, target in shape.renames.items():
        assert source != target, f"{token}: rename {source} -> itself"


def test_deprecated_fields_sent_on_purpose_are_few_and_explained() -> None:
    assert len(DEPRECATED_ALLOWED) <= 5
    for (token, path), reason in DEPRECATED_ALLOWED.items():
        assert token in SHAPES and path and len(reason) > 40, (token, path)


def _inputs(run: Run, name: str) -> dict[str, Any]:
    return copy.deepcopy(run.named(name).inputs)


def _check(resource: RecordedResource, inputs: dict[str, Any]) -> Report:
    report = Report()
    check_inputs(resource.type, resource.name, inputs, report)
    return report


MUTATIONS = [
    # (resource, mutation, words the problem must contain)
    ("acme-ml-train-v5p-pool", lambda i: i["nodeConfig"]["shieldedInstanceConfig"].update(enableSecureBot=True),
     "enableSecureBot"),
    ("acme-ml-train-v5p-pool", lambda i: i["placementPolicy"].update(type="COMPACTED"), "COMPACTED"),
    ("acme-ml-train-v5p-pool", lambda i: i["nodeConfig"]["reservationAffinity"].update(
        consumeReservationType="SPECIFIC"), "SPECIFIC"),
    ("acme-ml-gpu-h100-pool", lambda i: i["nodeConfig"]["guestAccelerators"][0]["gpuDriverInstallationConfig"].update(
        gpuDriverVersion="LATEST_STABLE"), "LATEST_STABLE"),
    ("acme-ml-gpu-h100-pool", lambda i: i["nodeConfig"].update(workloadMetadataConfig={"mode": "GKE_METADATA_SERVER"}),
     "GKE_METADATA_SERVER"),
    ("acme-ml-gke-cluster", lambda i: i["databaseEncryption"].update(state="ENCRYPT"), "ENCRYPT"),
    ("acme-ml-gke-cluster", lambda i: i.update(workloadIdentity={"workloadPool": "x"}), "workloadIdentity"),
    ("acme-ml-gke-cluster", lambda i: i["loggingConfig"]["enableComponents"].append("API_SERVER"), "API_SERVER"),
    ("acme-ml-gke-cluster", lambda i: i["privateClusterConfig"].update(masterGlobalAccessConfig={"enabled": True}),
     "deprecated"),
    ("acme-ml-gke-cluster", lambda i: i["privateClusterConfig"].update(peeringName="p"), "output only"),
    ("acme-ml-gke-cluster", lambda i: i.update(endpoint="1.2.3.4"), "no input 'endpoint'"),
    ("acme-ml-checkpoints-bucket", lambda i: i.update(publicAccessPrevention="enforce"), "enforce"),
    ("acme-ml-checkpoints-bucket", lambda i: i["lifecycleRules"][0]["condition"].update(matchesPrefixs=["x/"]),
     "matchesPrefixs"),
    ("acme-ml-datasets-bucket", lambda i: i["lifecycleRules"][0]["action"].update(storageClass="INFREQUENT"),
     "INFREQUENT"),
    ("acme-ml-checkpoints-bucket", lambda i: i["lifecycleRules"][0]["action"].update(type="Expire"), "Expire"),
    ("acme-ml-checkpoints-bucket", lambda i: i.update(versioning={"enabled": "yes"}), "not of type boolean"),
    ("acme-ml-net-nat", lambda i: i["logConfig"].update(filter="ERRORS"), "ERRORS"),
    ("acme-ml-net-nat", lambda i: i["subnetworks"][0].update(sourceIpRangesToNat=["ALL_IP_RANGES"]),
     "sourceIpRangesToNat"),
    ("acme-ml-net-allow-lb", lambda i: i["allows"][0].update(protocol="tcpp"), "tcpp"),
    ("acme-ml-net-nodes", lambda i: i["logConfig"].update(aggregationInterval="INTERVAL_5_SECONDS"),
     "INTERVAL_5_SECONDS"),
    ("acme-ml-endpoint-ssl", lambda i: i.update(minTlsVersion="TLS_1_2_OR_LATER"), "TLS_1_2_OR_LATER"),
    ("acme-ml-endpoint-armor", lambda i: i["rules"][-1].update(action="deny(401)"), "deny(401)"),
    ("acme-ml-endpoint-armor", lambda i: i["rules"][0]["match"]["config"].update(srcIpRange=["10.0.0.0/8"]),
     "srcIpRange"),
    ("acme-ml-gke-key-key", lambda i: i["versionTemplate"].update(protectionLevel="HARDWARE"), "HARDWARE"),
    ("acme-ml-secrets-hf-token", lambda i: i["replication"]["userManaged"]["replicas"][0].update(
        customerManagedEncryption={"kmsKey": "k"}), "kmsKey"),
    ("acme-ml-train-checkpoints", lambda i: i["condition"].update(expr="true"), "expr"),
    ("acme-ml-endpoint-address", lambda i: i.update(addressType="PUBLIC"), "PUBLIC"),
]


@pytest.mark.parametrize(("name", "mutate", "words"), MUTATIONS, ids=[f"{m[0]}-{m[2]}" for m in MUTATIONS])
def test_a_misspelt_key_or_unknown_value_fails_the_walk(gcp_prod: Run, name: str, mutate: Any, words: str) -> None:
    resource = gcp_prod.named(name)
    assert not _check(resource, _inputs(gcp_prod, name)).problems, "the unmutated inputs must pass"
    mutated = _inputs(gcp_prod, name)
    mutate(mutated)
    problems = _check(resource, mutated).problems
    assert problems, f"{name}: the mutation ({words}) passed the schema walk"
    assert any(words in str(p) for p in problems), [str(p) for p in problems]


def test_a_type_without_an_api_shape_fails_the_walk() -> None:
    report = Report()
    check_inputs("gcp:compute/instance:Instance", "stray", {"machineType": "n2-standard-8"}, report)
    assert [p.message for p in report.problems] == [
        "gcp:compute/instance:Instance has no API shape in tests/gcp/gcp_discovery.py"
    ]


def test_enum_values_sent_agree_with_the_gcp_catalog(gcp_prod: Run) -> None:
    """The same values through config/gcp_catalog.py's named vocabularies (the declaration checks
    use them): the catalog and the components agree on Google's enums."""
    by_type: dict[str, list[dict[str, Any]]] = {}
    for resource in gcp_prod.graph.resources:
        by_type.setdefault(resource.type, []).append(resource.inputs)
    [cluster] = by_type["gcp:container/cluster:Cluster"]
    assert cluster["databaseEncryption"]["state"] in gcp_catalog.database_encryption_states()
    assert set(cluster["loggingConfig"]["enableComponents"]) <= gcp_catalog.logging_components()
    assert set(cluster["monitoringConfig"]["enableComponents"]) <= gcp_catalog.monitoring_components()
    for pool in by_type["gcp:container/nodePool:NodePool"]:
        config = pool["nodeConfig"]
        assert config["workloadMetadataConfig"]["mode"] in gcp_catalog.workload_metadata_modes()
        assert {t["effect"] for t in config["taints"]} <= gcp_catalog.node_taint_effects()
        if "reservationAffinity" in config:
            assert config["reservationAffinity"]["consumeReservationType"] in gcp_catalog.reservation_affinity_types()
        if "placementPolicy" in pool:
            assert pool["placementPolicy"]["type"] in gcp_catalog.placement_policy_types()
        for accelerator in config.get("guestAccelerators", []):
            version = accelerator["gpuDriverInstallationConfig"]["gpuDriverVersion"]
            assert version in gcp_catalog.gpu_driver_versions()
    for policy in by_type["gcp:compute/sSLPolicy:SSLPolicy"]:
        assert policy["profile"] in gcp_catalog.ssl_policy_profiles()
        assert policy["minTlsVersion"] in gcp_catalog.ssl_min_tls_versions()
    for armor in by_type["gcp:compute/securityPolicy:SecurityPolicy"]:
        assert armor["type"] in gcp_catalog.security_policy_types()
        assert {r["action"] for r in armor["rules"]} <= gcp_catalog.security_policy_rule_actions()
    for address in by_type["gcp:compute/globalAddress:GlobalAddress"]:
        assert address["addressType"] in gcp_catalog.address_types()
    for rule in by_type["gcp:compute/firewall:Firewall"]:
        assert rule["direction"] in gcp_catalog.firewall_directions()
    for bucket in by_type["gcp:storage/bucket:Bucket"]:
        assert bucket["publicAccessPrevention"] in gcp_catalog.gcs_public_access_prevention()
        assert bucket["storageClass"] in gcp_catalog.gcs_storage_classes()
        for rule in bucket.get("lifecycleRules", []):
            assert rule["action"]["type"] in gcp_catalog.gcs_lifecycle_actions()
    for key in by_type["gcp:kms/cryptoKey:CryptoKey"]:
        assert key["purpose"] in gcp_catalog.kms_key_purposes()
        assert key["versionTemplate"]["protectionLevel"] in gcp_catalog.kms_protection_levels()
        assert key["versionTemplate"]["algorithm"] in gcp_catalog.kms_algorithms()
    for secret in by_type["gcp:secretmanager/secret:Secret"]:
        assert set(secret["replication"]) <= gcp_catalog.secret_replication_modes()


def test_vocabularies_the_component_args_accept_are_google_values() -> None:
    """What Args validation accepts (before any run) is what Google accepts."""
    from accelplane.clouds.gcp.components import bucket, cluster, inference_endpoint, node_pool

    assert set(node_pool.TAINT_EFFECTS) <= gcp_catalog.node_taint_effects()
    assert set(node_pool.GPU_DRIVER_VERSIONS) <= gcp_catalog.gpu_driver_versions()
    assert set(cluster.RELEASE_CHANNELS) <= gcp_catalog.release_channels()
    assert set(cluster.CONTROL_PLANE_COMPONENTS) <= gcp_catalog.logging_components()
    assert set(inference_endpoint.TLS_PROFILES) <= gcp_catalog.ssl_policy_profiles()
    assert set(bucket.STORAGE_CLASSES) <= gcp_catalog.gcs_storage_classes()
