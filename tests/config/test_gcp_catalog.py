"""The GCP facts layer: discovery-document enums and schemas (regenerated, never edited) and the hand-kept
machine/TPU/zone table (every row sourced, shape arithmetic consistent, agreeing with the version matrix)."""

from __future__ import annotations

import fnmatch
import json
import math
import re
import runpy
from pathlib import Path

import pytest

from accelplane.clouds.gcp import catalog as g
from accelplane.matrix import loader as matrix

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "refresh_gcp_catalog.py"


# ---- discovery documents ----------------------------------------------------------------------


def test_catalog_extract_matches_the_installed_discovery_documents(tmp_path: Path) -> None:
    """accelplane/clouds/gcp/catalog.json is regenerated, not edited: the tool, run into a temporary file, writes it
    byte for byte from the installed google-api-python-client."""
    namespace = runpy.run_path(str(TOOL))
    out = tmp_path / "gcp_catalog.json"
    namespace["main"].__globals__["OUT"] = out
    namespace["main"]()
    committed = (ROOT / "accelplane" / "clouds" / "gcp" / "catalog.json").read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8") == committed
    assert json.loads(committed) == g._catalog()


def test_source_names_the_client_version_and_every_document() -> None:
    from importlib import metadata

    source = g.catalog_source()
    assert source["package"] == f"google-api-python-client {metadata.version('google-api-python-client')}"
    assert set(source["documents"]) == g.apis()
    versions = {api: version for api, (version, _) in runpy.run_path(str(TOOL))["APIS"].items()}
    for api, document in source["documents"].items():
        assert document["id"] == f"{api}:{versions[api]}"
        assert document["path"].endswith(f"/{api}.{versions[api]}.json")
        assert re.fullmatch(r"\d{8}", document["revision"])


@pytest.mark.parametrize(
    ("schema", "field", "expected"),
    [
        ("WorkloadMetadataConfig", "mode", {"GCE_METADATA", "GKE_METADATA"}),
        ("ReservationAffinity", "consumeReservationType",
         {"NO_RESERVATION", "ANY_RESERVATION", "SPECIFIC_RESERVATION"}),
        ("PlacementPolicy", "type", {"COMPACT"}),
        ("GPUDriverInstallationConfig", "gpuDriverVersion", {"INSTALLATION_DISABLED", "DEFAULT", "LATEST"}),
        ("ReleaseChannel", "channel", {"RAPID", "REGULAR", "STABLE"}),
        ("DatabaseEncryption", "state", {"ENCRYPTED", "DECRYPTED"}),
        ("NodeTaint", "effect", {"NO_SCHEDULE", "PREFER_NO_SCHEDULE", "NO_EXECUTE"}),
        ("LoggingComponentConfig", "enableComponents", {"SYSTEM_COMPONENTS", "WORKLOADS", "APISERVER", "SCHEDULER",
                                                        "CONTROLLER_MANAGER"}),
        ("MonitoringComponentConfig", "enableComponents", {"SYSTEM_COMPONENTS", "APISERVER", "DCGM"}),
    ],
)
def test_container_enums_hold_the_values_the_layer_sends(schema: str, field: str, expected: set[str]) -> None:
    assert expected <= g.container_enum(schema, field)


def test_named_accessors_drop_only_the_sentinels() -> None:
    assert g.workload_metadata_modes() == {"GCE_METADATA", "GKE_METADATA"}
    assert g.placement_policy_types() == {"COMPACT"}
    assert "UNSPECIFIED" not in g.release_channels() and "RAPID" in g.release_channels()
    assert "EFFECT_UNSPECIFIED" in g.container_enum("NodeTaint", "effect")
    assert g.node_taint_effects() == {"NO_SCHEDULE", "PREFER_NO_SCHEDULE", "NO_EXECUTE"}
    assert g.database_encryption_states() >= {"ENCRYPTED", "DECRYPTED"}
    assert "UNKNOWN" not in g.database_encryption_states()
    assert g.address_types() == {"EXTERNAL", "INTERNAL"}
    assert "UNSPECIFIED" in g.deprecated_enum_values("container", "ReleaseChannel", "channel")


def test_compute_storage_kms_secret_vocabularies() -> None:
    assert {"COMPATIBLE", "MODERN", "RESTRICTED", "CUSTOM"} <= g.ssl_policy_profiles()
    assert {"TLS_1_0", "TLS_1_1", "TLS_1_2", "TLS_1_3"} == g.ssl_min_tls_versions()
    assert g.firewall_directions() == {"INGRESS", "EGRESS"}
    assert "CLOUD_ARMOR" in g.security_policy_types()
    assert {"PREMIUM", "STANDARD"} <= g.network_tiers()
    assert "ENCRYPT_DECRYPT" in g.kms_key_purposes()
    assert {"SOFTWARE", "HSM"} <= g.kms_protection_levels()
    assert "GOOGLE_SYMMETRIC_ENCRYPTION" in g.kms_algorithms()
    assert g.secret_replication_modes() == {"automatic", "userManaged"}
    assert g.schema_fields("secretmanager", "UserManaged") == {"replicas"}
    assert g.schema_fields("secretmanager", "Replica") >= {"location", "customerManagedEncryption"}
    assert g.schema_fields("secretmanager", "CustomerManagedEncryption") == {"kmsKeyName"}
    assert g.schema_field_type("secretmanager", "Automatic", "customerManagedEncryption") == "CustomerManagedEncryption"
    assert g.has_field_path("cloudresourcemanager", "Policy", "bindings.condition.expression")
    assert g.has_field_path("iam", "Policy", "bindings.members")
    assert "rotationPeriod" in g.schema_fields("cloudkms", "CryptoKey")
    assert {"sourceSubnetworkIpRangesToNat", "natIpAllocateOption"} <= g.schema_fields("compute", "RouterNat")


def test_values_stated_only_in_descriptions_are_parsed_and_kept_apart() -> None:
    """Not schema enums: the tool parses them from the sentence it names, and api_enum refuses them."""
    assert g.gcs_public_access_prevention() == {"enforced", "inherited"}
    assert "'inherited' and 'enforced'" in g.described_enum_text("storage", "Bucket.iamConfiguration",
                                                                 "publicAccessPrevention")
    assert {"STANDARD", "NEARLINE", "COLDLINE", "ARCHIVE"} <= g.gcs_storage_classes()
    assert g.gcs_lifecycle_actions() == {"Delete", "SetStorageClass", "AbortIncompleteMultipartUpload"}
    assert {"allow", "deny(403)", "deny(404)", "deny(502)", "throttle", "rate_based_ban"} <= \
        g.security_policy_rule_actions()
    with pytest.raises(g.GcpCatalogError, match="described_enum"):
        g.api_enum("storage", "Bucket.iamConfiguration", "publicAccessPrevention")


def test_description_extractors_fail_loudly_when_google_rewords_the_text() -> None:
    namespace = runpy.run_path(str(TOOL))
    for extract in namespace["DESCRIBED"].values():
        with pytest.raises(ValueError):
            extract("The bucket's configuration.")


def test_schema_fields_and_paths() -> None:
    assert "reservationAffinity" in g.schema_fields("container", "NodeConfig")
    assert {"enableSecureBoot", "enableIntegrityMonitoring"} == g.schema_fields("container", "ShieldedInstanceConfig")
    assert {"autoRepair", "autoUpgrade"} <= g.schema_fields("container", "NodeManagement")
    assert {"tpuTopology", "type", "policyName"} <= g.schema_fields("container", "PlacementPolicy")
    cluster = {"privateClusterConfig", "workloadIdentityConfig", "databaseEncryption", "releaseChannel",
               "masterAuthorizedNetworksConfig", "loggingConfig", "shieldedNodes", "monitoringConfig"}
    assert cluster <= g.schema_fields("container", "Cluster")
    assert g.has_field_path("container", "NodePool", "config.reservationAffinity.consumeReservationType")
    assert g.has_field_path("container", "NodePool", "placementPolicy.tpuTopology")
    assert g.has_field_path("container", "NodePool", "config.accelerators.gpuDriverInstallationConfig.gpuDriverVersion")
    assert g.has_field_path("container", "Cluster", "loggingConfig.componentConfig.enableComponents")
    assert not g.has_field_path("container", "NodePool", "config.reservationAffinty")
    assert not g.has_field_path("container", "NodePool", "config.machineType.x")
    assert g.has_field_path("storage", "Bucket", "iamConfiguration.uniformBucketLevelAccess.enabled")
    assert g.has_field_path("storage", "Bucket", "lifecycle.rule.action.storageClass")
    assert g.schema_field_type("container", "NodeConfig", "taints") == "[NodeTaint]"
    assert g.schema_field_type("container", "NodeConfig", "labels") == "{string}"
    with pytest.raises(g.GcpCatalogError, match=r"not in catalog\.json"):
        g.schema_fields("container", "NoSuchSchema")


# ---- the hand-kept table: sources ---------------------------------------------------------------


def _cited(node: object) -> list[str]:
    """Every source key a data node cites (`source`, `sources`, `also`, `zones_source`, `*_sources`)."""
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("source", "zones_source", "gpu_source", "page"):
                found.append(value)
            elif key in ("sources", "also", "positions") or key.endswith("_sources"):
                found.extend(value)
            else:
                found.extend(_cited(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(_cited(item))
    return found


def test_every_source_is_a_public_address_and_every_citation_resolves() -> None:
    data = g._machines()
    for key, url in g.sources().items():
        assert re.fullmatch(r"https://(cloud\.google\.com|github\.com)/\S+", url), key
    cited = _cited({k: v for k, v in data.items() if k != "sources"})
    assert set(cited) == set(g.sources()), set(cited) ^ set(g.sources())


def test_every_row_has_a_source() -> None:
    data = g._machines()
    for name, body in data["tpu_generations"].items():
        assert body["gke_accelerator_sources"], name
        for machine, entry in body["machine_types"].items():
            assert entry["source"], machine
        for zone in body["zones"]:
            assert zone["source"], (name, zone)
        for group in body["shapes"]:
            assert group["sources"], (name, group["machine_type"])
        if body["min_gke_version"] is not None:
            assert body["min_gke_version"]["source"], name
    for group in data["gpu_machine_types"]:
        assert group["sources"] and group["zones_source"], group["machine_types"]
    for group in data["cpu_machine_types"]:
        assert group["source"], group["family"]
    for disagreement in data["disagreements"]:
        assert set(disagreement["positions"]) <= set(g.sources()), disagreement["id"]
        assert len(disagreement["positions"]) >= 2 and disagreement["followed"], disagreement["id"]


def test_label_names_match_the_module_constants() -> None:
    assert g.labels() == {
        "tpu_accelerator": g.TPU_ACCELERATOR_LABEL, "tpu_topology": g.TPU_TOPOLOGY_LABEL,
        "tpu_resource": g.TPU_RESOURCE, "gpu_accelerator": g.GPU_ACCELERATOR_LABEL, "gpu_resource": g.GPU_RESOURCE,
    }


# ---- TPU shapes ---------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", g.tpu_shapes(), ids=lambda s: f"{s.machine_type}-{s.topology}")
def test_shape_arithmetic(shape: g.TpuShape) -> None:
    generation = g.tpu_generation(shape.generation)
    assert len(shape.dimensions) == generation.dimensions
    assert all(d >= 1 for d in shape.dimensions)
    assert shape.chips_per_vm * shape.vms == math.prod(shape.dimensions) == shape.total_chips
    assert shape.single_host == (shape.vms == 1) != shape.multi_host
    machine = g.machine_type(shape.machine_type)
    assert machine is not None and machine.kind == "tpu"
    assert shape.tpu_resource_per_vm == shape.chips_per_vm == machine.accelerator_count
    assert shape.node_labels == {g.TPU_ACCELERATOR_LABEL: generation.gke_accelerator,
                                 g.TPU_TOPOLOGY_LABEL: shape.topology}
    assert shape.source_urls and all(url.startswith("https://") for url in shape.source_urls)


def test_three_dimensional_topologies_follow_the_cloud_tpu_notation() -> None:
    """tpu/docs/types-topologies: in AxBxC every dimension is <= 4, or every one is a multiple of 4."""
    for shape in g.tpu_shapes():
        dims = shape.dimensions
        if len(dims) == 3:
            assert all(d <= 4 for d in dims) or all(d % 4 == 0 for d in dims), shape


def test_v5p_cloud_tpu_page_hosts_agree_with_the_table() -> None:
    """tpu/docs/v5p lists Hosts per slice shape; for v5p the GKE VM count is the same."""
    page = {"2x2x1": 1, "2x2x2": 2, "2x4x4": 8, "4x4x4": 16, "4x4x8": 32, "4x8x8": 64, "8x8x8": 128,
            "8x8x16": 256, "8x16x16": 512, "16x16x16": 1024, "16x16x24": 1536}
    for topology, hosts in page.items():
        shape = g.tpu_shape("ct5p-hightpu-4t", topology)
        assert shape is not None and shape.vms == hosts, topology
    assert len(g.tpu_topologies("ct5p-hightpu-4t")) == 96


@pytest.mark.parametrize(
    ("machine_type", "topology", "vms", "chips_per_vm", "multi_host"),
    [
        ("ct5p-hightpu-4t", "2x2x4", 4, 4, True),
        ("ct5p-hightpu-4t", "2x2x1", 1, 4, False),
        ("ct5lp-hightpu-8t", "2x4", 1, 8, False),
        ("ct5lp-hightpu-4t", "2x4", 2, 4, True),
        ("ct5lp-hightpu-4t", "2x2", 1, 4, False),
        ("ct5lp-hightpu-1t", "1x1", 1, 1, False),
        ("ct5lp-hightpu-4t", "16x16", 64, 4, True),
        ("ct6e-standard-4t", "4x4", 4, 4, True),
        ("ct6e-standard-8t", "2x4", 1, 8, False),
        ("ct6e-standard-1t", "1x1", 1, 1, False),
        ("ct4p-hightpu-4t", "2x2x1", 1, 4, False),
        ("ct4p-hightpu-4t", "2x2x2", 2, 4, True),
        ("tpu7x-standard-4t", "2x2x2", 2, 4, True),
        ("tpu7x-standard-1t", "1x1x1", 1, 1, False),  # XPK at 367c838: the 1-chip TPU7x VM
    ],
)
def test_known_shapes_resolve(machine_type: str, topology: str, vms: int, chips_per_vm: int, multi_host: bool) -> None:
    shape = g.tpu_shape(machine_type, topology)
    assert shape is not None
    assert (shape.vms, shape.chips_per_vm, shape.multi_host) == (vms, chips_per_vm, multi_host)
    assert shape.generation == g.tpu_generation_of(machine_type)


@pytest.mark.parametrize(
    ("machine_type", "topology"),
    [
        ("ct5p-hightpu-4t", "3x3x3"),  # not a v5p shape
        ("ct5p-hightpu-4t", "2x2"),  # v5p topologies are 3D
        ("ct5lp-hightpu-8t", "4x4"),  # the 8-chip v5e VM is single-host only
        ("ct5lp-hightpu-1t", "2x2"),
        ("ct6e-standard-4t", "1x1"),  # listed by PathwaysJob; 1 chip on a 4-chip VM (disagreement v6e-hosts)
        ("ct6e-standard-8t", "4x4"),
        ("ct4p-hightpu-4t", "4x4x16"),  # PathwaysJob only (disagreement v4-large)
        ("ct4p-hightpu-4t", "2x2"),
        ("n2-standard-8", "2x2"),
        ("ct5p-hightpu-8t", "2x2x1"),  # no such machine type
    ],
)
def test_invalid_shapes_do_not_resolve(machine_type: str, topology: str) -> None:
    assert g.tpu_shape(machine_type, topology) is None


def test_topologies_per_machine_type() -> None:
    assert g.tpu_topologies("ct5lp-hightpu-8t") == ["2x4"]
    assert g.tpu_topologies("ct5lp-hightpu-4t") == ["2x2", "2x4", "4x4", "4x8", "8x8", "8x16", "16x16"]
    assert g.tpu_topologies("ct6e-standard-4t") == ["2x2", "2x4", "4x4", "4x8", "8x8", "8x16", "16x16"]
    assert g.tpu_topologies("ct4p-hightpu-4t")[:4] == ["2x2x1", "2x2x2", "2x2x4", "2x4x4"]
    assert g.tpu_topologies("n2-standard-8") == []
    assert g.tpu_topologies("nope") == []


def test_single_host_shapes_are_the_documented_ones() -> None:
    """plan-tpus and tpu-multislice: these (and only these) are single-host slices."""
    single = {(s.machine_type, s.topology) for s in g.tpu_shapes() if s.single_host}
    assert single == {
        ("ct4p-hightpu-4t", "2x2x1"), ("ct5p-hightpu-4t", "2x2x1"), ("tpu7x-standard-4t", "2x2x1"),
        ("tpu7x-standard-1t", "1x1x1"),
        ("ct5lp-hightpu-1t", "1x1"), ("ct5lp-hightpu-4t", "2x2"), ("ct5lp-hightpu-8t", "2x4"),
        ("ct6e-standard-1t", "1x1"), ("ct6e-standard-4t", "2x2"), ("ct6e-standard-8t", "2x4"),
    }


def test_generations_labels_and_versions() -> None:
    assert {"v4", "v5e", "v5p", "v6e"} <= set(g.tpu_generations())
    expected = {"v4": "tpu-v4-podslice", "v5e": "tpu-v5-lite-podslice", "v5p": "tpu-v5p-slice",
                "v6e": "tpu-v6e-slice", "tpu7x": "tpu7x"}
    assert {name: g.tpu_generation(name).gke_accelerator for name in g.tpu_generations()} == expected
    for name in g.tpu_generations():
        version = g.minimum_gke_version(name)
        assert version is not None and re.fullmatch(r"1\.\d+\.\d+-gke\.\d+", version), name
    assert g.minimum_gke_version("v6e") == "1.31.2-gke.1115000"
    assert g.tpu_generation("v6e").min_gke_version_confirmed
    assert g.tpu_generation_of("ct5p-hightpu-4t") == "v5p"
    assert g.tpu_generation_of("ct6e-standard-8t") == "v6e"
    assert g.tpu_generation_of("a3-highgpu-8g") is None
    with pytest.raises(g.GcpCatalogError):
        g.tpu_generation("v9")


def test_zones() -> None:
    assert g.tpu_zones("v4") == {"us-central2-b"}
    assert {"us-central1-a", "us-east5-a"} <= g.tpu_zones("v5p", include_unconfirmed=False)
    assert "europe-west4-b" in g.tpu_zones("v5p") - g.tpu_zones("v5p", include_unconfirmed=False)
    assert "us-east5-b" in g.tpu_zones("v6e")
    assert g.machine_type_zones("ct5lp-hightpu-4t") == g.tpu_zones("v5e")
    h200 = g.machine_type_zones("a3-ultragpu-8g")
    assert h200 is not None and "us-south1-b" in h200
    assert g.machine_type_zones("n2-standard-8") is None
    h100 = g.machine_type_zones("a3-highgpu-8g")
    assert h100 is not None and h100 < g.gpu_zones("nvidia-h100-80gb")  # europe-west8-c: 1g/2g/4g only
    zone = re.compile(r"^[a-z]+-[a-z]+[0-9]+-([a-z]|ai[0-9][a-z]?)$")
    for generation in g.tpu_generations():
        assert all(zone.match(z) for z in g.tpu_zones(generation)), generation
    for accelerator in g.gpu_accelerators():
        assert all(zone.match(z) for z in g.gpu_zones(accelerator)), accelerator


# ---- machine types -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "accelerator", "count"),
    [
        ("a3-highgpu-1g", "nvidia-h100-80gb", 1), ("a3-highgpu-2g", "nvidia-h100-80gb", 2),
        ("a3-highgpu-4g", "nvidia-h100-80gb", 4), ("a3-highgpu-8g", "nvidia-h100-80gb", 8),
        ("a3-megagpu-8g", "nvidia-h100-mega-80gb", 8), ("a3-ultragpu-8g", "nvidia-h200-141gb", 8),
        ("a2-highgpu-1g", "nvidia-tesla-a100", 1), ("a2-highgpu-8g", "nvidia-tesla-a100", 8),
        ("a2-megagpu-16g", "nvidia-tesla-a100", 16), ("a2-ultragpu-8g", "nvidia-a100-80gb", 8),
        ("g2-standard-12", "nvidia-l4", 1), ("g2-standard-24", "nvidia-l4", 2), ("g2-standard-96", "nvidia-l4", 8),
        ("ct5p-hightpu-4t", "tpu-v5p-slice", 4), ("ct5lp-hightpu-8t", "tpu-v5-lite-podslice", 8),
        ("n2-standard-8", None, 0), ("n2d-standard-224", None, 0), ("c3-standard-22", None, 0),
        ("e2-standard-4", None, 0),
    ],
)
def test_machine_types(name: str, accelerator: str | None, count: int) -> None:
    entry = g.machine_type(name)
    assert entry is not None
    assert (entry.accelerator, entry.accelerator_count) == (accelerator, count)
    assert name in g.machine_types()


def test_unknown_machine_types() -> None:
    for name in ("n2-standard-3", "a3-highgpu-3g", "ct5p-hightpu-8t", "p5.48xlarge", "custom-4-16384"):
        assert g.machine_type(name) is None and name not in g.machine_types()


def test_gpu_machine_types_name_their_gpu_in_the_machine_name() -> None:
    for name in g.machine_types():
        entry = g.machine_type(name)
        assert entry is not None
        match = re.search(r"-(\d+)g$", name)
        if entry.kind == "gpu" and match:
            assert int(match.group(1)) == entry.accelerator_count, name
        if entry.kind == "tpu":
            assert name.endswith(f"-{entry.accelerator_count}t"), name


# ---- agreement with the version matrix ----------------------------------------------------------


def test_tpu_machine_types_agree_with_the_matrix_patterns() -> None:
    """accelerators.yaml (matrix vocabulary) lists instance_types patterns per accelerator: each TPU machine
    type of a generation the matrix knows matches its accelerator's patterns and no other accelerator's."""
    accelerators = matrix.accelerators()
    for generation_name in g.tpu_generations():
        generation = g.tpu_generation(generation_name)
        for machine in generation.machine_types:
            owners = {name for name, facts in accelerators.items()
                      if any(fnmatch.fnmatchcase(machine, pattern) for pattern in facts.instance_types)}
            if generation.matrix_accelerator is None:
                assert owners == set(), machine  # e.g. TPU7x: no matrix accelerator yet
            else:
                assert owners == {generation.matrix_accelerator}, (machine, owners)
            assert g.matrix_accelerator_of(machine) == generation.matrix_accelerator
    assert {g.tpu_generation(n).matrix_accelerator for n in ("v4", "v5e", "v5p", "v6e")} == {
        "google-tpu-v4", "google-tpu-v5e", "google-tpu-v5p", "google-tpu-v6e"}
    for name in ("google-tpu-v4", "google-tpu-v5e", "google-tpu-v5p", "google-tpu-v6e"):
        generation = g.tpu_generation_for_accelerator(name)
        assert generation is not None and name == g.tpu_generation(generation).matrix_accelerator
        for pattern in accelerators[name].instance_types:
            assert any(fnmatch.fnmatchcase(m, pattern) for m in g.tpu_generation(generation).machine_types), pattern


def test_gpu_matrix_names_exist_and_fit_the_board() -> None:
    accelerators = matrix.accelerators()
    for name in g.machine_types():
        entry = g.machine_type(name)
        assert entry is not None
        if entry.kind != "gpu" or entry.matrix_accelerator is None:
            continue
        facts = accelerators[entry.matrix_accelerator]
        assert facts.is_nvidia, name
        if facts.nvswitch:  # an HGX board: the machine type has all of its GPUs
            assert entry.accelerator_count == facts.gpus_per_node, name
