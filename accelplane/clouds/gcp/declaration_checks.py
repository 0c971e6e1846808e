"""Checks of a declaration for Google Cloud: the facts of GCP a stack must agree with before `pulumi up`.

Project settings and how the GKE version is pinned, region and zones, Google's label rules, the VPC
ranges, machine types with their accelerators and TPU slice shapes, reservations, GCS storage
classes, the endpoint's certificate, the discounts and budgets Google Cloud has. Keys of other
clouds never get here: `GcpPlatform` has none.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator

from accelplane.cloud_support import Issue
from accelplane.clouds.gcp import catalog as gcp_catalog
from accelplane.clouds.gcp import flex_start, future_reservation
from accelplane.clouds.gcp.declaration import GcpNodePool, GcpPlatform
from accelplane.declaration.storage import unknown_storage_classes
from accelplane.suggest import did_you_mean

# Google Cloud labels (https://cloud.google.com/resource-manager/docs/labels-overview#requirements):
# at most 64 per resource; keys 1-63 characters starting with a lower-case letter; keys and values
# only lower-case letters, digits, '_' and '-' (international lower-case letters allowed).
MAX_LABELS = 64
_LABEL_KEY = re.compile(r"^[a-z\u00e0-\u024f][a-z0-9_\u00e0-\u024f-]{0,62}$")
_LABEL_VALUE = re.compile(r"^[a-z0-9_\u00e0-\u024f-]{0,63}$")
# The most labels a component adds to the platform's own (a bucket's role); kept true by a test.
COMPONENT_LABELS = 2
_REGION = re.compile(r"^[a-z]+-[a-z]+[0-9]+$")
_ZONE_SUFFIX = re.compile(r"[a-z]|ai[0-9]+[a-z]?")
# Storage classes a lifecycle rule may move objects to: the storage.v1 vocabulary without the
# legacy classes Google no longer offers for new data.
_LEGACY_STORAGE_CLASSES = frozenset({"MULTI_REGIONAL", "REGIONAL", "DURABLE_REDUCED_AVAILABILITY"})


def gcp_problems(platform: GcpPlatform) -> Iterator[Issue]:
    yield from _settings(platform)
    yield from _labels(platform)
    yield from _network(platform)
    yield from _pools(platform)
    yield from _buckets(platform)
    yield from _endpoint(platform)
    yield from _cost(platform)


def _settings(platform: GcpPlatform) -> Iterator[Issue]:
    if not _REGION.match(platform.region):
        yield ("region",), f"{platform.region!r} is not a Google Cloud region (e.g. us-central1, europe-west4)"
    settings = platform.gcp
    if settings is None:
        yield ("gcp",), "required field is missing: a Google Cloud stack declares gcp.project and gcp.zones"
        return
    for index, zone in enumerate(settings.zones):
        # Zones are <region>-<letter>, and AI zones <region>-ai<n><letter> (us-central1-ai1a).
        if not zone.startswith(f"{platform.region}-") or not _ZONE_SUFFIX.fullmatch(zone[len(platform.region) + 1:]):
            yield ("gcp", "zones", index), f"zone {zone!r} is not a zone of region {platform.region}"
    if settings.gke_version is None and settings.release_channel is None:
        yield (("gcp", "gke_version"), "required unless gcp.release_channel is declared: the GKE version is pinned, "
               "e.g. 1.33.5-gke.1162000")
    elif settings.gke_version is not None and not settings.gke_version.startswith(f"{platform.kubernetes_version}."):
        yield (("gcp", "gke_version"),
               f"{settings.gke_version} is not a {platform.kubernetes_version} version (kubernetes_version)")


def _labels(platform: GcpPlatform) -> Iterator[Issue]:
    labels = platform.resource_labels
    room = MAX_LABELS - COMPONENT_LABELS
    if len(labels) > room:
        yield (("tags", "extra"), f"{len(labels)} labels, but Google Cloud allows {MAX_LABELS} per resource and "
               f"components add up to {COMPONENT_LABELS}: at most {room - (len(labels) - len(platform.tags.extra))} "
               "here")
        return
    declared_at: dict[str, tuple[str | int, ...]] = {
        "accelplane-platform": ("name",), "accelplane-environment": ("environment",),
        "owner": ("tags", "owner"), "cost-centre": ("tags", "cost_centre"),
    }
    for key, value in labels.items():
        path = ("tags", "extra", key) if key in platform.tags.extra else declared_at.get(key, ("tags",))
        if not _LABEL_KEY.match(key):
            yield path, (f"label key {key!r}: Google Cloud label keys start with a lower-case letter and hold only "
                         "lower-case letters, digits, '_' and '-' (at most 63)")
        elif not _LABEL_VALUE.match(value):
            yield path, (f"label value {value!r} of {key!r}: Google Cloud label values hold only lower-case letters, "
                         "digits, '_' and '-' (at most 63)")


def _network(platform: GcpPlatform) -> Iterator[Issue]:
    vpc = platform.network.vpc
    if vpc is None:
        yield ("network", "vpc"), "required field is missing: node_cidr, pods_cidr, services_cidr, control_plane_cidr"
        return
    seen: list[tuple[str, ipaddress.IPv4Network | ipaddress.IPv6Network]] = []
    for key in ("node_cidr", "pods_cidr", "services_cidr", "control_plane_cidr"):
        network = ipaddress.ip_network(getattr(vpc, key))
        for other_key, other in seen:
            if network.overlaps(other):
                yield ("network", "vpc", key), f"{network} overlaps {other_key} {other}"
        seen.append((key, network))
    if ipaddress.ip_network(vpc.control_plane_cidr).prefixlen != 28:
        yield ("network", "vpc", "control_plane_cidr"), "GKE's private control plane takes exactly a /28"


def _pools(platform: GcpPlatform) -> Iterator[Issue]:
    zones = set(platform.gcp.zones) if platform.gcp else set()
    for index, pool in enumerate(platform.node_pools):
        base: tuple[str | int, ...] = ("node_pools", index)
        for zone_index, zone in enumerate(pool.zones or []):
            if zones and zone not in zones:
                yield (*base, "zones", zone_index), f"zone {zone!r} is not one of gcp.zones: {', '.join(sorted(zones))}"
        machine = gcp_catalog.machine_type(pool.instance_type)
        if machine is None:
            yield ((*base, "instance_type"), f"machine type {pool.instance_type!r} is not one accelplane knows on "
                   f"Google Cloud{did_you_mean(pool.instance_type, sorted(gcp_catalog.machine_types()))} "
                   "(accelplane/clouds/gcp/machines.yaml lists each with its source)")
            continue
        if machine.matrix_accelerator != pool.accelerator:
            carried = f"{machine.accelerator_count} x {machine.accelerator}" if machine.accelerator else "nothing"
            expected = f"accelerator: {machine.matrix_accelerator}" if machine.matrix_accelerator else "no accelerator"
            yield (*base, "instance_type"), f"{pool.instance_type} carries {carried}; declare {expected}"
            continue
        if pool.gpu_driver is not None and machine.kind != "gpu":
            yield (*base, "gpu_driver"), f"gpu_driver is for GPU pools; {pool.instance_type} has no GPU"
        if pool.capacity.flex_start:
            yield from _flex_start_pool(platform, pool, base, machine.kind, zones)
        if pool.capacity.future_reservation is not None:
            yield from _future_reservation_pool(platform, pool, base, machine.kind, zones)
        if machine.kind == "tpu":
            yield from _tpu_pool(platform, pool, base, zones)
        elif pool.tpu_topology is not None:
            yield (*base, "tpu_topology"), f"tpu_topology is for TPU pools; {pool.instance_type} is not a TPU machine"
        else:
            offered = gcp_catalog.machine_type_zones(pool.instance_type) or frozenset()
            yield from _zones_offer(pool, base, zones, offered, pool.instance_type)


def _flex_start_pool(
    platform: GcpPlatform, pool: GcpNodePool, base: tuple[str | int, ...], kind: str, zones: set[str]
) -> Iterator[Issue]:
    """A flex-start pool: GPUs or single-host TPUs, autoscaled from zero, on a GKE version and in zones
    that have it (accelplane/clouds/gcp/flex_start.py, with its source)."""
    where = (*base, "capacity", "flex_start")
    if kind not in ("gpu", "tpu"):
        yield where, f"flex-start provisions GPUs and TPUs; {pool.instance_type} has neither"
        return
    if pool.scaling.min or pool.scaling.desired:
        yield (*base, "scaling"), ("a flex-start pool starts empty and GKE adds nodes as capacity frees up: "
                                   "min and desired 0")
    if pool.capacity.queued_provisioning and kind != "gpu":
        yield ((*base, "capacity", "queued_provisioning"),
               f"queued provisioning is for GPU node pools (GKE's guide, {flex_start.QUEUED_SOURCE})")
    shape = gcp_catalog.tpu_shape(pool.instance_type, pool.tpu_topology) if pool.tpu_topology else None
    if shape is not None and shape.multi_host:
        yield where, f"flex-start takes single-host TPU slices only, not {pool.tpu_topology} ({shape.vms} VMs)"
    settings = platform.gcp
    problem = flex_start.version_problem(kind, settings.gke_version if settings else None)
    if problem:
        yield where, problem
    generation = gcp_catalog.tpu_generation_of(pool.instance_type) if kind == "tpu" else None
    if generation is not None:
        offered = flex_start.TPU_ZONES.get(generation)
        if offered is None:
            yield where, f"flex-start has no TPU {generation} ({flex_start.SOURCE})"
        elif not set(pool.zones or zones) <= offered:
            outside = sorted(set(pool.zones or zones) - offered)
            yield where, (f"flex-start has TPU {generation} in {', '.join(sorted(offered))} only, not "
                          f"{', '.join(outside)}")


def _future_reservation_pool(
    platform: GcpPlatform, pool: GcpNodePool, base: tuple[str | int, ...], kind: str, zones: set[str]
) -> Iterator[Issue]:
    """A pool on a calendar-mode future reservation it requests: GPU or single-host TPU machines, in the
    reservation's zone only, empty until `capacity sync` sizes it to the reservation's life
    (accelplane/clouds/gcp/future_reservation.py, with its source)."""
    request = pool.capacity.future_reservation
    assert request is not None
    where = (*base, "capacity", "future_reservation")
    if kind not in ("gpu", "tpu"):
        yield where, f"calendar-mode future reservations are for GPU and TPU VMs; {pool.instance_type} has neither"
        return
    shape = gcp_catalog.tpu_shape(pool.instance_type, pool.tpu_topology) if pool.tpu_topology else None
    if shape is not None and shape.multi_host:
        yield where, (f"a multi-host TPU slice ({pool.tpu_topology}, {shape.vms} VMs) is created whole by `pulumi up`; "
                      "accelplane sizes single-host pools on a future reservation only: reserve with `reservation:`")
    if zones and request.zone not in zones:
        yield (*where, "zone"), f"zone {request.zone!r} is not one of gcp.zones: {', '.join(sorted(zones))}"
    if pool.zones is not None and pool.zones != [request.zone]:
        yield (*base, "zones"), f"the pool's nodes run in the reservation's zone only: zones: [{request.zone}]"
    if pool.scaling.min or pool.scaling.desired:
        yield (*base, "scaling"), ("a pool on a future reservation holds no node before the reservation starts "
                                   "(`accelplane capacity sync` sizes it): min and desired 0")
    if pool.scaling.max > request.machines:
        yield (*base, "scaling", "max"), (f"{pool.scaling.max} nodes, but the future reservation holds "
                                          f"{request.machines} machines")
    name = future_reservation.request_name(platform.name, pool.name)
    if len(name) > 63:
        yield (*base, "name"), f"the request's name {name!r} is longer than Compute Engine's 63 characters"


def _tpu_pool(
    platform: GcpPlatform, pool: GcpNodePool, base: tuple[str | int, ...], zones: set[str]
) -> Iterator[Issue]:
    generation = gcp_catalog.tpu_generation_of(pool.instance_type)
    assert generation is not None  # a TPU machine type has one
    topologies = gcp_catalog.tpu_topologies(pool.instance_type)
    if pool.tpu_topology is None:
        yield (*base, "tpu_topology"), f"required for TPU pools; {pool.instance_type} offers {', '.join(topologies)}"
        return
    shape = gcp_catalog.tpu_shape(pool.instance_type, pool.tpu_topology)
    if shape is None:
        # Name what it offers ("it offers 1 shapes" named none); a long list is counted instead.
        offers = (f"it offers {', '.join(topologies)}" if len(topologies) <= 8
                  else f"it offers {len(topologies)} shapes; the JSON Schema lists them")
        yield ((*base, "tpu_topology"), f"{pool.instance_type} has no {pool.tpu_topology} slice"
               f"{did_you_mean(pool.tpu_topology, topologies)} ({offers})")
        return
    if shape.multi_host and generation == "tpu7x":
        # GKE's Ironwood page: a multi-host TPU7x slice is placed by a workload policy (--placement-policy),
        # which replaces the tpu-topology placement the other generations use; accelplane declares none yet.
        yield ((*base, "tpu_topology"), f"a multi-host TPU7x slice ({pool.tpu_topology}, {shape.vms} VMs) is placed "
               "by a GKE workload policy, which accelplane does not declare yet; use a single-host slice "
               "(tpu7x-standard-1t 1x1x1 or tpu7x-standard-4t 2x2x1; "
               "https://cloud.google.com/kubernetes-engine/docs/concepts/tpu-ironwood)")
        return
    if shape.multi_host:
        scaling = pool.scaling
        if not scaling.min == scaling.desired == scaling.max:
            yield ((*base, "scaling"), f"a {pool.tpu_topology} slice is {shape.vms} VMs that GKE creates and removes "
                   "together: scaling counts whole slices and must be fixed (min = desired = max)")
        if len(pool.zones or zones) != 1:
            yield ((*base, "zones"), "a multi-host TPU slice lives in one zone: declare exactly one zone for this "
                   "pool")
    yield from _zones_offer(pool, base, zones, gcp_catalog.tpu_zones(generation), f"TPU {generation}")
    minimum = gcp_catalog.minimum_gke_version(generation)
    version = platform.gcp.gke_version if platform.gcp else None
    if minimum and version and gcp_catalog.gke_version_key(version) < gcp_catalog.gke_version_key(minimum):
        autopilot = gcp_catalog.tpu_generation(generation).min_gke_version_autopilot
        also = f"; on Autopilot {autopilot} or newer" if autopilot else ""
        yield (("gcp", "gke_version"), f"TPU {generation} pools need GKE {minimum} or newer (pool {pool.name}; "
               f"GKE Standard, the cluster accelplane declares{also})")


def _zones_offer(
    pool: GcpNodePool, base: tuple[str | int, ...], zones: set[str], offered: frozenset[str], what: str
) -> Iterator[Issue]:
    declared = pool.zones or sorted(zones)
    if not offered or not declared:
        return
    missing = [zone for zone in declared if zone not in offered]
    if missing and pool.zones:
        for zone_index, zone in enumerate(pool.zones):
            if zone in missing:
                yield (*base, "zones", zone_index), f"{what} is not offered in {zone}"
    elif missing:
        yield ((*base, "zones"), f"{what} is not offered in {', '.join(missing)} (gcp.zones); declare this pool's "
               f"zones among {', '.join(sorted(z for z in offered if z.startswith(declared[0].rsplit('-', 1)[0])))}")


def _buckets(platform: GcpPlatform) -> Iterator[Issue]:
    classes = gcp_catalog.gcs_storage_classes() - _LEGACY_STORAGE_CLASSES
    yield from unknown_storage_classes(platform.buckets, classes, "Cloud Storage class")


def _endpoint(platform: GcpPlatform) -> Iterator[Issue]:
    endpoint = platform.inference_endpoint
    if endpoint is not None and endpoint.certificate is None:
        yield (("inference_endpoint", "certificate"),
               "required field is missing (the Certificate Manager certificate the Gateway serves)")
    tokens = endpoint.client_auth.id_tokens if endpoint is not None and endpoint.client_auth is not None else None
    declared = [secret.name for secret in platform.secrets]
    if tokens is not None and tokens.oauth_client_secret not in declared:
        yield (("inference_endpoint", "client_auth", "id_tokens", "oauth_client_secret"),
               f"no secret named {tokens.oauth_client_secret!r} under secrets: declare the secret that holds the "
               f"Identity-Aware Proxy OAuth client's secret{did_you_mean(tokens.oauth_client_secret, declared)}")


def _cost(platform: GcpPlatform) -> Iterator[Issue]:
    budget = platform.budget
    if budget is not None and budget.billing_account is None:
        yield ("budget", "billing_account"), ("a Google Cloud budget belongs to a billing account: declare "
                                              "billing_account (XXXXXX-XXXXXX-XXXXXX)")
    for index, pool in enumerate(platform.node_pools):
        discount = pool.capacity.discount
        if discount is not None and discount.kind.value != "committed_use":
            yield (("node_pools", index, "capacity", "discount", "kind"),
                   f"{discount.kind.value} is not a discount of gcp (savings_plan: AWS; committed_use: Google Cloud)")
