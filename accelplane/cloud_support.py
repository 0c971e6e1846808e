"""`CloudSupport`: everything the cloud-neutral code asks of a cloud, in one small interface, and the
registry that finds a cloud's implementation by the declaration's `cloud:` value.

One implementation per cloud (`accelplane/clouds/<cloud>/support.py`, its `SUPPORT`), found through
`cloud_support(cloud)` among the `accelplane.clouds` entry points of the installed distributions
(this package registers aws and gcp in pyproject.toml; another distribution may add a cloud the same
way). The neutral code (the
declaration checks, the offline engine, the program, verify's drift engine and report, rollout's
steps and gates, diff, check) calls these methods and never imports a cloud's module by name, so
adding a cloud is adding a folder with the same sub-layout:

| sub-module | what it holds |
|---|---|
| `support` | the `CloudSupport` itself (the package's `__init__` imports nothing, so a facet loads alone) |
| `declaration` | the cloud's `Platform` subclass (`platform_model`): the keys only this cloud reads |
| `catalog` | the cloud's sourced facts: machine or instance types, regions, API vocabularies |
| `declaration_checks`, `addon_checks` | checks that need the cloud's facts; the Kubernetes add-ons it needs |
| `components/` | the Pulumi components of the cloud layer (type tokens `accelplane:<cloud>:…`) |
| `composition` | the one place those components are wired together: `build()` |
| `mocks` | the offline engine's mocks, answering with the cloud's ids, ARNs or self links |
| `provenance` | which declaration element each top-level component is built from |
| `k8s/` | the Kubernetes layer's view of the cluster (`ClusterFacts`) and cloud-specific objects |
| `clients` | live API clients (read-only by construction, retried, counted) |
| `verify/` | the live reader and drift mapping for `accelplane verify` |
| `rollout/` | live traffic weights and the cloud's own metrics for `accelplane rollout` |
| `preflight/` | quotas, offerings, reservations and versions for `accelplane preflight` |

What only some clouds can do is an optional facet, not a method every cloud must stub: an entry
point in a group the using layer owns, with the type it defines, found by `cloud_facet` (live
verification `accelplane.verify`, preflight `accelplane.preflight`, live weights `accelplane.routes`,
the cluster's API `accelplane.cluster_access`, parity files `accelplane.object_stores` with the URI
schemes it serves, a managed Prometheus `accelplane.metrics_authorization`; and prices, budgets, rules
and connection options). What a cloud does not support yet is said once, in its `not_yet` table, or by
offering no entry point: `require()` and `required_facet()` turn either into one clear message (exit
2), so no command spreads `if cloud == …` checks.

Heavy modules (a provider SDK, boto3) are imported inside the methods that need them: a stack loads
only its own cloud, and `check --state` loads no provider at all.
"""

from __future__ import annotations

import os
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:  # annotations only: the declaration model and Pulumi's mocks, both below this module
    import pulumi

    from accelplane.declaration import Platform

# A stack file without `cloud:` is an AWS stack: the first cloud, and every stack file written before
# there was a second. Said here, in the registry, so the neutral declaration names no cloud.
DEFAULT_CLOUD = "aws"

DeclarationPath = tuple[str | int, ...]  # a field's path under accelplane:platform
Issue = tuple[DeclarationPath, str]  # a declaration problem: (the field's path, the message)


class Capability(StrEnum):
    """What a cloud may not support yet; the value is how a message names it."""

    verify = "live verification (`accelplane verify`)"
    live_weights = "reading and setting a service's live traffic weights"
    cloud_metrics = "the cloud's own load-balancer metrics for rollout gates"
    preflight = "preflight checks (`accelplane preflight`)"
    cluster_access = "reaching the cluster's Kubernetes API with the cloud's own credentials"


@dataclass(frozen=True)
class NodeImage:
    """A machine image one pool's nodes boot, as its profile pins it."""

    pool: str
    version: str  # what the profile pins
    architecture: str  # x86_64 or arm64
    reference: str  # where the cloud resolves the image (AWS: `ssm:<public parameter>`)
    declared_at: str  # the declaration element, for the lock's provenance
    meta: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Connection:
    """What a live command was told about reaching its stack's cloud (`accelplane.cloud_connection`).
    This base holds nothing (the cloud's defaults: its standard credential chain, its public
    endpoints); each cloud subclasses it with its own options' values."""


IMAGES_GROUP = "accelplane.images"


@dataclass(frozen=True)
class CloudImages:
    """What a cloud's machine images decide where a software profile pins one (AWS: the EKS AMI
    release): an optional facet, the cloud's `accelplane.images` entry point. A cloud that picks the
    image from the cluster version alone (GKE) offers none: its stacks lock no image and nothing is
    derived from one."""

    cloud: str
    # the images the pools' nodes boot (the bundle lock records them)
    node_images: Callable[[Platform], list[NodeImage]]
    # the platform with the profile fields an image decides filled in from its sourced facts (the EKS
    # AMI's NVIDIA driver); called once the declaration has no problems
    with_image_software: Callable[[Platform], Platform]


class NotSupportedError(Exception):
    """A capability the stack's cloud does not have yet; the message says what to do instead."""


class CloudSupport(ABC):
    """One cloud, as the cloud-neutral code sees it."""

    name: ClassVar[str]  # the declaration's `cloud:` value
    # Capability -> what to do instead (the message `require()` gives).
    not_yet: ClassVar[Mapping[Capability, str]] = {}
    # The `rollout.metrics` value that reads this cloud's own load-balancer metrics; None where the
    # rollout gates read only the cluster's Prometheus (`PROMETHEUS_METRICS`, on every cloud).
    load_balancer_metrics: ClassVar[str | None] = None
    # Extended resources of the network fabric its training pods request per node (AWS: EFA interfaces),
    # which Kueue must leave out of its accounting.
    fabric_resources: ClassVar[tuple[str, ...]] = ()

    @property
    @abstractmethod
    def platform_model(self) -> type[Platform]:
        """The declaration model `cloud: <name>` selects: `Platform` extended with the keys only this cloud
        reads. A property, so a stack of another cloud that asks this one for its `fabric_resources` does
        not build these models."""

    def require(self, capability: Capability) -> None:
        """Raise `NotSupportedError` when this cloud does not offer `capability` yet."""
        hint = self.not_yet.get(capability)
        if hint is not None:
            raise NotSupportedError(f"{capability.value} is not supported on {self.name} yet: {hint}")

    def supports(self, capability: Capability) -> bool:
        return capability not in self.not_yet

    # -- the declaration ---------------------------------------------------------------------------

    @abstractmethod
    def declaration_problems(self, platform: Platform) -> Iterable[Issue]:
        """Problems only this cloud's facts can find (regions, instance types, labels, shapes)."""

    @abstractmethod
    def addon_fields(self) -> tuple[str, ...]:
        """Software-profile fields the Kubernetes add-ons profile must pin on this cloud (chart versions)."""

    @abstractmethod
    def vendor_plugin_fields(self, vendor: str) -> tuple[str, ...]:
        """Fields a pool's profile must pin for the node agents the platform runs for `vendor`'s
        accelerators on this cloud (device plugins, exporters); () where the cloud runs its own."""

    @abstractmethod
    def declaration_paths(self, platform: Platform) -> dict[tuple[str, str], DeclarationPath]:
        """(component type token, logical name) -> the declaration element it is built from, for the
        cloud layer's own components (findings point at that line)."""

    def vocabularies(self) -> Mapping[str, Sequence[str]]:
        """Closed vocabularies of declaration fields on this cloud (field name -> values), for the
        JSON Schema's enums: editors complete them as people type."""
        return {}

    def provider_config(self, platform: Platform) -> Mapping[str, str]:
        """The Pulumi provider settings (`<provider>:<key>` under a stack file's `config:`) the program
        sets from the declaration (AWS: the region); a stack file giving one another value is refused,
        as `pulumi` commands and readers would then disagree with the declaration."""
        return {}

    # -- the program ---------------------------------------------------------------------------------

    @abstractmethod
    def build(self, platform: Platform) -> dict[str, object]:
        """Declare every resource of the platform on this cloud; return the stack outputs."""

    @abstractmethod
    def offline_mocks(self, platform: Platform) -> pulumi.runtime.Mocks:
        """Mocks for the offline engine that answer like this cloud (ids, ARNs, self links)."""


# -- the registry --------------------------------------------------------------------------------------
# Clouds are entry points of the group below, the packaging convention for plug-ins: `<cloud> =
# <module>:<CloudSupport instance>`. Each is imported on first use only, so a stack loads its own cloud
# and nothing of the others (a GCP stack never imports boto3 or pulumi-aws), and every layer may ask for
# a cloud without importing one.
ENTRY_POINT_GROUP = "accelplane.clouds"


@dataclass(frozen=True)
class EntryPoint:
    """One entry point as the packaging convention declares it: `name = module:attribute` under `[group]`."""

    name: str
    value: str
    group: str

    @property
    def module(self) -> str:
        return self.value.partition(":")[0].strip()

    def load(self) -> object:
        found: object = import_module(self.module)
        for part in filter(None, self.value.partition(":")[2].strip().split(".")):
            found = getattr(found, part)
        return found


def _distribution_name(folder: str) -> str:
    # `<name>-<version>.dist-info` or `<name>[-<version>...].egg-info`, compared as the spec normalises
    return folder.rsplit(".", 1)[0].split("-", 1)[0].lower().replace(".", "_")


def _parse_entry_points(text: str) -> Iterable[EntryPoint]:
    group = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            group = line[1:-1].strip()
        elif "=" in line and group:
            name, _, value = line.partition("=")
            yield EntryPoint(name.strip(), value.strip(), group)


@cache
def _installed_entry_points() -> tuple[EntryPoint, ...]:
    """Every entry point of the distributions on sys.path, read from their `entry_points.txt` (the
    packaging specification's format); of two distributions of one name, the first on sys.path counts,
    as for importlib.metadata. Read directly because every command asks at start: importlib.metadata
    builds a Distribution for each of the ~130 installed packages (11 ms here), this opens the few files
    that exist (1 ms)."""
    found: list[EntryPoint] = []
    seen: set[str] = set()
    for entry in sys.path:
        try:
            folders = sorted(os.listdir(entry or "."))
        except OSError:  # a zip file, a missing folder
            continue
        for folder in folders:
            if not folder.endswith((".dist-info", ".egg-info")):
                continue
            name = _distribution_name(folder)
            if name in seen:
                continue
            seen.add(name)
            try:
                with open(os.path.join(entry or ".", folder, "entry_points.txt"), encoding="utf-8") as handle:
                    text = handle.read()
            except OSError:  # no entry points, or an egg-info file rather than a folder
                continue
            found.extend(_parse_entry_points(text))
    return tuple(found)


@cache
def entry_points_in(group: str) -> dict[str, EntryPoint]:
    """The installed entry points of `group` by name (a cloud's, for its support or one of its facets),
    sorted; where two distributions name the same, the first on sys.path wins, as for an import."""
    found: dict[str, EntryPoint] = {}
    for point in _installed_entry_points():
        if point.group == group:
            found.setdefault(point.name, point)
    return dict(sorted(found.items()))


def cloud_facet[FacetT](group: str, cloud: str, kind: type[FacetT]) -> FacetT | None:
    """What `cloud` offers in the entry-point group `group` (one of its optional facets, a `kind` with a
    `cloud` field naming it), loaded on first use; None where the cloud offers none. The layer that uses
    a facet owns its group and its type, so this module names neither."""
    point = entry_points_in(group).get(cloud)
    if point is None:
        return None
    facet = point.load()
    if not isinstance(facet, kind) or getattr(facet, "cloud", None) != cloud:
        raise TypeError(f"entry point {point.value!r} ({group}: {cloud}) is not the {kind.__name__} of {cloud!r}")
    return facet


def installed_facets[FacetT](group: str, kind: type[FacetT]) -> tuple[FacetT, ...]:
    """Every installed cloud's facet in `group`, by cloud name, each checked as `cloud_facet` checks it."""
    return tuple(facet for cloud in entry_points_in(group) if (facet := cloud_facet(group, cloud, kind)) is not None)


def offers(group: str, cloud: str) -> bool:
    """Whether `cloud` offers a facet in `group`, without loading it."""
    return cloud in entry_points_in(group)


def required_facet[FacetT](group: str, cloud: str, kind: type[FacetT], capability: Capability) -> FacetT:
    """`cloud_facet`, for a capability a command cannot do without: `NotSupportedError` where the cloud
    says it has none yet (its `not_yet` hint) or offers no entry point in `group`."""
    cloud_support(cloud).require(capability)
    facet = cloud_facet(group, cloud, kind)
    if facet is None:
        raise NotSupportedError(f"{capability.value} is not supported on {cloud} yet: the cloud offers no "
                                f"{group} entry point")
    return facet


def cloud_images(cloud: str) -> CloudImages | None:
    return cloud_facet(IMAGES_GROUP, cloud, CloudImages)


def known_clouds() -> tuple[str, ...]:
    return tuple(entry_points_in(ENTRY_POINT_GROUP))


@cache
def cloud_support(cloud: str) -> CloudSupport:
    """The support object of the cloud named `cloud` (a declaration's `cloud:` value)."""
    point = entry_points_in(ENTRY_POINT_GROUP).get(cloud)
    if point is None:
        raise KeyError(f"no cloud {cloud!r}; installed: {', '.join(known_clouds()) or 'none'}")
    support = point.load()
    if not isinstance(support, CloudSupport) or support.name != cloud:
        raise TypeError(f"entry point {point.value!r} ({ENTRY_POINT_GROUP}: {cloud}) is not the CloudSupport "
                        f"of {cloud!r}")
    return support
