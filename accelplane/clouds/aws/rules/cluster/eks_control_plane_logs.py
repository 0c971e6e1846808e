"""AP-EKS-003: control-plane logs (api, audit, authenticator) go to CloudWatch."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_list, as_str

REQUIRED = ("api", "audit", "authenticator")


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    enabled = {as_str(v) for v in as_list(resource.get("enabledClusterLogTypes"))}
    missing = [kind for kind in REQUIRED if kind not in enabled]
    if missing:
        yield f"control-plane log types not enabled: {', '.join(missing)}"


RULE = Rule(
    id="AP-EKS-003",
    name="eks-control-plane-logs",
    description="Checks whether the cluster sends api, audit and authenticator logs to CloudWatch.",
    family=Family.cluster,
    severity=Severity.medium,
    enforcement=Enforcement.mandatory,
    remediation="Add api, audit and authenticator to enabled_cluster_log_types.",
    resource_types=frozenset({t.EKS_CLUSTER}),
    check=check,
    categories=("logging",),
)
