"""What `accelplane preflight` reports: one `PreflightCheck` per thing it confirmed, and the verdict.

A check says what the stack needs, what the account or project has, the headroom between them and,
where it falls short, the exact fix. Its status:

- `pass`: it fits;
- `warn`: it fits now but will not for long, or only just (a reservation ending soon, a rolling
  update that would not fit): never blocks;
- `fail`: it does not fit, `pulumi up` would fail part-way or nodes would never come up;
- `unknown`: the check could not be made (a call denied or throttled past its retries, a quota
  with no known code): never reported as fit, so it blocks unless `--allow-unknown`;
- `skip`: not applicable, with the reason.

Exit code: 1 when any check failed, or any is unknown without `--allow-unknown`; 0 otherwise.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from accelplane.tool import report_header
from accelplane.verify.text import one_line

PathPart = str | int


class Status(StrEnum):
    passed = "pass"
    warning = "warn"
    failed = "fail"
    unknown = "unknown"
    skipped = "skip"


# check id -> (title, what it confirms, the general fix); every check a cloud makes is listed here,
# so the SARIF rules and the JUnit suites name the same things.
CHECKS: dict[str, tuple[str, str, str]] = {
    "quota.vcpu": (
        "EC2 vCPU quota",
        "Every pool's vCPUs at its maximum size plus its update surge, with what already runs against the "
        "same quota, fit the applied Service Quotas value.",
        "Request an increase of the quota code named (Service Quotas console or `aws service-quotas "
        "request-service-quota-increase`), or lower the pools' maximum size.",
    ),
    "offering.zone": (
        "Instance or machine type offered in the zone",
        "The pool's instance or machine type, accelerator and TPU topology are offered in every zone its nodes use.",
        "Drop the zone from the pool (or the network's zones), or choose a type offered there.",
    ),
    "interconnect.efa": (
        "EFA and network performance",
        "A pool that declares EFA uses an instance type that supports it; shows its EFA interfaces and "
        "network performance (the inter-node bandwidth to confirm).",
        "Choose an EFA-capable instance type, or set efa: false.",
    ),
    "reservation": (
        "Capacity reservation",
        "A reservation or capacity block a pool names exists, is active, matches type, zone and count, "
        "and does not end within --min-days.",
        "Renew or extend the reservation, buy a new capacity block, or point the pool at one that fits.",
    ),
    "cluster.version": (
        "Kubernetes version",
        "The declared Kubernetes version is still supported (AWS: EKS in the region; Google Cloud: GKE in the "
        "release channel).",
        "Declare a supported kubernetes_version.",
    ),
    "node.image": (
        "Node image",
        "The node image each pool boots exists for the declared Kubernetes version.",
        "Pin an AMI release that exists for the version (ami_release_version), or move the version.",
    ),
    "quota.accelerator": (
        "Accelerator quota",
        "The GPUs or TPU chips every pool needs at its maximum size (and surge), on-demand, spot and reserved "
        "apart, fit the project's regional quota.",
        "Request an increase of the named quota (Google Cloud console, IAM & Admin > Quotas, or "
        "`gcloud beta quotas preferences create`), or lower the pools' maximum size.",
    ),
    "nodes.preflight": (
        "Bare-metal fleet preflight",
        "The stack's bare-metal hosts pass the whole-fleet node preflight (`accelplane nodes preflight`).",
        "Fix what the node preflight names on the hosts, then rerun.",
    ),
}


@dataclass(frozen=True)
class PreflightCheck:
    check: str  # a key of CHECKS
    subject: str  # what it is about: a pool, a quota code, a reservation
    status: Status
    message: str  # what was found, one line
    needs: str = ""
    has: str = ""
    headroom: str = ""
    fix: str = ""
    at: tuple[PathPart, ...] = ()  # the declaration element (under accelplane:platform) it is about

    def __post_init__(self) -> None:
        for name in ("message", "needs", "has", "headroom", "fix"):
            object.__setattr__(self, name, one_line(getattr(self, name), 600))

    def to_json(self) -> dict[str, Any]:
        return {
            "check": self.check, "subject": self.subject, "status": self.status.value, "needs": self.needs,
            "has": self.has, "headroom": self.headroom, "fix": self.fix, "message": self.message,
            "declared_at": ".".join(str(part) for part in self.at) or None,
        }


@dataclass
class PreflightReport:
    stack: str
    cloud: str
    where: str  # "account 123456789012, region us-west-2" / "project acme, region us-central1"
    endpoint: str
    checks: list[PreflightCheck] = field(default_factory=list)
    allow_unknown: bool = False
    api_calls: dict[str, Any] = field(default_factory=dict)
    wall_seconds: float = 0.0
    stack_file: str | None = None
    lines: dict[tuple[PathPart, ...], int] = field(default_factory=dict)  # declaration path -> stack file line

    @property
    def blocking(self) -> list[PreflightCheck]:
        blocking = {Status.failed} if self.allow_unknown else {Status.failed, Status.unknown}
        return [check for check in self.checks if check.status in blocking]

    @property
    def failed(self) -> bool:
        return bool(self.blocking)

    def counts(self) -> dict[str, int]:
        counted = Counter(check.status.value for check in self.checks)
        return {"total": len(self.checks), **{status.value: counted.get(status.value, 0) for status in Status}}

    def summary_line(self) -> str:
        n = self.counts()
        verdict = "BLOCKED" if self.failed else "CLEAR"
        unknown = f"{n['unknown']} unknown" + (" (allowed)" if self.allow_unknown and n["unknown"] else "")
        return (f"{verdict}: {n['fail']} short, {unknown}, {n['warn']} warned, {n['pass']} fit, "
                f"{n['skip']} skipped ({n['total']} checks)")

    def to_json(self) -> dict[str, Any]:
        return {
            **report_header(),
            "stack": self.stack,
            "cloud": self.cloud,
            "where": self.where,
            "endpoint": self.endpoint,
            "checks": [check.to_json() for check in self.checks],
            "summary": {**self.counts(), "blocked": self.failed, "allow_unknown": self.allow_unknown},
            "api_calls": self.api_calls,
            "wall_seconds": round(self.wall_seconds, 3),
        }


def unknown(check: str, subject: str, why: str, *, fix: str = "", at: Sequence[PathPart] = ()) -> PreflightCheck:
    """A check that could not be made: never reported as fit."""
    return PreflightCheck(check, subject, Status.unknown, why, fix=fix, at=tuple(at))


def aware(moment: Any) -> Any:
    """A datetime with its zone: UTC where an API answer gave none (AWS's are UTC); anything else as is."""
    if isinstance(moment, datetime) and moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment


def time_left(end: datetime, now: datetime) -> str:
    """How long until `end`, as a reader needs it: hours under two days (a reservation ending in 23 hours
    has not "0 days left"), days beyond; what already ended says so."""
    seconds = (end - now).total_seconds()
    if seconds <= 0:
        ago = -seconds
        return f"ended {int(ago // 3600)} hours ago" if ago < 2 * 86400 else f"ended {int(ago // 86400)} days ago"
    if seconds < 2 * 86400:
        hours = int(seconds // 3600)
        return f"{hours} hour{'s' if hours != 1 else ''} left" if hours else "under an hour left"
    return f"{int(seconds // 86400)} days left"
