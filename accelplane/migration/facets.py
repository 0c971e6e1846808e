"""What a migration asks of the clouds, as two optional facets (entry-point groups this layer owns):

- `accelplane.fronts`: how an end's cloud exposes a service to the internet (an ALB answers at a DNS
  name, a GKE Gateway at a fixed address), and which stack outputs say where;
- `accelplane.dns`: a DNS service a cloud offers (Route 53, Cloud DNS): the zone's form, what its
  weighted records can and cannot point at, how fast a change reaches its name servers, and the
  resources that declare the weighted records.

The neutral code (the migration's checks, its program, its rollback figure) asks these and never
names a cloud or a DNS service.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from accelplane.cloud_support import Connection, cloud_facet, installed_facets
from accelplane.declaration import Platform
from accelplane.declaration.kubernetes import InferenceService
from accelplane.declaration.resilience import effective_health_check

if TYPE_CHECKING:  # annotations only: Pulumi loads for a program run, not for a check of the declaration
    import pulumi

FRONTS_GROUP = "accelplane.fronts"
DNS_GROUP = "accelplane.dns"


class FrontKind(StrEnum):
    """What a DNS record can point at for one end."""

    hostname = "hostname"  # a name the cloud keeps (an ALB): an alias or CNAME, no fixed address
    address = "address"  # a fixed IP address (a GKE Gateway's global address): an A record


@dataclass(frozen=True)
class Front:
    """How one cloud's exposed services are reached (`accelplane.fronts` entry point)."""

    cloud: str
    kind: FrontKind
    what: str  # how a message names it ("the ALB", "the Gateway's global address")
    address_output: str  # the stack output holding the name or address
    alias_zone_output: str | None  # the stack output holding the name's alias zone (Route 53), if any
    # How long resolvers cache the name's own answers (an alias record is cached for this): the cloud's
    # documented TTL of the load balancer's records; None for a fixed address.
    own_ttl_seconds: int | None
    own_ttl_source: str | None
    # Where the front's certificate authority points its DNS validation records (a CNAME's value ends in
    # it), and how a message names that validation; None where the cloud's certificates are not validated
    # in DNS.
    validation_domain: str | None = None
    validation_what: str | None = None


@dataclass(frozen=True)
class DnsEnd:
    """One end as the weighted records see it."""

    label: str  # the record's set identifier: the end's stack name
    role: str  # source or target
    weight: int
    front: Front
    address: pulumi.Output[str]
    alias_zone: pulumi.Output[str] | None
    health_path: str
    port: int


@dataclass(frozen=True)
class WeightedName:
    """The public name and its weighted records, for `DnsService.declare`."""

    name: str  # the resources' logical-name prefix (the migration stack's name)
    hostname: str
    zone: str
    ttl_seconds: int
    health_checks: bool
    ends: Sequence[DnsEnd]
    # The ends' certificate validation CNAMEs (name, value; no trailing dots), written beside the records
    # with VALIDATION_TTL_SECONDS.
    validation: Sequence[tuple[str, str]] = ()


# How long resolvers may cache a certificate validation CNAME: it never changes while its certificate lives.
VALIDATION_TTL_SECONDS = 300


@dataclass(frozen=True)
class LiveRecords:
    """The weighted records of a migration's name as the DNS service's API holds them."""

    zone: str
    hostname: str
    labels: tuple[str, ...]  # the ends' set identifiers (their stack names), source first
    connection: Connection  # how to reach the DNS service's cloud (its command-line options)


class LiveDnsError(Exception):
    """The DNS service's API could not be read or changed; the message says why and what to do."""


@dataclass(frozen=True)
class DnsService:
    """A DNS service a cloud offers for a migration's weighted records (`accelplane.dns` entry point)."""

    cloud: str  # the cloud whose folder implements it
    name: str  # the declaration's `dns.service` word
    title: str  # how a message names it ("Route 53")
    # The zone's form: a problem with the declared zone, or None.
    zone_problem: Callable[[str], str | None]
    # Why the ends (their fronts and health-check paths) cannot be served by this DNS, with health checks
    # or not, or None; the message says what to use instead.
    refusal: Callable[[Sequence[Front], bool, Sequence[str]], str | None]
    # Whether a name front is pointed at by an alias (answered with the front's own records and TTL) rather
    # than a CNAME record of the migration's TTL.
    aliases_names: bool
    # Where its health checkers call an address end from, when they come from the internet (an end's
    # allow-list must admit them, or the end is never healthy); None where that is not known.
    checker_ranges: str | None
    # The longest time a change takes to reach every authoritative name server, with its source.
    propagation_seconds: int
    propagation_source: str
    # Declares the weighted records (and their health checks); returns the stack outputs.
    declare: Callable[[WeightedName], Mapping[str, Any]]
    # The offline engine's answers for its resources.
    offline_mocks: Callable[[], pulumi.runtime.Mocks]
    # The live weights by set identifier, read from the service's API (None: not supported yet).
    read_weights: Callable[[LiveRecords], dict[str, int]] | None = None
    # Sets every weight in one change (an abort must never leave half the records moved); the change's id.
    write_weights: Callable[[LiveRecords, Mapping[str, int]], str] | None = None


def health_path(platform: Platform, service: InferenceService) -> str:
    """The path an end's load balancer probes for the service: what a DNS health check asks too."""
    assert platform.inference_endpoint is not None
    return effective_health_check(platform.inference_endpoint.health_check, service.health_check).path


def front_of(cloud: str) -> Front | None:
    return cloud_facet(FRONTS_GROUP, cloud, Front)


def dns_services() -> dict[str, DnsService]:
    """Every installed DNS service, by its declaration word."""
    return {service.name: service for service in installed_facets(DNS_GROUP, DnsService)}


SOURCES_GROUP = "accelplane.artifact_sources"
SINKS_GROUP = "accelplane.artifact_sinks"


@dataclass(frozen=True)
class FederatedReader:
    """Who reads the source bucket for a transfer: an identity of the sink's cloud, as the source's cloud
    trusts it (an OpenID Connect issuer and subject)."""

    issuer: str  # e.g. accounts.google.com
    subject: pulumi.Output[str]  # the identity's subject (a Google service account's unique id)
    principal: pulumi.Output[str]  # the identity as its own cloud grants to it (serviceAccount:…)
    what: str  # how a message names it


@dataclass(frozen=True)
class KeyReader:
    """Who reads the source bucket for a transfer when no federation reaches it: a service of the sink's
    cloud that calls the source store's S3-compatible API with an HMAC access key. The source makes an
    identity of its own, grants it read access to the prefix and makes the key; its `grant` answers the
    key as a secret JSON object `{"access_id": …, "secret": …}` that only the sink's transfer reads."""

    what: str  # how a message names it


# What a sink's reader is: an identity the source's cloud trusts, or a key the source makes.
Reader = FederatedReader | KeyReader


@dataclass(frozen=True)
class TransferEnds:
    """The copy a migration declares, for its program: both ends' buckets (stack outputs) and prefixes."""

    name: str  # the resources' logical-name prefix
    source: Platform
    source_bucket: pulumi.Output[str]
    source_prefix: str
    target: Platform
    target_bucket: pulumi.Output[str]
    target_prefix: str
    copy_on: date  # the day the copy runs (once)
    target_outputs: pulumi.Output[Mapping[str, Any]]  # the target end's stack outputs (its data key, ...)


@dataclass(frozen=True)
class ArtifactSource:
    """A cloud whose object store a transfer can read (`accelplane.artifact_sources` entry point)."""

    cloud: str
    scheme: str  # s3, gs
    # Grants `reader` read-only access to the prefix; what the sink names to read: a role ARN for a
    # federated reader, the access key (a secret JSON object) for a key reader, "" where a grant suffices.
    grant: Callable[[TransferEnds, Reader], pulumi.Output[str]]
    offline_mocks: Callable[[], pulumi.runtime.Mocks]


@dataclass(frozen=True)
class ArtifactSink:
    """A cloud's transfer service that copies into its object store (`accelplane.artifact_sinks` entry point)."""

    cloud: str
    title: str  # "Storage Transfer Service"
    sources: tuple[str, ...]  # the clouds it reads from
    # The identity that will read the source, for the source's cloud to trust (or to make a key for).
    reader: Callable[[TransferEnds], Reader]
    # Declares the copy (and the sink bucket's grant to the service); the stack outputs.
    transfer: Callable[[TransferEnds, pulumi.Output[str]], Mapping[str, Any]]
    offline_mocks: Callable[[], pulumi.runtime.Mocks]


def artifact_sources() -> dict[str, ArtifactSource]:
    return {facet.cloud: facet for facet in installed_facets(SOURCES_GROUP, ArtifactSource)}


def artifact_sinks() -> dict[str, ArtifactSink]:
    return {facet.cloud: facet for facet in installed_facets(SINKS_GROUP, ArtifactSink)}
