"""What `accelplane verify` reports: one `CheckResult` per thing it looked at, and the report.

A result names the check (a stable id such as `drift.changed`, `endpoint.health`, or a policy rule id
such as `AP-IAM-006`), its status, the declared resource it is about (type token, logical name, URN)
and, for drift, the property path with the declared and the live value. Exit code: 1 when any result
failed, 0 otherwise (warnings and skips do not fail a run).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypedDict


class Status(StrEnum):
    passed = "pass"
    failed = "fail"
    warning = "warn"
    skipped = "skip"

    @property
    def rank(self) -> int:
        return {"fail": 3, "warn": 2, "skip": 1, "pass": 0}[self.value]


class CheckId(StrEnum):
    """Every check this command runs (policy findings use the rule's own id instead)."""

    drift_missing = "drift.missing"  # declared, not found live
    drift_changed = "drift.changed"  # found, a declared property differs
    drift_unexpected = "drift.unexpected"  # live, carries the platform's identity, not declared
    drift_unverifiable = "drift.unverifiable"  # declared, the API did not report the property
    drift_matched = "drift.matched"  # one pass line per declared resource that matches
    coverage = "verify.coverage"  # declared types verify does not read (routes, Kubernetes objects)
    read_error = "verify.read-error"  # an API call failed (access denied, ...): not verified is not passed
    cluster_status = "live.cluster-status"
    node_group_status = "live.node-group-status"
    launch_template_version = "live.launch-template-version"
    target_health = "live.target-health"
    kms_key_state = "live.kms-key-state"
    secret_value = "live.secret-value"
    secret_rotation = "live.secret-rotation"
    rules = "rules.evaluated"
    endpoint_tls = "endpoint.tls"
    endpoint_health = "endpoint.health"
    endpoint_certificate = "endpoint.certificate-expiry"
    endpoint_latency = "endpoint.latency"
    checkpoint_present = "checkpoint.present"
    checkpoint_age = "checkpoint.age"
    checkpoint_integrity = "checkpoint.integrity"


class Subject(TypedDict, total=False):
    """The declared resource a result is about (keyword arguments of `CheckResult`)."""

    type: str
    name: str
    urn: str | None


@dataclass(frozen=True)
class CheckResult:
    check: str
    status: Status
    message: str
    type: str = ""
    name: str = ""
    urn: str | None = None
    path: str | None = None
    expected: Any = None
    actual: Any = None
    # For policy-rule results: the finding in the `accelplane check` JSON shape.
    finding: dict[str, Any] | None = None
    waiver_reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "check": self.check,
            "status": self.status.value,
            "type": self.type,
            "name": self.name,
            "urn": self.urn,
            "message": self.message,
        }
        if self.path is not None:
            out["path"] = self.path
            out["expected"] = self.expected
            out["actual"] = self.actual
        if self.finding is not None:
            out["finding"] = self.finding
        return out


@dataclass
class VerifyReport:
    stack: str
    platform: str
    results: list[CheckResult] = field(default_factory=list)
    api_calls: dict[str, Any] = field(default_factory=dict)
    wall_seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return any(result.status is Status.failed for result in self.results)

    def summary(self) -> dict[str, int]:
        counts = Counter(result.status.value for result in self.results)
        return {status.value: counts.get(status.value, 0) for status in Status}

    def findings(self) -> list[dict[str, Any]]:
        """Policy-rule findings on the live resources, in the `accelplane check` JSON shape."""
        return [result.finding for result in self.results if result.finding is not None]

    def to_json(self) -> dict[str, Any]:
        return {
            "stack": self.stack,
            "platform": self.platform,
            "checks": [result.to_json() for result in self.results],
            "findings": self.findings(),
            "summary": {**self.summary(), "failed": self.failed},
            "api_calls": self.api_calls,
            "wall_seconds": round(self.wall_seconds, 3),
        }
