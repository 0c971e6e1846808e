"""Run `accelplane preflight` for a stack: the stack's cloud connects and makes its checks; a stack
with bare-metal hosts also gets the whole-fleet node preflight; the report says where it looked."""

from __future__ import annotations

import time

from accelplane.config.loader import StackConfig
from accelplane.errors import InputError
from accelplane.preflight.cloud_preflight import CloudPreflight, cloud_preflight
from accelplane.preflight.options import PreflightOptions
from accelplane.preflight.results import PreflightReport


def preflight(stack: StackConfig, options: PreflightOptions) -> PreflightReport:
    started = time.perf_counter()
    if options.nodes_only and stack.platform.bare_metal is None:
        raise InputError.single(f"stack {stack.stack} declares no bare_metal hosts: --nodes-only has nothing to check",
                                file="accelplane preflight", field="--nodes-only")
    # --nodes-only: the fleet's hosts alone (a lab, an on-premises fleet): nothing is read from the
    # cloud, so no cloud credentials are asked for.
    found = (CloudPreflight("the bare-metal hosts only (--nodes-only: nothing read from the cloud)", "none", [])
             if options.nodes_only else cloud_preflight(stack.platform, options))
    checks = list(found.checks)
    if stack.platform.bare_metal is not None:
        # Start-up time: the node tooling loads only for stacks with bare-metal hosts.
        from accelplane.preflight.bare_metal import node_preflight_checks

        checks += node_preflight_checks(stack, options)
    lines = {}
    for check in checks:
        if check.at and check.at not in lines:
            lines[check.at] = stack.line_of(*check.at) or 1
    return PreflightReport(
        stack=stack.stack,
        cloud=str(stack.platform.cloud),
        where=found.where,
        endpoint=found.endpoint,
        checks=checks,
        allow_unknown=options.allow_unknown,
        api_calls=found.api_calls,
        wall_seconds=time.perf_counter() - started,
        stack_file=str(stack.path),
        lines=lines,
    )
