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
from accelplane.migration.facets import (
    DnsEnd,
    TransferEnds,
    WeightedName,
    artifact_sinks,
    artifact_sources,
    dns_services,
    front_of,
    health_path,
)
from accelplane.migration.stack import MigrationStack


def stack_reference_name(project: str, stack: str) -> str:
    """`<organization>/<project>/<stack>`, the StackReference name of an end in the same project."""
    return f"{pulumi.get_organization()}/{project}/{stack}"


def build_migration(stack: MigrationStack) -> Mapping[str, Any]:
    migration = stack.migration
    ends = []
    references: dict[str, pulumi.StackReference] = {}
    for role, weight in (("source", 100 - migration.weight), ("target", migration.weight)):
        end = getattr(stack, role)
        front = front_of(end.platform.cloud)
        service = end_service(end, getattr(migration, role).service)
        endpoint = end.platform.inference_endpoint
        assert front is not None and service is not None and endpoint is not None  # the loader's checks
        reference = pulumi.StackReference(f"{stack.stack}-{role}", stack_name=stack_reference_name(stack.project,
                                                                                                    end.stack))
        references[role] = reference
        address = reference.require_output(front.address_output)
        zone = reference.require_output(front.alias_zone_output) if front.alias_zone_output else None
        ends.append(DnsEnd(label=end.stack, role=role, weight=weight, front=front, address=address, alias_zone=zone,
                           health_path=health_path(end.platform, service), port=endpoint.listener_port))
    dns = dns_services()[migration.dns.service]
    outputs = dict(dns.declare(WeightedName(name=stack.stack, hostname=migration.hostname, zone=migration.dns.zone,
                                            ttl_seconds=migration.ttl_seconds,
                                            health_checks=migration.health_checks, ends=ends,
                                            validation=[(record.name, record.value)
                                                        for record in migration.certificate_validation])))
    outputs["hostname"] = migration.hostname
    if migration.artifacts is not None:
        outputs.update(_artifacts(stack, references))
    return outputs


def _artifacts(stack: MigrationStack, references: dict[str, pulumi.StackReference]) -> Mapping[str, Any]:
    """The copy of the model's files: the sink's reader trusted by the source, then the sink's transfer."""
    artifacts = stack.migration.artifacts
    assert artifacts is not None
    sink = artifact_sinks()[stack.target.platform.cloud]
    source = artifact_sources()[stack.source.platform.cloud]

    def bucket(role: str) -> pulumi.Output[str]:
        return references[role].require_output("buckets").apply(lambda buckets: str(buckets[artifacts.bucket]))

    ends = TransferEnds(name=stack.stack, source=stack.source.platform, source_bucket=bucket("source"),
                        source_prefix=artifacts.source_prefix, target=stack.target.platform,
                        target_bucket=bucket("target"), target_prefix=artifacts.target_prefix,
                        copy_on=artifacts.copy_on, target_outputs=references["target"].outputs)
    return sink.transfer(ends, source.grant(ends, sink.reader(ends)))


class MigrationMocks(pulumi.runtime.Mocks):
    """Each cloud's mocks for its own resources and calls (the DNS's, and the artifact copy's two ends), with
    each end's StackReference answered from the end's own offline plan."""

    def __init__(self, cloud_mocks: Mapping[str, pulumi.runtime.Mocks],
                 end_outputs: Mapping[str, Mapping[str, Any]]) -> None:
        self.cloud_mocks = cloud_mocks  # by the type tokens' package (a cloud's provider)
        self.end_outputs = end_outputs  # end stack name -> its outputs

    def _of(self, token: str) -> pulumi.runtime.Mocks:
        package = token.split(":", 1)[0]
        if package == "pulumi" and token.startswith("pulumi:providers:"):
            package = token.rsplit(":", 1)[-1]
        return self.cloud_mocks[package]

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        if args.typ == "pulumi:pulumi:StackReference":
            name = str(args.inputs.get("name", args.name))
            outputs = self.end_outputs[name.rsplit("/", 1)[-1]]
            return name, {"name": name, "outputs": dict(outputs), "secretOutputNames": []}
        return self._of(args.typ).new_resource(args)

    def call(self, args: pulumi.runtime.MockCallArgs) -> Any:
        return self._of(args.token).call(args)
