"""How long clients take to follow an abort: the figure `preview` and `migrate abort` state.

An abort is one DNS change that gives the source every weight. A client keeps calling the target until
the change has reached the DNS service's name servers and the answer it cached for the target has
expired: the record's TTL, or for an alias the TTL of the load balancer's own records. Connections it
already holds open to the target (HTTP keep-alive) stay there until they close, and resolvers or runtimes
that cache past the TTL (a JVM's networkaddress.cache.ttl) follow later: neither is bounded by DNS.
"""

from __future__ import annotations

from dataclasses import dataclass

from accelplane.migration.facets import DnsService, FrontKind, dns_services, front_of
from accelplane.migration.stack import MigrationStack


@dataclass(frozen=True)
class RollbackFigure:
    seconds: int  # the worst case, propagation and the target's cached answer
    propagation_seconds: int
    cached_seconds: int
    why: str  # where each part comes from

    def sentence(self) -> str:
        return (f"After `migrate abort`, clients follow within {self.seconds} s at worst ({self.why}); connections "
                "already open to the target stay there until they close")


def rollback_figure(stack: MigrationStack) -> RollbackFigure:
    dns: DnsService = dns_services()[stack.migration.dns.service]
    front = front_of(stack.target.platform.cloud)
    assert front is not None  # the loader's checks
    if front.kind is FrontKind.hostname and dns.aliases_names and front.own_ttl_seconds is not None:
        cached = front.own_ttl_seconds
        cached_why = f"an alias to {front.what} is cached for its own TTL, {cached} s, per the {front.own_ttl_source}"
    else:
        cached = stack.migration.ttl_seconds
        cached_why = f"the record's TTL, {cached} s"
    why = (f"a change reaches {dns.title}'s name servers within {dns.propagation_seconds} s, per the "
           f"{dns.propagation_source}; then {cached_why}")
    return RollbackFigure(seconds=dns.propagation_seconds + cached, propagation_seconds=dns.propagation_seconds,
                          cached_seconds=cached, why=why)
