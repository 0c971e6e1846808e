"""What `accelplane verify` reports: one `CheckResult` per thing it looked at, and the report.

A result names the check (a stable id such as `drift.changed`, `endpoint.health`, or a policy rule id
such as `AP-IAM-006`), its status, the declared resource it is about (type token, logical name, URN)
and, for drift, the property path with the declared and the live value. Exit code: 1 when any result
failed, 0 otherwise (warnings and skips do not fail a run).

Every result is one check with one status, and every count a report shows comes from
`VerifyReport.counts()`: the header, the summary line, JSON `summary.checks` and JUnit
`tests`/`failures`/`skipped` (a warning is a passing JUnit case with the warning in its output).
A message is one bounded line whatever an API wrote into it (`accelplane.verify.text`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypedDict

from accelplane.tool import report_header
from accelplane.verify.text import one_line


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
    stack_missing = "drift.stack-missing"  # nothing of the stack in this account and region
    coverage = "verify.coverage"  # declared types verify does not read (routes, Kubernetes objects)
    read_error = "verify.read-error"  # an API call failed (access denied, ...): not verified is not passed
    cluster_status = "live.cluster-status"
    node_group_status = "live.node-group-status"
    project_iam = "live.project-iam"  # Google Cloud: project grants of other principals, information only
    launch_template_version = "live.launch-template-version"
    target_health = "live.target-health"
    rate_limit = "live.rate-limit"  # the endpoint's declared rate limits: attached, present, enforcing
    kms_key_state = "live.kms-key-state"
    certificate = "live.certificate"
    secret_value = "live.secret-value"
    secret_rotation = "live.secret-rotation"
    trail_logging = "live.trail-logging"  # a declared CloudTrail trail is logging and delivering
    rules = "rules.evaluated"
    endpoint_tls = "endpoint.tls"
    endpoint_health = "endpoint.health"
    endpoint_certificate = "endpoint.certificate-expiry"
    endpoint_latency = "endpoint.latency"
    endpoint_tls_versions = "endpoint.tls-versions"
    endpoint_http_redirect = "endpoint.http-redirect"
    endpoint_auth = "endpoint.auth"  # a client without credentials is refused where client_auth is declared
    checkpoint_present = "checkpoint.present"
    checkpoint_age = "checkpoint.age"
    checkpoint_integrity = "checkpoint.integrity"
    checkpoint_restore = "checkpoint.restore"


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

    def __post_init__(self) -> None:
        object.__setattr__(self, "message", one_line(self.message))

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
    account: str | None = None  # the caller's account (sts:GetCallerIdentity)
    region: str | None = None
    endpoint: str = "the default endpoints"  # or the --endpoint-url the calls went to
    resources: int = 0  # declared resources of the types this command reads live
    unreadable: int = 0  # of those, how many could not be read (a call failed): not verified
    # Live objects read, per type token (declared, AWS's own, unexpected): what the report covered.
    coverage: dict[str, int] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return any(result.status is Status.failed for result in self.results)

    def summary(self) -> dict[str, int]:
        counts = Counter(result.status.value for result in self.results)
        return {status.value: counts.get(status.value, 0) for status in Status}

    def counts(self) -> dict[str, int]:
        """`total` checks and how many of each status: the numbers every format shows."""
        return {"total": len(self.results), **self.summary()}

    def where(self) -> str:
        """`account 123456789012, region us-east-1, endpoint AWS default endpoints`."""
        return f"account {self.account or 'unknown'}, region {self.region or 'unknown'}, endpoint {self.endpoint}"

    def counts_line(self) -> str:
        """`115 checks (65 declared resources read): 3 failed, 1 warning, 35 skipped, 76 passed`."""
        n = self.counts()
        return (
            f"{_plural(n['total'], 'check')} ({_plural(self.resources, 'declared resource')} read): "
            f"{n['fail']} failed, {_plural(n['warn'], 'warning')}, {n['skip']} skipped, {n['pass']} passed"
        )

    def summary_line(self) -> str:
        """The verdict with the counts: `FAILED: 3 failed, 1 warning, 35 skipped, 76 passed (115 checks)`."""
        n = self.counts()
        return (
            f"{'FAILED' if self.failed else 'PASSED'}: {n['fail']} failed, {_plural(n['warn'], 'warning')}, "
            f"{n['skip']} skipped, {n['pass']} passed ({_plural(n['total'], 'check')})"
        )

    @property
    def verified_percent(self) -> float:
        """The share of declared resources of the types read that could be read (100 when all)."""
        if not self.resources:
            return 100.0
        return round(100.0 * (self.resources - self.unreadable) / self.resources, 1)

    def coverage_line(self) -> str:
        """`verified 65 of 65 declared resources (100.0%); read live: 3 aws:eks/nodeGroup:NodeGroup, ...`."""
        verified = (
            f"verified {self.resources - self.unreadable} of {_plural(self.resources, 'declared resource')} "
            f"({self.verified_percent}%)"
        )
        if not self.coverage:
            return f"{verified}; read live: nothing"
        read = ", ".join(f"{count} {type_token}" for type_token, count in sorted(self.coverage.items()))
        return f"{verified}; read live: {read}"

    def findings(self) -> list[dict[str, Any]]:
        """Policy-rule findings on the live resources, in the `accelplane check` JSON shape."""
        return [result.finding for result in self.results if result.finding is not None]

    def to_json(self) -> dict[str, Any]:
        return {
            **report_header(),
            "stack": self.stack,
            "platform": self.platform,
            "account": self.account,
            "region": self.region,
            "endpoint": self.endpoint,
            "resources": self.resources,
            "coverage": dict(sorted(self.coverage.items())),
            "verified_percent": self.verified_percent,
            "checks": [result.to_json() for result in self.results],
            "findings": self.findings(),
            "summary": {**self.counts(), "failed": self.failed},
            "api_calls": self.api_calls,
            "wall_seconds": round(self.wall_seconds, 3),
        }


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
