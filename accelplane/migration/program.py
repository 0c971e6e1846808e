"""The migration stack's Pulumi program: the public name's weighted records on the chosen DNS, pointing
at each end's front as the end's own stack exports it (read through a Pulumi StackReference).

The ends' certificates, listeners and routes stay theirs; what spans them (the weighted records and
their health checks) is this stack's. The weights are the declaration's: the target's `weight`, the
source the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi

from accelplane.migration.checks import end_service
from accelplane.migration.facets import DnsEnd, WeightedName, dns_services, front_of, health_path
from accelplane.migration.stack import MigrationStack


def stack_reference_name(project: str, stack: str) -> str:
    """`<organization>/<project>/<stack>`, the StackReference name of an end in the same project."""
    return f"{pulumi.get_organization()}/{project}/{stack}"


def build_migration(stack: MigrationStack) -> Mapping[str, Any]:
    migration = stack.migration
    ends = []
    for role, weight in (("source", 100 - migration.weight), ("target", migration.weight)):
        end = getattr(stack, role)
        front = front_of(end.platform.cloud)
        service = end_service(end, getattr(migration, role).service)
        endpoint = end.platform.inference_endpoint
        assert front is not None and service is not None and endpoint is not None  # the loader's checks
        reference = pulumi.StackReference(f"{stack.stack}-{role}", stack_name=stack_reference_name(stack.project,
                                                                                                    end.stack))
        address = reference.require_output(front.address_output)
        zone = reference.require_output(front.alias_zone_output) if front.alias_zone_output else None
        ends.append(DnsEnd(label=end.stack, role=role, weight=weight, front=front, address=address, alias_zone=zone,
                           health_path=health_path(end.platform, service), port=endpoint.listener_port))
    dns = dns_services()[migration.dns.service]
    outputs = dict(dns.declare(WeightedName(name=stack.stack, hostname=migration.hostname, zone=migration.dns.zone,
                                            ttl_seconds=migration.ttl_seconds,
                                            health_checks=migration.health_checks, ends=ends)))
    outputs["hostname"] = migration.hostname
    return outputs


class MigrationMocks(pulumi.runtime.Mocks):
    """The DNS service's mocks, with each end's StackReference answered from the end's own offline plan."""

    def __init__(self, dns_mocks: pulumi.runtime.Mocks, end_outputs: Mapping[str, Mapping[str, Any]]) -> None:
        self.dns_mocks = dns_mocks
        self.end_outputs = end_outputs  # end stack name -> its outputs

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        if args.typ == "pulumi:pulumi:StackReference":
            name = str(args.inputs.get("name", args.name))
            outputs = self.end_outputs[name.rsplit("/", 1)[-1]]
            return name, {"name": name, "outputs": dict(outputs), "secretOutputNames": []}
        return self.dns_mocks.new_resource(args)

    def call(self, args: pulumi.runtime.MockCallArgs) -> Any:
        return self.dns_mocks.call(args)
