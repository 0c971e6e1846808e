"""What `accelplane migrate status | advance | abort` decide, from the declaration, the live weights the
DNS service holds, each end's traffic and the parity report.

`advance`, in order:
1. live weights that differ from the declaration → refuse (exit 1, nothing written): someone moved
   them by hand, or `pulumi up` has not run; judging a step that is not serving would be wrong;
2. the target at 100 % → complete, nothing to do;
3. the target at 0 → start: the first step, no gates (the target has no traffic yet to judge), once a
   passing restore drill proves the model's files at the target where the migration declares a copy;
4. past the first step only with a passing parity report for each serving backend of the target at its
   image and the pinned golden set (the first step is where parity is checked on live hardware);
5. the step still baking (`since` + `bake` after `--now`) → hold;
6. the gates over both ends' traffic, the target judged against the source (the rollout's gates):
   pass → the next step; hold → hold; fail → roll back to 0 (exit 1).
`abort` gives the source every weight in one DNS change, whatever the gates say.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum

from accelplane.cloud_support import Connection
from accelplane.declaration.base import duration_seconds
from accelplane.errors import InputError
from accelplane.migration.checks import end_service
from accelplane.migration.facets import LiveDnsError, LiveRecords, dns_services
from accelplane.migration.metrics import EndMetrics, read_end
from accelplane.migration.stack import MigrationStack
from accelplane.prometheus_api import authorization_for
from accelplane.rollout.gates import GateJudgement, GateVerdict, judge
from accelplane.rollout.traffic import BackendTraffic

SOURCE, TARGET = "source", "target"


class MoveAction(StrEnum):
    start = "start"
    advance = "advance"
    hold = "hold"
    rollback = "rollback"
    abort = "abort"
    complete = "complete"
    refuse = "refuse"


@dataclass
class Situation:
    stack: MigrationStack
    now: datetime
    declared: dict[str, int]  # by end stack name
    live: dict[str, int] | None = None  # None: not read (the DNS service cannot yet, or --offline)
    live_note: str = ""
    traffic: dict[str, BackendTraffic] = field(default_factory=dict)  # by role
    judgement: GateJudgement | None = None
    parity_note: str | None = None

    @property
    def weight(self) -> int:
        return self.stack.migration.weight


@dataclass(frozen=True)
class Decision:
    action: MoveAction
    weight: int  # the target's weight after it
    reason: str

    @property
    def exit_code(self) -> int:
        return 1 if self.action in (MoveAction.rollback, MoveAction.refuse) else 0


def labels(stack: MigrationStack) -> tuple[str, str]:
    return stack.source.stack, stack.target.stack


def weights_for(stack: MigrationStack, target_weight: int) -> dict[str, int]:
    source, target = labels(stack)
    return {source: 100 - target_weight, target: target_weight}


def live_records(stack: MigrationStack, connection: Connection) -> LiveRecords:
    return LiveRecords(zone=stack.migration.dns.zone, hostname=stack.migration.hostname, labels=labels(stack),
                       connection=connection)


def read_live(found: Situation, connection: Connection) -> None:
    dns = dns_services()[found.stack.migration.dns.service]
    if dns.read_weights is None:
        found.live_note = f"{dns.title}'s live weights are not read yet: only the declaration is shown"
        return
    try:
        found.live = dns.read_weights(live_records(found.stack, connection))
    except LiveDnsError as error:
        raise InputError.single(f"the DNS ({dns.title}): {error}", file=str(found.stack.path),
                                line=found.stack.line_of("dns"), field="accelplane:migration.dns") from None
    found.live_note = f"read from {dns.title} zone {found.stack.migration.dns.zone}"


def read_traffic(found: Situation, ends: dict[str, EndMetrics]) -> None:
    window = found.stack.migration.gates.window
    found.traffic = {role: read_end(end, window, found.now) for role, end in ends.items()}
    found.judgement = judge(found.traffic, SOURCE, TARGET, found.stack.migration.gates)


def end_metrics(stack: MigrationStack, urls: dict[str, str | None],
                connections: Mapping[str, Connection]) -> dict[str, EndMetrics] | None:
    """Both ends' Prometheus, or None when a URL is missing (the caller says which option to give). A cloud's
    managed Prometheus (Managed Service for Prometheus on a GKE end) is queried with that cloud's
    credentials and the end's connection options."""
    if not all(urls.values()):
        return None
    ends: dict[str, EndMetrics] = {}
    for role in (SOURCE, TARGET):
        end = getattr(stack, role)
        service = end_service(end, getattr(stack.migration, role).service)
        assert service is not None  # the loader's checks
        url, option = str(urls[role]), f"--{role}-prometheus-url"
        try:
            authorization = authorization_for(end.platform.cloud, url,
                                              connections.get(end.platform.cloud, Connection()))
        except InputError as error:
            detail = "; ".join(problem.message for problem in error.problems)
            raise InputError.single(f"the {role} end ({end.stack}): {detail}", file="accelplane migrate",
                                    field=option) from None
        ends[role] = EndMetrics(role=role, stack=end.stack, service=service, url=url, option=option,
                                authorization=authorization)
    return ends


def next_step(stack: MigrationStack) -> int:
    steps, weight = stack.migration.steps, stack.migration.weight
    return next(step for step in steps if step > weight)


def live_disagreement(found: Situation) -> str | None:
    if found.live is None or found.live == found.declared:
        return None
    show = ", ".join(f"{label} {weight}%" for label, weight in found.live.items())
    wanted = ", ".join(f"{label} {weight}%" for label, weight in found.declared.items())
    return (f"the DNS serves {show}, the stack file declares {wanted}: run `pulumi up --stack {found.stack.stack}` "
            "to restore the declared weights (or fix the file to match), then advance")


def baking(found: Situation) -> timedelta | None:
    """How long the step still bakes, or None when it has baked (or no time was written)."""
    since = found.stack.migration.since
    if since is None:
        return None
    started = datetime.strptime(since, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=found.now.tzinfo)
    left = started + timedelta(seconds=duration_seconds(found.stack.migration.bake)) - found.now
    return left if left > timedelta(0) else None


def decide_advance(found: Situation, parity: tuple[bool, str] | None,
                   artifacts: tuple[bool, str] | None = None) -> Decision:
    """`parity`: (passed, what to say) for the target's images, or None where it was not looked up;
    `artifacts`: the same for the restore drill of the model's files (None: none declared)."""
    weight = found.weight
    refusal = live_disagreement(found)
    if refusal:
        return Decision(MoveAction.refuse, weight, refusal)
    if weight == 100:
        return Decision(MoveAction.complete, 100, "every client is on the target: the migration is complete")
    if weight == 0 and artifacts is not None and not artifacts[0]:
        return Decision(MoveAction.refuse, 0, f"the target may not take its first step before the model's files are "
                                              f"proven there: {artifacts[1]}")
    if weight == 0:
        first = next_step(found.stack)
        return Decision(MoveAction.start, first, f"start: the target takes {first}% (the gates judge it from there)")
    if parity is not None and not parity[0]:
        return Decision(MoveAction.refuse, weight, f"the target may not go past {weight}% without a passing parity "
                                                   f"check: {parity[1]}")
    left = baking(found)
    if left is not None:
        return Decision(MoveAction.hold, weight, f"holding: the step is baking for {int(left.total_seconds())} s more")
    judgement = found.judgement
    assert judgement is not None  # read_traffic ran: the caller gives both ends' metrics past the first step
    if judgement.verdict is GateVerdict.rollback:
        return Decision(MoveAction.rollback, 0, f"rollback to the source: {judgement.reason}")
    if judgement.verdict is GateVerdict.hold:
        return Decision(MoveAction.hold, weight, f"holding: {judgement.reason}")
    step = next_step(found.stack)
    return Decision(MoveAction.advance, step, f"advance: every gate holds; the target takes {step}%")


def decide_abort(found: Situation) -> Decision:
    return Decision(MoveAction.abort, 0, "abort: the source takes every request")
