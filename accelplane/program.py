"""The Pulumi program: the composition of the declared cloud, from one validated declaration.

`build()` runs unchanged under the real engine (`pulumi up`) and under the offline engine
(`offline_graph()`, what `accelplane preview`, `check --stack` and `verify` read), and creates
nothing at import time. The stack's cloud comes from the registry (`accelplane.clouds`), and each
cloud's composition imports only its own provider SDK, so an AWS stack never loads pulumi-gcp and
the other way round.
"""

from __future__ import annotations

from typing import Any

from accelplane.cloud_support import cloud_support
from accelplane.config.loader import StackConfig
from accelplane.declaration import Platform
from accelplane.engine.graph import OfflineGraph
from accelplane.engine.offline import run_offline, run_program
from accelplane.migration.stack import MigrationStack


def build(platform: Platform) -> dict[str, Any]:
    """Declare every resource of the platform; return the stack outputs."""
    return cloud_support(platform.cloud).build(platform)


def offline_graph(stack: StackConfig) -> OfflineGraph:
    """The program run offline for the stack, with mocks that answer like its cloud."""
    return run_offline(stack, build, cloud_support(stack.platform.cloud).offline_mocks(stack.platform))


def migration_offline_graph(stack: MigrationStack) -> OfflineGraph:
    """A migration stack's program run offline: each end's StackReference answered with the outputs of
    that end's own offline plan, the DNS service's resources with its cloud's mocks."""
    # Start-up time: the migration's program loads only for a migration stack.
    from accelplane.migration.facets import artifact_sinks, artifact_sources, dns_services
    from accelplane.migration.program import MigrationMocks, build_migration

    ends = {end.stack: offline_graph(end).stack_outputs for end in (stack.source, stack.target)}
    dns = dns_services()[stack.migration.dns.service]
    mocks = {dns.cloud: dns.offline_mocks()}
    if stack.migration.artifacts is not None:
        source, target = stack.source.platform.cloud, stack.target.platform.cloud
        mocks.setdefault(source, artifact_sources()[source].offline_mocks())
        mocks.setdefault(target, artifact_sinks()[target].offline_mocks())
    return run_program(stack.stack, stack.project, stack.config, lambda: build_migration(stack),
                       MigrationMocks(mocks, ends))
