"""AP-GAUD-001: a prod Google Cloud stack records who read or changed its objects, keys and secrets, and
keeps the records in a locked log bucket.

Admin Activity audit logs are always on; Data Access audit logs (ADMIN_READ, DATA_READ, DATA_WRITE) are
off unless the project's audit configuration turns them on for a service. Judged on the stack's GKE
cluster (every Google Cloud stack has one): in prod, Cloud Storage, Cloud KMS and Secret Manager must
each have an audit config with DATA_READ and DATA_WRITE, and a sink of the audit logs must deliver
into a log bucket that is locked (its retention cannot be shortened, nor the bucket deleted while it
holds logs younger than it).
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_bool, as_list, as_str, get

AUDITED = ("storage.googleapis.com", "cloudkms.googleapis.com", "secretmanager.googleapis.com")
REQUIRED_LOG_TYPES = ("DATA_READ", "DATA_WRITE")


def _log_types(graph: ReferenceGraph) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for config in graph.of_type(t.GCP_AUDIT_CONFIG):
        kinds = {as_str(get(c, "logType")) for c in as_list(config.get("auditLogConfigs"))}
        found.setdefault(as_str(config.get("service")), set()).update(kinds)
    return found


def _locked_destination(graph: ReferenceGraph) -> bool:
    locked = {as_str(bucket.get("bucketId")) for bucket in graph.of_type(t.GCP_LOG_BUCKET)
              if as_bool(bucket.get("locked")) is True}
    for sink in graph.of_type(t.GCP_LOG_SINK):
        destination = as_str(sink.get("destination"))
        if ("cloudaudit.googleapis.com" in as_str(sink.get("filter")) and as_bool(sink.get("disabled")) is not True
                and any(destination.endswith(f"/buckets/{bucket}") for bucket in locked)):
            return True
    return False


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if graph.environment != "prod":
        return
    kinds = _log_types(graph)
    all_services = kinds.get("allServices", set())
    for service in AUDITED:
        missing = [kind for kind in REQUIRED_LOG_TYPES if kind not in kinds.get(service, set()) | all_services]
        if missing:
            yield (f"Data Access audit logs of {service} are off ({', '.join(missing)}): reads and changes of the "
                   "stack's data, keys or secrets are not recorded")
    if not _locked_destination(graph):
        yield "no sink delivers the audit logs into a locked log bucket: they can be deleted or outlived"


RULE = Rule(
    id="AP-GAUD-001",
    name="gcp-data-access-audit-logs",
    description="Checks whether a prod Google Cloud stack turns on Data Access audit logs (DATA_READ, DATA_WRITE) "
    "for Cloud Storage, Cloud KMS and Secret Manager and routes audit logs into a locked log bucket.",
    family=Family.audit,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Declare audit (retention_days): accelplane turns the audit configs on and keeps the logs in a "
    "locked log bucket.",
    resource_types=frozenset({t.GKE_CLUSTER}),
    check=check,
    scope=Scope.stack,
    categories=("audit",),
    references=("https://cloud.google.com/logging/docs/audit/configure-data-access",
                "https://cloud.google.com/logging/docs/buckets#locking-logs-buckets"),
    fix_field="audit",
    reads=frozenset({t.GCP_AUDIT_CONFIG, t.GCP_LOG_BUCKET, t.GCP_LOG_SINK}),
)
