"""What only the two ends of a migration can tell: that they are two stacks serving the same API to the
same clients under the same limits, at the declared name, through fronts the chosen DNS can point at.

Each problem is (path under `accelplane:migration`, message); the loader adds file and line.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.cloud_support import Issue
from accelplane.config.loader import StackConfig
from accelplane.declaration.base import Environment
from accelplane.declaration.endpoint import ClientAuth
from accelplane.declaration.kubernetes import InferenceService
from accelplane.declaration.migration import PROD_MAX_TTL_SECONDS, Migration
from accelplane.declaration.resilience import RateLimit
from accelplane.migration.facets import (
    Front,
    FrontKind,
    artifact_sinks,
    artifact_sources,
    dns_services,
    front_of,
    health_path,
)
from accelplane.migration.stack import MigrationStack
from accelplane.suggest import did_you_mean

ROLES = ("source", "target")


def end_service(end: StackConfig, name: str) -> InferenceService | None:
    services = end.platform.kubernetes.inference_services if end.platform.kubernetes else []
    return next((service for service in services if service.name == name), None)


def problems(stack: MigrationStack) -> Iterator[Issue]:
    migration = stack.migration
    if migration.source.stack == migration.target.stack:
        yield (("target", "stack"), f"both ends are stack {migration.source.stack!r}: a migration moves a service "
               "between two stacks (inside one stack, the service's rollout moves traffic between its backends)")
        return
    services: dict[str, InferenceService] = {}
    fronts: dict[str, Front] = {}
    for role in ROLES:
        yield from _end_problems(stack, role, services, fronts)
    if len(services) == len(ROLES):
        yield from _same_api(migration, stack, services)
        yield from _same_clients(stack, services)
    paths = [health_path(getattr(stack, role).platform, service) for role, service in services.items()]
    yield from _dns(stack, fronts, paths)
    yield from _certificate_validation(stack, fronts)
    yield from _steps(stack)
    yield from _artifacts(stack)


def _end_problems(stack: MigrationStack, role: str, services: dict[str, InferenceService],
                  fronts: dict[str, Front]) -> Iterator[Issue]:
    end, declared = getattr(stack, role), getattr(stack.migration, role)
    platform = end.platform
    service = end_service(end, declared.service)
    if service is None:
        names = [s.name for s in platform.kubernetes.inference_services] if platform.kubernetes else []
        yield ((role, "service"), f"stack {end.stack!r} has no inference service {declared.service!r}"
               f"{did_you_mean(declared.service, names)} (its services: {', '.join(names) or 'none'})")
        return
    if platform.inference_endpoint is None or not service.expose:
        yield ((role, "service"), f"service {service.name!r} of stack {end.stack!r} is not exposed (no "
               "inference_endpoint, or expose: false): clients cannot reach that end")
        return
    services[role] = service
    if stack.migration.hostname not in platform.inference_endpoint.hostnames:
        yield (("hostname",), f"stack {end.stack!r} does not serve {stack.migration.hostname}: add it to that stack's "
               "inference_endpoint.hostnames (its certificate must cover the name)")
    front = front_of(platform.cloud)
    if front is None:
        yield ((role, "stack"), f"the {platform.cloud} cloud of stack {end.stack!r} says nothing of how its "
               "services are reached (it offers no accelplane.fronts entry point): it cannot be a migration's end")
    else:
        fronts[role] = front


def _same_api(migration: Migration, stack: MigrationStack, services: dict[str, InferenceService]) -> Iterator[Issue]:
    """Clients keep calling the same paths with the same requests: the API the parity run speaks."""
    source, target = services["source"], services["target"]
    if source.path_prefix != target.path_prefix:
        yield (("target", "service"), f"the ends serve under different path prefixes ({source.path_prefix or '/'!r} "
               f"on {stack.source.stack}, {target.path_prefix or '/'!r} on {stack.target.stack}): clients would call "
               "paths one end does not serve")
    for role, service in services.items():
        declared = service.rollout.parity if service.rollout else None
        if declared is None:
            continue
        if (declared.protocol, declared.model) != (migration.parity.protocol, migration.parity.model):
            yield (("parity", "protocol"), f"the {role} end's service {service.name!r} speaks "
                   f"{declared.protocol.value} for model {declared.model!r} (its rollout's parity), the migration "
                   f"{migration.parity.protocol.value} for {migration.parity.model!r}: the ends do not expose the "
                   "same API")


def _limits(limit: RateLimit | None) -> tuple[object, ...] | None:
    # exempt_paths is each end's own health path: only what a client meets is compared.
    return None if limit is None else (limit.requests, limit.window_seconds, limit.key, limit.header, limit.action,
                                       limit.ban_seconds)


def _same_clients(stack: MigrationStack, services: dict[str, InferenceService]) -> Iterator[Issue]:
    """A client must not be let in, or throttled, by which end its resolver happened to pick."""
    endpoints = {role: getattr(stack, role).platform.inference_endpoint for role in ROLES}
    ranges = {role: sorted(set(endpoint.allowed_cidrs)) for role, endpoint in endpoints.items() if endpoint}
    if ranges["source"] != ranges["target"]:
        yield (("target", "stack"), f"the ends admit different client ranges ({stack.source.stack}: "
               f"{', '.join(ranges['source'])}; {stack.target.stack}: {', '.join(ranges['target'])}): a client would "
               "be let in or refused by which end DNS picked; make inference_endpoint.allowed_cidrs the same")
    auth = {role: _authentication(endpoint.client_auth if endpoint else None) for role, endpoint in endpoints.items()}
    if auth["source"] != auth["target"]:
        yield (("target", "stack"), f"the ends authenticate clients differently ({stack.source.stack}: "
               f"{auth['source']}; {stack.target.stack}: {auth['target']}): a client would be served or refused by "
               "which end DNS picked; declare the same inference_endpoint.client_auth on both (Google-signed ID "
               "tokens are validated by both clouds' load balancers)")
    limits = {role: _limits(service.rate_limit) for role, service in services.items()}
    if limits["source"] != limits["target"]:
        yield (("target", "service"), f"the ends limit clients differently ({stack.source.stack}: "
               f"{_said(services['source'].rate_limit)}; {stack.target.stack}: {_said(services['target'].rate_limit)}):"
               " a client would be throttled by which end DNS picked; make the services' rate_limit the same")


def _authentication(auth: ClientAuth | None) -> str:
    """How an end authenticates clients, in words two ends can be compared by."""
    if auth is None:
        return "no client authentication"
    said, tokens = [], auth.id_tokens
    for method in auth.methods():
        if method == "id_tokens" and tokens is not None:
            said.append(f"ID tokens of {tokens.issuer} for audience {tokens.audience} naming "
                        f"{', '.join(sorted(tokens.callers))}")
        else:
            said.append(method.replace("_", " "))
    return " and ".join(said)


def _said(limit: RateLimit | None) -> str:
    if limit is None:
        return "no rate limit"
    return f"{limit.requests} requests per {limit.window_seconds} s per {limit.key.value}" + (
        f" ({limit.action.value})" if limit.action.value != "reject" else "")


def _dns(stack: MigrationStack, fronts: dict[str, Front], paths: list[str]) -> Iterator[Issue]:
    migration = stack.migration
    services = dns_services()
    dns = services.get(migration.dns.service)
    if dns is None:
        yield (("dns", "service"), f"no DNS service {migration.dns.service!r}"
               f"{did_you_mean(migration.dns.service, services)} (installed: {', '.join(sorted(services)) or 'none'})")
        return
    zone = dns.zone_problem(migration.dns.zone)
    if zone:
        yield (("dns", "zone"), zone)
    if len(fronts) == len(ROLES):
        refusal = dns.refusal(list(fronts.values()), migration.health_checks, paths)
        if refusal:
            yield (("dns", "service"), refusal)
    if migration.health_checks and dns.checker_ranges:
        for role, front in fronts.items():
            endpoint = getattr(stack, role).platform.inference_endpoint
            if front.kind is FrontKind.address and endpoint and not _admits_everyone(endpoint.allowed_cidrs):
                yield (("health_checks",), f"{dns.title} would probe {front.what} of stack "
                       f"{getattr(stack, role).stack!r} from {dns.checker_ranges}, which its allowed_cidrs refuse: "
                       "the end would never be healthy. Admit those ranges there, or set health_checks: false "
                       "(the gates then stand alone between a failing end and its share of clients)")
    if stack.environment is Environment.prod and migration.ttl_seconds > PROD_MAX_TTL_SECONDS:
        yield (("ttl_seconds",), f"{migration.ttl_seconds} s is above the prod bound of {PROD_MAX_TTL_SECONDS} s: "
               "clients that cached an answer keep calling the old end that long after an abort")


def _certificate_validation(stack: MigrationStack, fronts: dict[str, Front]) -> Iterator[Issue]:
    """Each record validates an end's certificate for the hostname: a name below it, pointing into the
    validation domain of one end's certificate authority; one record per name (a CNAME stands alone)."""
    hostname = stack.migration.hostname
    authorities = {front.validation_domain: f"{front.validation_what} ({getattr(stack, role).stack!r})"
                   for role, front in fronts.items() if front.validation_domain}
    seen: set[str] = set()
    for index, record in enumerate(stack.migration.certificate_validation):
        path = ("certificate_validation", index)
        if not record.name.endswith(f".{hostname}"):
            yield ((*path, "name"), f"{record.name!r} is not below the hostname {hostname!r}: a certificate for "
                   f"{hostname} is validated at a name under it")
        if record.name in seen:
            yield ((*path, "name"), f"{record.name!r} is given twice: a name holding a CNAME holds nothing else")
        seen.add(record.name)
        if len(fronts) == len(ROLES) and not any(record.value.endswith(f".{domain}") for domain in authorities):
            known = "; ".join(f"{domain} for {what}" for domain, what in authorities.items()) or "none"
            yield ((*path, "value"), f"{record.value!r} is in no end's validation domain ({known}): only the "
                   "ends' certificate validation records belong here; other records stay with the zone's owner")


def _admits_everyone(cidrs: list[str]) -> bool:
    return any(cidr in ("0.0.0.0/0", "::/0") for cidr in cidrs)


def _steps(stack: MigrationStack) -> Iterator[Issue]:
    migration = stack.migration
    if migration.weight != 0 and migration.weight not in migration.steps:
        steps = ", ".join(map(str, migration.steps))
        yield (("weight",), f"{migration.weight} is neither 0 nor one of the steps ({steps})")


def _artifacts(stack: MigrationStack) -> Iterator[Issue]:
    """Both ends keep a bucket of the declared role, and the target's cloud can copy from the source's."""
    artifacts = stack.migration.artifacts
    if artifacts is None:
        return
    for role in ROLES:
        end = getattr(stack, role)
        roles = [bucket.role.value for bucket in end.platform.buckets]
        if artifacts.bucket not in roles:
            yield (("artifacts", "bucket"), f"stack {end.stack!r} ({role}) has no bucket of role {artifacts.bucket!r}"
                   f"{did_you_mean(artifacts.bucket, roles)} (its buckets: {', '.join(roles) or 'none'})")
    source, target = stack.source.platform.cloud, stack.target.platform.cloud
    sink = artifact_sinks().get(target)
    if source not in artifact_sources() or sink is None or source not in sink.sources:
        yield (("artifacts",), f"copying a model's files from {source} to {target} is not built yet (built: "
               f"{_directions()}); copy them with the target cloud's own tool and leave artifacts out")


def _directions() -> str:
    sources = artifact_sources()
    return "; ".join(f"{source} → {sink.cloud}, {sink.title}" for sink in artifact_sinks().values()
                     for source in sink.sources if source in sources) or "none"
