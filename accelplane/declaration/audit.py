"""Who changed what: the audit trail a stack keeps of its own data, keys and secrets.

Each cloud builds it with its own audit service (its `composition` module) and keeps the records where
nobody in the platform can delete them before `retention_days` are over.
"""

from __future__ import annotations

from pydantic import Field

from accelplane.declaration.base import Model


class AuditTrail(Model):
    retention_days: int = Field(
        default=365, ge=1, le=3650,
        description="Days the audit records are kept, and cannot be deleted, before they expire.",
    )
