"""Google Cloud vocabularies and hardware facts checked before anything is sent to Google Cloud.

Pulumi mocks accept any string, pulumi-gcp declares no Literal types, and Google rejects a typo only
halfway through `pulumi up`. Two data files back the GCP layer, the way `aws_catalog` backs the AWS one:

- `catalog.json`: the schemas (field names and types, camelCase) and enums of Google's API
  discovery documents for the resources the layer creates, extracted from the google-api-python-client
  wheel by tools/refresh_gcp_catalog.py; a test fails when the extract differs from the installed wheel.
  A few value sets Google states only in a field's description are parsed from that text and kept
  apart (`described_enum`).
- `machines.yaml`: what no discovery document lists, by hand with a public source per row:
  machine types and their accelerators, the TPU slice shapes GKE accepts keyed on (machine type,
  topology), GKE's node labels and minimum versions per TPU generation, and the zones that offer each
  accelerator. Where sources disagree it records both sides and the one followed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

DATA_PACKAGE = "accelplane.clouds.gcp"
CATALOG_FILE = "catalog.json"
MACHINES_FILE = "machines.yaml"

# GKE node labels and extended resources (machines.yaml `labels`, kept equal by a test).
TPU_ACCELERATOR_LABEL = "cloud.google.com/gke-tpu-accelerator"
TPU_TOPOLOGY_LABEL = "cloud.google.com/gke-tpu-topology"
TPU_RESOURCE = "google.com/tpu"
GPU_ACCELERATOR_LABEL = "cloud.google.com/gke-accelerator"
GPU_RESOURCE = "nvidia.com/gpu"


class GcpCatalogError(RuntimeError):
    """A GCP data file is malformed, unsourced, or asked for something it does not hold (a defect in
    accelplane or in the caller, never in the user's declaration)."""


# ---- discovery documents ----------------------------------------------------------------------


@cache
def _catalog() -> dict[str, Any]:
    raw = resources.files(DATA_PACKAGE).joinpath(CATALOG_FILE).read_text(encoding="utf-8")
    return json.loads(raw)


def _schema(api: str, schema: str) -> dict[str, Any]:
    try:
        return _catalog()["apis"][api]["schemas"][schema]
    except KeyError:
        raise GcpCatalogError(
            f"{api} schema {schema!r} is not in {CATALOG_FILE}: add its root to APIS in tools/refresh_gcp_catalog.py"
        ) from None


def catalog_source() -> dict[str, Any]:
    """Which google-api-python-client, discovery document ids and revisions the catalog came from."""
    return dict(_catalog()["source"])


def apis() -> frozenset[str]:
    return frozenset(_catalog()["apis"])


@cache
def schema_fields(api: str, schema: str) -> frozenset[str]:
    """The (camelCase) field names of a schema, e.g. `schema_fields("container", "NodeConfig")`.

    Inline objects are named after their parent: `("storage", "Bucket.iamConfiguration")`."""
    return frozenset(_schema(api, schema)["fields"])


def schema_field_type(api: str, schema: str, field: str) -> str:
    """`Schema` for a reference, `[T]` for a list, `{T}` for a map, else the JSON type (`string`, ...)."""
    fields = _schema(api, schema)["fields"]
    if field not in fields:
        raise GcpCatalogError(f"{api} {schema} has no field {field!r}")
    return fields[field]


def has_field_path(api: str, schema: str, path: str) -> bool:
    """Whether a dotted path of (camelCase) keys exists below `schema`, through references, lists and maps:
    `has_field_path("container", "NodePool", "config.reservationAffinity.consumeReservationType")`."""
    current = schema
    steps = path.split(".")
    for index, step in enumerate(steps):
        fields = _schema(api, current)["fields"]
        if step not in fields:
            return False
        kind = fields[step].strip("[]{}")
        if index < len(steps) - 1:
            if kind not in _catalog()["apis"][api]["schemas"]:
                return False
            current = kind
    return True


@cache
def api_enum(api: str, schema: str, field: str) -> frozenset[str]:
    """Every value the schema enum of `schema.field` lists (including `*_UNSPECIFIED` sentinels)."""
    enums = _schema(api, schema).get("enums", {})
    if field not in enums:
        raise GcpCatalogError(
            f"{api} {schema}.{field} is not an enum in the discovery document"
            + (" (its values are in the description: use described_enum)" if _described(api, schema, field) else "")
        )
    return frozenset(enums[field])


def deprecated_enum_values(api: str, schema: str, field: str) -> frozenset[str]:
    """The values of an enum the discovery document marks deprecated (`enumDeprecated`)."""
    api_enum(api, schema, field)
    return frozenset(_schema(api, schema).get("deprecated_enum_values", {}).get(field, ()))


def container_enum(schema: str, field: str) -> frozenset[str]:
    """`api_enum("container", schema, field)`: e.g. `container_enum("WorkloadMetadataConfig", "mode")`."""
    return api_enum("container", schema, field)


def _described(api: str, schema: str, field: str) -> dict[str, Any] | None:
    return _catalog()["described_enums"].get(api, {}).get(schema, {}).get(field)


def described_enum(api: str, schema: str, field: str) -> frozenset[str]:
    """Values Google states only in the field's description (not a schema enum), parsed by the refresh
    tool; `described_enum_text` gives the sentence they came from."""
    entry = _described(api, schema, field)
    if entry is None:
        raise GcpCatalogError(f"{api} {schema}.{field} has no values parsed from its description")
    return frozenset(entry["values"])


def described_enum_text(api: str, schema: str, field: str) -> str:
    described_enum(api, schema, field)
    entry = _described(api, schema, field)
    assert entry is not None
    return entry["text"]


def _settable(values: frozenset[str]) -> frozenset[str]:
    """Without the sentinels a request never sets (`*_UNSPECIFIED`, `UNSPECIFIED*`, `UNKNOWN`)."""
    return frozenset(v for v in values if not (v.endswith("UNSPECIFIED") or v.startswith("UNSPECIFIED")
                                               or v == "UNKNOWN"))


# Named accessors: the values a request may set (unspecified/unknown sentinels removed).

def workload_metadata_modes() -> frozenset[str]:
    return _settable(container_enum("WorkloadMetadataConfig", "mode"))


def reservation_affinity_types() -> frozenset[str]:
    return _settable(container_enum("ReservationAffinity", "consumeReservationType"))


def placement_policy_types() -> frozenset[str]:
    return _settable(container_enum("PlacementPolicy", "type"))


def gpu_driver_versions() -> frozenset[str]:
    return _settable(container_enum("GPUDriverInstallationConfig", "gpuDriverVersion"))


def release_channels() -> frozenset[str]:
    return _settable(container_enum("ReleaseChannel", "channel"))


def database_encryption_states() -> frozenset[str]:
    return _settable(container_enum("DatabaseEncryption", "state"))


def node_taint_effects() -> frozenset[str]:
    return _settable(container_enum("NodeTaint", "effect"))


def logging_components() -> frozenset[str]:
    return _settable(container_enum("LoggingComponentConfig", "enableComponents"))


def monitoring_components() -> frozenset[str]:
    return _settable(container_enum("MonitoringComponentConfig", "enableComponents"))


def ssl_policy_profiles() -> frozenset[str]:
    return api_enum("compute", "SslPolicy", "profile")


def ssl_min_tls_versions() -> frozenset[str]:
    return api_enum("compute", "SslPolicy", "minTlsVersion")


def firewall_directions() -> frozenset[str]:
    return api_enum("compute", "Firewall", "direction")


def security_policy_types() -> frozenset[str]:
    return api_enum("compute", "SecurityPolicy", "type")


def security_policy_rule_actions() -> frozenset[str]:
    """Cloud Armor rule actions, from the description (not an enum): `allow`, `deny(403)`, ..."""
    return described_enum("compute", "SecurityPolicyRule", "action")


def address_types() -> frozenset[str]:
    return _settable(api_enum("compute", "Address", "addressType"))


def network_tiers() -> frozenset[str]:
    return api_enum("compute", "Address", "networkTier")


def gcs_public_access_prevention() -> frozenset[str]:
    """`enforced`, `inherited`: from the description of Bucket.iamConfiguration.publicAccessPrevention."""
    return described_enum("storage", "Bucket.iamConfiguration", "publicAccessPrevention")


def gcs_storage_classes() -> frozenset[str]:
    """Bucket storage classes, from the description of Bucket.storageClass (legacy MULTI_REGIONAL, REGIONAL
    and DURABLE_REDUCED_AVAILABILITY included)."""
    return described_enum("storage", "Bucket", "storageClass")


def gcs_lifecycle_actions() -> frozenset[str]:
    return described_enum("storage", "Bucket.lifecycle.rule.action", "type")


def kms_key_purposes() -> frozenset[str]:
    return _settable(api_enum("cloudkms", "CryptoKey", "purpose"))


def kms_protection_levels() -> frozenset[str]:
    return _settable(api_enum("cloudkms", "CryptoKeyVersionTemplate", "protectionLevel"))


def kms_algorithms() -> frozenset[str]:
    return _settable(api_enum("cloudkms", "CryptoKeyVersionTemplate", "algorithm"))


def secret_replication_modes() -> frozenset[str]:
    """The shapes of Secret Manager replication (`automatic`, `userManaged`): the fields of Replication,
    of which a secret sets exactly one."""
    return schema_fields("secretmanager", "Replication")


# ---- machine types, TPU shapes, zones -----------------------------------------------------------


@dataclass(frozen=True)
class TpuShape:
    """One TPU slice shape GKE accepts: a (machine type, topology) pair."""

    generation: str
    machine_type: str
    topology: str
    chips_per_vm: int
    vms: int
    gke_accelerator: str
    sources: tuple[str, ...]

    @property
    def dimensions(self) -> tuple[int, ...]:
        return tuple(int(part) for part in self.topology.split("x"))

    @property
    def total_chips(self) -> int:
        return self.chips_per_vm * self.vms

    @property
    def multi_host(self) -> bool:
        return self.vms > 1

    @property
    def single_host(self) -> bool:
        return self.vms == 1

    @property
    def tpu_resource_per_vm(self) -> int:
        """`google.com/tpu` each node (VM) of the slice offers: all its chips."""
        return self.chips_per_vm

    @property
    def node_labels(self) -> dict[str, str]:
        """The node selector that lands a pod on this slice."""
        return {TPU_ACCELERATOR_LABEL: self.gke_accelerator, TPU_TOPOLOGY_LABEL: self.topology}

    @property
    def source_urls(self) -> tuple[str, ...]:
        return tuple(source_url(key) for key in self.sources)


@dataclass(frozen=True)
class TpuGeneration:
    name: str
    matrix_accelerator: str | None
    gke_accelerator: str
    dimensions: int
    machine_types: tuple[str, ...]
    min_gke_version: str | None
    min_gke_version_confirmed: bool
    min_gke_version_autopilot: str | None  # GKE Autopilot's own minimum, where Google gives one apart
    zones: tuple[str, ...]
    unconfirmed_zones: tuple[str, ...]


@dataclass(frozen=True)
class MachineType:
    name: str
    kind: str  # "tpu", "gpu" or "cpu"
    accelerator: str | None  # GKE label value: tpu-v5p-slice, nvidia-h100-80gb; None for CPU
    accelerator_count: int  # chips or GPUs per VM; 0 for CPU
    matrix_accelerator: str | None  # the version matrix's name (accelerators.yaml), None when it has none
    tpu_generation: str | None
    sources: tuple[str, ...]


def _yaml_loader() -> type[yaml.SafeLoader]:
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@cache
def _machines() -> dict[str, Any]:
    text = resources.files(DATA_PACKAGE).joinpath(MACHINES_FILE).read_text(encoding="utf-8")
    data = yaml.load(text, Loader=_yaml_loader())
    if not isinstance(data, dict):
        raise GcpCatalogError(f"{MACHINES_FILE}: expected a mapping at the top level")
    return data


def sources() -> dict[str, str]:
    """Source key -> public address, for every source the hand-kept table cites."""
    return {key: entry["url"] for key, entry in _machines()["sources"].items()}


def source_url(key: str) -> str:
    try:
        return sources()[key]
    except KeyError:
        raise GcpCatalogError(f"{MACHINES_FILE}: unknown source {key!r}") from None


def labels() -> dict[str, str]:
    """GKE's TPU/GPU label and resource names as the data file records them."""
    return {key: value for key, value in _machines()["labels"].items() if key not in ("source", "gpu_source")}


@cache
def _tpu_index() -> tuple[dict[str, TpuGeneration], dict[tuple[str, str], TpuShape], dict[str, MachineType]]:
    generations: dict[str, TpuGeneration] = {}
    shapes: dict[tuple[str, str], TpuShape] = {}
    machines: dict[str, MachineType] = {}
    for name, body in _machines()["tpu_generations"].items():
        minimum = body.get("min_gke_version") or {}
        zones = body.get("zones", [])
        chips = {machine: entry["chips_per_vm"] for machine, entry in body["machine_types"].items()}
        generations[name] = TpuGeneration(
            name=name,
            matrix_accelerator=body.get("matrix_accelerator"),
            gke_accelerator=body["gke_accelerator"],
            dimensions=body["dimensions"],
            machine_types=tuple(body["machine_types"]),
            min_gke_version=minimum.get("version"),
            min_gke_version_confirmed=bool(minimum) and minimum.get("confirmed", True),
            min_gke_version_autopilot=(body.get("min_gke_version_autopilot") or {}).get("version"),
            zones=tuple(z["zone"] for z in zones if z.get("confirmed", True)),
            unconfirmed_zones=tuple(z["zone"] for z in zones if not z.get("confirmed", True)),
        )
        for machine, entry in body["machine_types"].items():
            if machine in machines:
                raise GcpCatalogError(f"{MACHINES_FILE}: machine type {machine} listed twice")
            machines[machine] = MachineType(
                name=machine, kind="tpu", accelerator=body["gke_accelerator"], accelerator_count=chips[machine],
                matrix_accelerator=body.get("matrix_accelerator"), tpu_generation=name,
                sources=(entry["source"],),
            )
        for group in body["shapes"]:
            machine = group["machine_type"]
            if machine not in chips:
                raise GcpCatalogError(f"{MACHINES_FILE}: {name} shape on unlisted machine type {machine}")
            for topology, vms in group["topologies"].items():
                key = (machine, str(topology))
                if key in shapes:
                    raise GcpCatalogError(f"{MACHINES_FILE}: shape {machine} {topology} listed twice")
                shapes[key] = TpuShape(
                    generation=name, machine_type=machine, topology=str(topology), chips_per_vm=chips[machine],
                    vms=int(vms), gke_accelerator=body["gke_accelerator"], sources=tuple(group["sources"]),
                )
    return generations, shapes, machines


@cache
def _machine_index() -> dict[str, MachineType]:
    machines = dict(_tpu_index()[2])

    def add(entry: MachineType) -> None:
        if entry.name in machines:
            raise GcpCatalogError(f"{MACHINES_FILE}: machine type {entry.name} listed twice")
        machines[entry.name] = entry

    for group in _machines()["gpu_machine_types"]:
        for name, count in group["machine_types"].items():
            add(MachineType(
                name=name, kind="gpu", accelerator=group["accelerator"], accelerator_count=count,
                matrix_accelerator=group.get("matrix_accelerator"), tpu_generation=None,
                sources=tuple(group["sources"]),
            ))
    for group in _machines()["cpu_machine_types"]:
        for vcpus in group["vcpus"]:
            add(MachineType(
                name=f"{group['family']}-{vcpus}", kind="cpu", accelerator=None, accelerator_count=0,
                matrix_accelerator=None, tpu_generation=None, sources=(group["source"],),
            ))
    return machines


def machine_types() -> frozenset[str]:
    """Every machine type the GKE layer accepts for a node pool (TPU, GPU and general-purpose CPU)."""
    return frozenset(_machine_index())


def machine_type(name: str) -> MachineType | None:
    return _machine_index().get(name)


def tpu_generations() -> tuple[str, ...]:
    """`v4`, `v5e`, `v5p`, `v6e`, `tpu7x`: the generations the table holds."""
    return tuple(_tpu_index()[0])


def tpu_generation(name: str) -> TpuGeneration:
    try:
        return _tpu_index()[0][name]
    except KeyError:
        raise GcpCatalogError(f"no TPU generation {name!r}; known: {', '.join(tpu_generations())}") from None


def tpu_generation_of(machine_type: str) -> str | None:
    """`ct5p-hightpu-4t` -> `v5p`; None for a machine type without TPUs or unknown."""
    entry = _tpu_index()[2].get(machine_type)
    return entry.tpu_generation if entry else None


def tpu_shape(machine_type: str, topology: str) -> TpuShape | None:
    """The slice shape of a (machine type, topology) pair GKE accepts, or None when it is not valid."""
    return _tpu_index()[1].get((machine_type, topology))


def tpu_shapes() -> tuple[TpuShape, ...]:
    return tuple(_tpu_index()[1].values())


def tpu_topologies(machine_type: str) -> list[str]:
    """The topologies valid on a TPU machine type, smallest slice first ([] for other machine types)."""
    found = [shape for (machine, _), shape in _tpu_index()[1].items() if machine == machine_type]
    return [shape.topology for shape in sorted(found, key=lambda s: (s.total_chips, s.dimensions))]


def gke_version_key(version: str) -> tuple[int, ...]:
    """1.33.5-gke.1162000 -> (1, 33, 5, 1162000): GKE versions (and Gateway API releases, 1.2.0 -> (1, 2, 0))
    order by these numbers."""
    return tuple(int(part) for part in re.findall(r"\d+", version))


def minimum_gke_version(generation: str) -> str | None:
    """The lowest GKE (Standard) version that runs the generation's node pools, when recorded."""
    return tpu_generation(generation).min_gke_version


def matrix_accelerator_of(machine_type: str) -> str | None:
    """The version matrix's accelerator name for a TPU or GPU machine type (`ct5p-hightpu-4t` ->
    `google-tpu-v5p`, `a3-highgpu-8g` -> `nvidia-hgx-h100-8gpu`); None when unknown or not recorded."""
    entry = _machine_index().get(machine_type)
    return entry.matrix_accelerator if entry else None


def tpu_generation_for_accelerator(matrix_accelerator: str) -> str | None:
    """`google-tpu-v5p` -> `v5p`."""
    for generation in _tpu_index()[0].values():
        if generation.matrix_accelerator == matrix_accelerator:
            return generation.name
    return None


def tpu_zones(generation: str, *, include_unconfirmed: bool = True) -> frozenset[str]:
    """Zones that offer a TPU generation (see `confirmed: false` in the data file)."""
    entry = tpu_generation(generation)
    return frozenset(entry.zones + (entry.unconfirmed_zones if include_unconfirmed else ()))


@cache
def _gpu_zones() -> dict[str, frozenset[str]]:
    return {name: frozenset(group["zones"]) for group in _machines()["gpu_machine_types"]
            for name in group["machine_types"]}


def machine_type_zones(name: str) -> frozenset[str] | None:
    """Zones that offer a GPU or TPU machine type; None for CPU machine types (no zone list is kept for
    them) and for unknown names."""
    entry = _machine_index().get(name)
    if entry is None or entry.kind == "cpu":
        return None
    if entry.kind == "tpu":
        assert entry.tpu_generation is not None
        return tpu_zones(entry.tpu_generation)
    return _gpu_zones()[name]


def gpu_zones(accelerator: str) -> frozenset[str]:
    """Zones that offer a GPU model (GKE label value, e.g. `nvidia-h100-80gb`) in any machine type."""
    zones = [_gpu_zones()[entry.name] for entry in _machine_index().values()
             if entry.kind == "gpu" and entry.accelerator == accelerator]
    if not zones:
        raise GcpCatalogError(f"no GPU machine type with {accelerator!r}")
    return frozenset().union(*zones)


def gpu_accelerators() -> frozenset[str]:
    return frozenset(entry.accelerator for entry in _machine_index().values()
                     if entry.kind == "gpu" and entry.accelerator is not None)


