"""`AuditLogs`: Cloud Audit Logs of who read or changed the stack's objects, keys and secrets, kept in a
locked log bucket.

- Admin Activity audit logs are always written and cannot be turned off; Data Access audit logs are
  off by default except for BigQuery. The project's audit configuration turns them on (ADMIN_READ,
  DATA_READ, DATA_WRITE) for Cloud Storage, Cloud KMS and Secret Manager: object reads and writes,
  key use, secret access ("Cloud Audit Logs overview"; "Configure Data Access audit logs").
- A log sink routes every audit log of the project (`logName:"cloudaudit.googleapis.com"`) into a
  log bucket of the stack's region with `retention_days` and locked: a locked bucket's retention
  cannot be shortened and the bucket cannot be deleted while it holds logs younger than that
  ("Configure log buckets", bucket lock). A sink into a log bucket of its own project writes without
  a grant to its writer identity.
- Nobody is granted reading here: Data Access logs need Private Logs Viewer, given by the project's
  owners to their auditors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_gcp.logging as gcp_logging
import pulumi_gcp.projects as projects

# The services whose Data Access audit logs a stack turns on (storage: model files and checkpoints).
AUDITED_SERVICES = ("storage.googleapis.com", "cloudkms.googleapis.com", "secretmanager.googleapis.com")
DATA_ACCESS_LOG_TYPES = ("ADMIN_READ", "DATA_READ", "DATA_WRITE")
AUDIT_LOG_FILTER = 'logName:"cloudaudit.googleapis.com"'


@dataclass(frozen=True)
class AuditLogsArgs:
    project: str
    location: str  # the log bucket's region
    bucket_id: str
    retention_days: int
    services: Sequence[str] = AUDITED_SERVICES


class AuditLogs(pulumi.ComponentResource):
    def __init__(self, name: str, args: AuditLogsArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:gcp:AuditLogs", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        for service in args.services:
            projects.IAMAuditConfig(
                f"{name}-{service.split('.')[0]}",
                project=args.project,
                service=service,
                audit_log_configs=[{"log_type": log_type} for log_type in DATA_ACCESS_LOG_TYPES],
                opts=child,
            )
        bucket = gcp_logging.ProjectBucketConfig(
            f"{name}-bucket",
            project=args.project,
            location=args.location,
            bucket_id=args.bucket_id,
            retention_days=args.retention_days,
            locked=True,
            description="Audit logs of the stack's project, kept and locked for the declared retention",
            opts=child,
        )
        gcp_logging.ProjectSink(
            f"{name}-sink",
            name=args.bucket_id,
            project=args.project,
            destination=pulumi.Output.concat("logging.googleapis.com/projects/", args.project, "/locations/",
                                             args.location, "/buckets/", bucket.bucket_id),
            filter=AUDIT_LOG_FILTER,
            unique_writer_identity=True,
            opts=child,
        )
        self.register_outputs({})
