"""The Google Cloud live view, continued: the audit logs the stack keeps (`audit:`).

- Data Access audit configs: one entry per service in the project IAM policy's `auditConfigs`, read
  with the policy the security reader reads anyway (no extra call). An entry removed by hand
  (`gcloud projects set-iam-policy` with the service's config dropped) is missing; a log type turned
  off or a member exempted is drift. Entries for services the stack does not declare are the
  organisation's, not drift.
- The log sink (`logging.projects.sinks.list`) and the locked log bucket
  (`logging.projects.locations.buckets.list` in the declared location), matched by their declared
  ids; Google's own `_Default` and `_Required` sinks and buckets are not the stack's.
"""

from __future__ import annotations

from typing import Any

from accelplane.clouds.gcp.verify.shapes import AUDIT_CONFIG, LOG_BUCKET, LOG_SINK
from accelplane.clouds.gcp.verify.view_builder import ViewBuilder


class AuditReader:
    def __init__(self, builder: ViewBuilder) -> None:
        self.b = builder
        self.clients = builder.clients
        self.project = builder.project

    def read(self, project_policy: dict[str, Any] | None) -> None:
        """`project_policy`: the project's IAM policy as the security reader read it (None: its read
        failed, and the audit configs are already marked unreadable)."""
        if self.b.declared.of_type(AUDIT_CONFIG) and project_policy is not None:
            self._audit_configs(project_policy)
        if self.b.declared.of_type(LOG_SINK):
            self._sinks()
        if self.b.declared.of_type(LOG_BUCKET):
            self._buckets()

    def _audit_configs(self, policy: dict[str, Any]) -> None:
        by_service = {str(config.get("service")): config for config in policy.get("auditConfigs") or []}
        for resource in self.b.declared.of_type(AUDIT_CONFIG):
            service = str(resource.props.get("service"))
            config = by_service.get(service)
            if config is not None:
                self.b._live(resource, AUDIT_CONFIG, f"projects/{self.project}/auditConfigs/{service}",
                             {**config, "name": service})

    def _sinks(self) -> None:
        logging = self.clients.service("logging").projects()
        sinks = self.b._read(
            (LOG_SINK,), lambda: self.clients.pages(logging.sinks(), "sinks", parent=f"projects/{self.project}")
        )
        if sinks is None:
            return
        by_name = {str(sink.get("name")): sink for sink in sinks}
        for resource in self.b.declared.of_type(LOG_SINK):
            sink = by_name.get(str(resource.props.get("name")))
            if sink is not None:
                self.b._live(resource, LOG_SINK, f"projects/{self.project}/sinks/{sink['name']}", sink)

    def _buckets(self) -> None:
        buckets_api = self.clients.service("logging").projects().locations().buckets()
        declared = self.b.declared.of_type(LOG_BUCKET)
        for location in sorted({str(r.props.get("location")) for r in declared}):
            parent = f"projects/{self.project}/locations/{location}"
            found = self.b._read(
                (LOG_BUCKET,), lambda parent=parent: self.clients.pages(buckets_api, "buckets", parent=parent)
            )
            if found is None:
                return
            by_name = {str(bucket.get("name")): bucket for bucket in found}
            for resource in declared:
                if str(resource.props.get("location")) != location:
                    continue
                bucket = by_name.get(f"{parent}/buckets/{resource.props.get('bucketId')}")
                if bucket is not None:
                    self.b._live(resource, LOG_BUCKET, str(bucket["name"]), bucket)
