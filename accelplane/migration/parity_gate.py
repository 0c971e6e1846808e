"""Whether a passing parity report vouches for the target end: one per backend serving the target
service, at its image digest and the migration's pinned golden set, where the migration keeps its
parity reports (the rollout's report layout: `accelplane migrate parity` writes them, and so does
`accelplane rollout parity` on the target end run against this golden set)."""

from __future__ import annotations

import json
from collections.abc import Mapping

from accelplane.cloud_support import Connection
from accelplane.migration.checks import end_service
from accelplane.migration.parity_command import read_file
from accelplane.migration.stack import MigrationStack
from accelplane.rollout.parity import parity_report


def target_parity(stack: MigrationStack, connections: Mapping[str, Connection]) -> tuple[bool, str]:
    parity = stack.migration.parity
    if parity.golden.sha256 is None:
        return False, ("no golden set pinned yet (`accelplane migrate parity --record` on the source pins its "
                       "SHA-256 in parity.golden)")
    service = end_service(stack.target, stack.migration.target.service)
    assert service is not None  # the loader's checks
    for backend in [b for b in service.serving_backends if b.weight > 0]:
        uri = parity_report.report_uri(parity, service, backend, parity.golden.sha256)
        data = read_file(stack, uri, connections)
        if data is None:
            return False, (f"no parity report for the target's backend {backend.name!r} at its image ({uri}): run "
                           "`accelplane migrate parity`")
        try:
            report = json.loads(data)
        except ValueError:
            return False, f"{uri} is not a parity report"
        if not parity_report.verdict(report):
            return False, f"the parity report {uri} failed"
    return True, "parity passed for every serving backend of the target"
