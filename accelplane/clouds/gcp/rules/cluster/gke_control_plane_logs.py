"""AP-GKE-005: the GKE control plane's API server, scheduler and controller-manager logs go to Cloud Logging.

`loggingConfig.enableComponents` must list APISERVER, CONTROLLER_MANAGER and SCHEDULER (the default
is SYSTEM_COMPONENTS and WORKLOADS only); `loggingService: none` turns logging off. Admin Activity
audit logs are always on in Cloud Audit Logs. Twin of AP-EKS-003.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_list, as_str

REQUIRED = ("APISERVER", "CONTROLLER_MANAGER", "SCHEDULER")


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if as_str(resource.get("loggingService")) == "none":
        yield "loggingService is none: the cluster sends no logs"
        return
    enabled = {as_str(c) for c in as_list(resource.get("loggingConfig", "enableComponents"))}
    missing = [component for component in REQUIRED if component not in enabled]
    if missing:
        yield f"control-plane log components not enabled: {', '.join(missing)}"


RULE = Rule(
    id="AP-GKE-005",
    name="gke-control-plane-logs",
    description="Checks whether a GKE cluster sends API server, controller-manager and scheduler logs to Cloud "
    "Logging.",
    family=Family.cluster,
    severity=Severity.medium,
    enforcement=Enforcement.mandatory,
    remediation="Set logging_config.enable_components to SYSTEM_COMPONENTS, APISERVER, CONTROLLER_MANAGER, "
    "SCHEDULER (and WORKLOADS).",
    resource_types=frozenset({t.GKE_CLUSTER}),
    check=check,
    categories=("logging",),
    references=("https://cloud.google.com/kubernetes-engine/docs/how-to/view-logs#control_plane_logs",),
)
