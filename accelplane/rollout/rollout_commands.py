"""`accelplane rollout status|advance|abort`: judge the canary, move its weight, write the stack file.

The order of decisions in `advance` (docs/rollout.md):

1. the canary already takes 100% → complete, nothing to do;
2. the canary takes 0% → hold (nothing to judge); `--start` moves it to the first step;
3. the gates over the window (accelplane.rollout.gates): too few canary requests → hold; a gate
   failing → roll back, even while the step is still baking (exit 1);
4. the step has not baked yet (now - since < bake) → hold;
5. otherwise the next step's weights, and `since` = now.

What is written is checked before anything changes (accelplane.rollout.stack_file); with
`--apply-now` the live listener or rule weights are set before the file is replaced, so a refused
API call leaves both as they were.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from accelplane.cloud_support import Capability, Connection, NotSupportedError, cloud_support
from accelplane.config.loader import StackConfig
from accelplane.declaration import PROMETHEUS_METRICS, InferenceService, duration_seconds
from accelplane.errors import InputError
from accelplane.prometheus_api import authorization_for
from accelplane.rollout import prometheus, steps
from accelplane.rollout.gates import GateJudgement, GateVerdict, judge
from accelplane.rollout.route import LiveRoute, RouteError, RouteRequest, has_live_route, live_route
from accelplane.rollout.stack_file import Rewrite, rewrite
from accelplane.rollout.traffic import Traffic

TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


class Action(StrEnum):
    advance = "advance"
    start = "start"
    hold = "hold"
    rollback = "rollback"
    complete = "complete"
    abort = "abort"
    offline = "not judged"  # status --no-live: no metrics read


@dataclass(frozen=True)
class Options:
    service: str
    now: datetime
    prometheus_url: str | None = None
    connection: Connection = field(default_factory=Connection)  # the stack's cloud's connection options
    kube_context: str | None = None
    timeout: float = 10.0
    live: bool = True
    start: bool = False


@dataclass
class Decision:
    action: Action
    reason: str
    weights: dict[str, int] | None = None  # the weights to write; None: nothing to write


@dataclass
class Situation:
    """Everything status shows and advance decides on."""

    stack: StackConfig
    service: InferenceService
    position: steps.Position
    now: datetime
    declared: dict[str, int]
    traffic: Traffic | None = None
    judgement: GateJudgement | None = None
    live: dict[str, int] | None = None
    live_note: str | None = None
    route_state: str | None = None  # what the cloud says of the live route (GKE: Gateway and route conditions)
    parity_note: str | None = None  # the canary's parity report, where the rollout declares parity
    bake_left: timedelta | None = None  # None: baked (or no since)
    decision: Decision | None = None
    route: LiveRoute | None = field(default=None, repr=False)


def parse_timestamp(text: str) -> datetime:
    return datetime.strptime(text, TIMESTAMP_FORMAT).replace(tzinfo=UTC)


def format_timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime(TIMESTAMP_FORMAT)


def find_service(stack: StackConfig, name: str) -> InferenceService:
    layer = stack.platform.kubernetes
    services = layer.inference_services if layer is not None else []
    service = next((s for s in services if s.name == name), None)
    if service is None:
        known = ", ".join(s.name for s in services) or "none"
        raise InputError.single(f"no inference service {name!r} (declared: {known})", file=str(stack.path),
                                line=stack.line_of("kubernetes"), field="--service")
    index = services.index(service)
    if service.rollout is None or service.backends is None:
        raise InputError.single(
            f"service {name!r} declares no rollout (backends with weights and a `rollout:` policy)",
            file=str(stack.path), line=stack.line_of("kubernetes", "inference_services", index),
            field=f"kubernetes.inference_services[{index}].rollout",
        )
    return service


def _step_error(stack: StackConfig, service: InferenceService, error: steps.StepError) -> InputError:
    index = next(i for i, s in enumerate(stack.platform.kubernetes.inference_services)  # type: ignore[union-attr]
                 if s.name == service.name)
    return InputError.single(str(error), file=str(stack.path),
                             line=stack.line_of("kubernetes", "inference_services", index, "backends"),
                             field=f"kubernetes.inference_services[{index}].backends")


def situation(stack: StackConfig, options: Options, *, metrics: bool, live: bool) -> Situation:
    service = find_service(stack, options.service)
    try:
        here = steps.position(service)
    except steps.StepError as error:
        raise _step_error(stack, service, error) from None
    found = Situation(stack, service, here, options.now, steps.weights(service))
    rollout = service.rollout
    assert rollout is not None
    if metrics and rollout.metrics == PROMETHEUS_METRICS and not options.prometheus_url:
        raise InputError.single(  # before any AWS call a status would make for the live weights
            "the rollout reads Prometheus (rollout.metrics: prometheus): give --prometheus-url URL",
            field="--prometheus-url", file="accelplane rollout")
    if rollout.since is not None:
        left = parse_timestamp(rollout.since) + timedelta(seconds=duration_seconds(rollout.bake)) - options.now
        found.bake_left = left if left > timedelta(0) else None
    if live or (metrics and rollout.metrics != PROMETHEUS_METRICS):
        find_route(found, options)
    if metrics:
        found.traffic = _traffic(service, options, found)
        found.judgement = judge(found.traffic, here.baseline, here.canary, rollout.gates)
    return found


def route_request(stack: StackConfig, service: InferenceService, options: Options) -> RouteRequest:
    return RouteRequest(stack.platform, service, options.connection, options.kube_context)


def find_route(found: Situation, options: Options) -> None:
    """The service's live route and weights; why not, in `live_note`, when there is none."""
    request = route_request(found.stack, found.service, options)
    try:
        route: LiveRoute = live_route(request)
        found.route = route
        found.live = route.weights()
        found.route_state = route.state()
    except (RouteError, NotSupportedError) as error:
        found.live_note = str(error)


def _traffic(service: InferenceService, options: Options, found: Situation) -> Traffic:
    rollout = service.rollout
    assert rollout is not None
    names = [backend.name for backend in service.serving_backends]
    if rollout.metrics == PROMETHEUS_METRICS:
        assert options.prometheus_url is not None  # checked in situation()
        authorization = authorization_for(found.stack.platform.cloud, options.prometheus_url,
                                                     options.connection)
        return prometheus.read_traffic(options.prometheus_url, service.name, names, rollout, options.now,
                                       options.timeout, authorization)
    if found.route is None:
        raise InputError.single(
            f"cannot read the {rollout.metrics} metrics of service {service.name!r}: {found.live_note}",
            file="accelplane rollout")
    return found.route.traffic(names, duration_seconds(rollout.gates.window), options.now)


def advance_situation(stack: StackConfig, options: Options) -> tuple[Situation, str | None]:
    """What advance decides on, and why it must refuse (None: it may decide). The live weights are
    read before any metric, so a route changed by hand stops it before Prometheus is asked."""
    found = situation(stack, options, metrics=False, live=False)
    if live_weights_readable(found):
        find_route(found, options)
        refusal = live_disagreement(found)
        if refusal is not None:
            return found, refusal
    refusal = parity_refusal(found, options)
    if refusal is not None:
        return found, refusal
    needs_metrics = not found.position.complete and found.position.canary_weight > 0 and not options.start
    if needs_metrics:
        judged = situation(stack, options, metrics=True, live=False)
        judged.live, judged.live_note, judged.route = found.live, found.live_note, judged.route or found.route
        judged.route_state = found.route_state
        found = judged
    return found, None


def parity_refusal(found: Situation, options: Options) -> str | None:
    """Why advance may not move the canary past its first step: no passing parity report for its
    current image and the pinned golden set (where the rollout declares parity). Starting, and
    the first step itself, need none: the first step is where parity is checked on live hardware."""
    rollout = found.service.rollout
    if rollout is None or rollout.parity is None or found.position.complete or found.position.canary_weight == 0:
        return None
    # Start-up time and layering: the parity package loads only for rollouts that declare it.
    from accelplane.rollout.parity.parity_command import canary_report

    passed, note = canary_report(found.stack, found.service, options.connection)
    found.parity_note = note
    if passed:
        return None
    return (f"the canary {found.position.canary!r} may not go past {found.position.canary_weight}% without a "
            f"passing parity check: {note}")


def live_weights_readable(found: Situation) -> bool:
    """Whether the cloud can read the service's live weights (an exposed service on a cloud that can)."""
    return has_live_route(found.stack.platform.cloud) and bool(found.service.expose)


def live_disagreement(found: Situation) -> str | None:
    """Why `advance` must not move a rollout whose live route is not what the stack file declares:
    someone changed the weights by hand (or `pulumi up` has not run), and the step would be judged
    and written against weights that are not serving. None when they agree or were not read."""
    if found.live is None:
        return None
    declared = {name: weight for name, weight in found.declared.items()}
    live = {name: found.live.get(name, 0) for name in declared} | {
        name: weight for name, weight in found.live.items() if name not in declared and weight
    }
    if live == declared:
        return None
    where = found.route.where if found.route is not None else "the live route"
    show = ", ".join(f"{name} {weight}%" for name, weight in live.items())
    wanted = ", ".join(f"{name} {weight}%" for name, weight in declared.items())
    return (f"{where} serves {show}, the stack file declares {wanted}: run `pulumi up` to restore the declared "
            "weights (or fix the file to match), then advance")


def decide_advance(found: Situation, start: bool) -> Decision:
    here, service = found.position, found.service
    try:
        if here.complete:
            return Decision(Action.complete, f"the canary {here.canary!r} takes 100% of the requests: the rollout "
                            "is complete")
        if start:
            if here.canary_weight != 0:
                raise InputError.single(f"--start: the canary {here.canary!r} already takes {here.canary_weight}%",
                                        field="--start", file=str(found.stack.path))
            return Decision(Action.start, f"rollout started: the canary {here.canary!r} takes its first step",
                            steps.advanced(service))
        if here.canary_weight == 0:
            return Decision(Action.hold, f"the canary {here.canary!r} takes 0% of the requests, so there is nothing "
                            "to judge (not started, or rolled back); `advance --start` gives it the first step")
        judgement = found.judgement
        assert judgement is not None
        if judgement.verdict is GateVerdict.rollback:
            return Decision(Action.rollback, judgement.reason, steps.rolled_back(service))
        if judgement.verdict is GateVerdict.hold:
            return Decision(Action.hold, judgement.reason)
        rollout = service.rollout
        assert rollout is not None
        if found.bake_left is not None:
            return Decision(Action.hold, f"the step is baking: {_seconds(found.bake_left)} left of {rollout.bake} "
                            f"(since {rollout.since})")
        return Decision(Action.advance, "every gate holds and the step has baked: the canary goes to "
                        f"{here.next_step}%", steps.advanced(service))
    except steps.StepError as error:
        raise _step_error(found.stack, service, error) from None


def decide_offline(found: Situation) -> Decision:
    """What status says without reading anything live (`--no-live`): where the rollout stands and what
    `advance` would need, from the declaration alone."""
    here = found.position
    rollout = found.service.rollout
    assert rollout is not None
    if here.complete or here.canary_weight == 0:
        return decide_advance(found, start=False)  # neither needs a metric
    bake = (f"the step bakes {_seconds(found.bake_left)} more" if found.bake_left is not None
            else "the step has baked" if rollout.since else "no since: the bake counts as passed")
    return Decision(Action.offline, f"advance moves the canary to {here.next_step}% once every gate holds over "
                    f"{rollout.gates.window} of {rollout.metrics} metrics (not read: --no-live); {bake}")


def record_of(found: Situation, decision: Decision) -> dict[str, object]:
    """The decision as the stack file's `rollout.history` keeps it: when, what, the weights, the gates' values."""
    gates = {gate.name: round(gate.observed, 6) for gate in (found.judgement.gates if found.judgement else ())
             if gate.observed is not None}
    record: dict[str, object] = {"at": format_timestamp(found.now), "action": decision.action.value,
                                 "weights": dict(decision.weights or {})}
    if gates:
        record["gates"] = gates
    record["reason"] = decision.reason[:400]
    return record


def decide_abort(found: Situation) -> Decision:
    try:
        return Decision(Action.abort, f"aborted: the baseline {found.position.baseline!r} takes every request",
                        steps.aborted(found.service))
    except steps.StepError as error:
        raise _step_error(found.stack, found.service, error) from None


def _seconds(delta: timedelta) -> str:
    total = max(0, int(delta.total_seconds() + 0.999))
    return f"{total // 60}m{total % 60:02d}s" if total >= 60 else f"{total}s"


def prepare(found: Situation, decision: Decision) -> Rewrite | None:
    """The checked rewrite of the stack file; None when the weights are those declared already."""
    if decision.weights is None or decision.weights == found.declared:
        return None
    return rewrite(found.stack, found.service.name, decision.weights, format_timestamp(found.now),
                   record_of(found, decision))


def apply_live(found: Situation, options: Options, weights: dict[str, int]) -> str:
    stack, service = found.stack, found.service
    support = cloud_support(stack.platform.cloud)
    if not has_live_route(stack.platform.cloud) or not service.expose:
        raise InputError.single("--apply-now sets the weights of the service's live route: the service must be "
                                f"exposed on a cloud whose weights accelplane sets ({stack.platform.cloud}: "
                                f"{support.not_yet.get(Capability.live_weights, 'not exposed')})",
                                field="--apply-now", file=str(stack.path))
    try:
        route: LiveRoute = found.route or live_route(route_request(stack, service, options))
        route.apply(weights)
    except RouteError as error:
        raise InputError.single(f"--apply-now: {error}; nothing written", field="--apply-now",
                                file="accelplane rollout") from None
    return route.where


def changes(before: dict[str, int], after: dict[str, int]) -> str:
    moved = [f"{name} {before.get(name, 0)}% -> {weight}%" for name, weight in after.items()
             if before.get(name, 0) != weight]
    return ", ".join(moved) or "no weight changes"
