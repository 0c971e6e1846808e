"""The inference endpoint's routing: which target groups each forward action sends requests to, by weight.

The program gives every exposed inference service one target group per backend, tagged
`accelplane:service` and `accelplane:backend` (`aws/inference_endpoint.py`); the HTTPS listener's
default action forwards to the backends of the service on "/" and a listener rule per other service
(path pattern `<prefix>*`) to its backends, each target group with its backend's declared weight.

Drift in that routing is judged here, once per forward action, in the declaration's own terms:
which service, which backends, their declared and live weights and, when a rollout is declared, its
baseline and canary. The generic property comparison (`drift`) sees the actions without their
targets (`without_targets`), so a weight that differs is one result with one readable message, not
a list diff of ARNs as well.

Weights are compared as written (ALB weights are relative, 0-999; the program writes percentages):
`pulumi up` would rewrite any other numbers, so they are drift even where the shares agree. A backend
a forward does not name gets no requests, the same as weight 0. `accelplane rollout --apply-now`
sets live weights ahead of `pulumi up` on purpose: the message says so, as one of the two causes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from accelplane.clouds.aws.alb_forward import forward_targets
from accelplane.clouds.aws.endpoint_tags import BACKEND_TAG, SERVICE_TAG, WEIGHTS_TAG, parse_weights
from accelplane.rules.view import Resource
from accelplane.verify.canonical import symbol
from accelplane.verify.results import CheckId, CheckResult, Status, Subject

if TYPE_CHECKING:
    from accelplane.clouds.aws.verify.view import AwsLiveView
    from accelplane.declaration import InferenceService
    from accelplane.verify.declared import DeclaredPlatform

TARGET_GROUP = "aws:lb/targetGroup:TargetGroup"
LISTENER = "aws:lb/listener:Listener"
LISTENER_RULE = "aws:lb/listenerRule:ListenerRule"
# The declared input holding a resource's actions.
ACTIONS_KEY = {LISTENER: "defaultActions", LISTENER_RULE: "actions"}

# -- the live shape ---------------------------------------------------------------------------------


def live_forward(action: Mapping[str, Any]) -> dict[str, Any] | None:
    """An API action's forward config in the declared (wire) shape: `{targetGroups: [{arn, weight}],
    stickiness: {enabled, duration}}`."""
    targets = forward_targets(action)
    if not targets:
        return None
    stickiness = (action.get("ForwardConfig") or {}).get("TargetGroupStickinessConfig")
    return {
        "targetGroups": [{"arn": arn, "weight": weight} for arn, weight in targets],
        "stickiness": None
        if stickiness is None
        else {"enabled": stickiness.get("Enabled"), "duration": stickiness.get("DurationSeconds")},
    }


_CONDITIONS = {
    "path-pattern": ("pathPattern", "PathPatternConfig"),
    "host-header": ("hostHeader", "HostHeaderConfig"),
    "http-request-method": ("httpRequestMethod", "HttpRequestMethodConfig"),
    "source-ip": ("sourceIp", "SourceIpConfig"),
}


def live_conditions(conditions: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """API rule conditions (`Field` + `…Config`) in the declared shape (`{pathPattern: {values}}`, ...)."""
    out: list[dict[str, Any]] = []
    for condition in conditions:
        field_name = condition.get("Field")
        if field_name in _CONDITIONS:
            key, config = _CONDITIONS[field_name]
            values = (condition.get(config) or {}).get("Values") or condition.get("Values") or []
            out.append({key: {"values": list(values)}})
        elif field_name == "http-header":
            config = condition.get("HttpHeaderConfig") or {}
            out.append({"httpHeader": {"httpHeaderName": config.get("HttpHeaderName"), "values": config.get("Values")}})
        elif field_name == "query-string":
            pairs = (condition.get("QueryStringConfig") or {}).get("Values") or []
            out.append({"queryStrings": [{"key": p.get("Key"), "value": p.get("Value")} for p in pairs]})
        else:
            out.append({"field": field_name, "values": condition.get("Values")})
    return out


def without_targets(actions: Any) -> Any:
    """Actions as the generic comparison sees them: forward targets and weights are judged here, and
    stickiness that is off is the same as none (AWS then reports no duration; a one-target forward
    set by `TargetGroupArn` alone has no stickiness config at all in some emulators)."""
    if not isinstance(actions, list):
        return actions
    out = []
    for action in actions:
        if not isinstance(action, Mapping):
            out.append(action)
            continue
        kept = {k: v for k, v in action.items() if k != "targetGroupArn"}
        forward = kept.get("forward")
        if isinstance(forward, Mapping):
            stickiness = forward.get("stickiness")
            off = stickiness is None or (
                isinstance(stickiness, Mapping) and stickiness.get("enabled") in (False, "false")
            )
            rest = {k: v for k, v in forward.items() if k != "targetGroups" and not (k == "stickiness" and off)}
            if rest:
                kept["forward"] = rest
            else:
                kept.pop("forward")
        out.append(kept)
    return out


# -- what a forward names ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """One target group of a forward: the backend it serves, or a description of what it is instead."""

    label: str  # the backend's name, or the target group's when it is not one of the service's backends
    weight: int | None  # None: the declaration gives one target and no weight
    service: str | None
    backend: str | None
    description: str = ""


def _forwards(actions: Any) -> list[list[Mapping[str, Any]]]:
    """The target lists of each forward action, declared shape (`forward.targetGroups` or `targetGroupArn`)."""
    out: list[list[Mapping[str, Any]]] = []
    for action in actions if isinstance(actions, list) else []:
        if not isinstance(action, Mapping) or action.get("type") != "forward":
            continue
        forward = action.get("forward")
        groups = forward.get("targetGroups") if isinstance(forward, Mapping) else None
        if groups:
            out.append([g for g in groups if isinstance(g, Mapping)])
        elif action.get("targetGroupArn"):
            out.append([{"arn": action["targetGroupArn"], "weight": None}])
    return out


def _weight(value: Any) -> int | None:
    try:
        return None if value is None else int(value)
    except (TypeError, ValueError):
        return None


def _arn_name(arn: str) -> str:
    """`…:targetgroup/<name>/<id>` -> `<name>`."""
    parts = arn.split(":targetgroup/", 1)
    return parts[1].split("/", 1)[0] if len(parts) == 2 else arn


class _Targets:
    """Declared target groups by symbol, and what a live target group ARN is."""

    def __init__(self, declared: DeclaredPlatform, view: AwsLiveView) -> None:
        self.view = view
        self.by_symbol = {symbol(r.name): r for r in declared.of_type(TARGET_GROUP)}

    def declared(self, reference: Any, weight: Any) -> Target:
        group = self.by_symbol.get(self.view.symbols.symbol_of(reference) or "")
        if group is None:
            return Target(str(reference), _weight(weight), None, None)
        tags = group.tags()
        backend = tags.get(BACKEND_TAG)
        return Target(str(backend or group.name), _weight(weight), tags.get(SERVICE_TAG), backend)

    def live(self, arn: Any, weight: Any) -> Target:
        group = self.by_symbol.get(self.view.symbols.symbol_of(arn) or "")
        if group is not None:
            tags = group.tags()
            backend, service = tags.get(BACKEND_TAG), tags.get(SERVICE_TAG)
            label = str(backend or group.name)
            if service and backend:
                description = f"the target group of service {service} backend {backend}"
            else:
                description = f"target group {group.name}"
            return Target(label, _weight(weight), service, backend, description)
        arn = str(arn)
        found = self.view.target_groups.get(arn)
        name = str((found or {}).get("name") or _arn_name(arn))
        if found is None:
            return Target(name, _weight(weight), None, None, f"target group {name}, not one of the platform's")
        tags = found.get("tags") or {}
        service, backend = tags.get(SERVICE_TAG), tags.get(BACKEND_TAG)
        what = f", tagged service {service} backend {backend}" if service or backend else ""
        return Target(name, _weight(weight), service, backend, f"target group {name} (not declared{what})")


def _text(weights: Mapping[str, int | None]) -> str:
    return " / ".join(f"{name} {'?' if weight is None else weight}" for name, weight in weights.items())


def _services(declared: DeclaredPlatform) -> list[InferenceService]:
    kubernetes = declared.platform.kubernetes
    return list(kubernetes.inference_services) if kubernetes else []


def _rollout_hint(declared: DeclaredPlatform, service: str | None) -> str:
    found = next((s for s in _services(declared) if s.name == service), None)
    if found is not None and found.rollout is not None:
        return (
            f"rollout {found.rollout.baseline} → {found.canary or '?'}; run `pulumi up`, or the weights were applied "
            "with `accelplane rollout --apply-now`"
        )
    return "run `pulumi up` to restore the declared weights"


def forward_results(
    declared: DeclaredPlatform, view: AwsLiveView, resource: Resource, live: Resource, where: Subject
) -> list[CheckResult]:
    """One `drift.changed` per forward action whose target groups or weights are not as declared."""
    key = ACTIONS_KEY.get(resource.type)
    if key is None:
        return []
    targets = _Targets(declared, view)
    results: list[CheckResult] = []
    declared_forwards, live_forwards = _forwards(resource.props.get(key)), _forwards(live.props.get(key))
    # A forward that is declared but not live (or the other way round) shows in the actions' `type`.
    for index, (wanted_groups, live_groups) in enumerate(zip(declared_forwards, live_forwards, strict=False)):
        wanted = [targets.declared(g.get("arn"), g.get("weight")) for g in wanted_groups]
        service = next((t.service for t in wanted if t.service), None) or resource.tags().get(SERVICE_TAG)
        own = {t.label for t in wanted}
        found = [targets.live(g.get("arn"), g.get("weight")) for g in live_groups]
        # A target group of a declared backend of this service counts as that backend; anything else
        # (another service's backend, a group outside the declaration) is not this forward's to send to.
        foreign = [t for t in found if t.label not in own or (service and t.service and t.service != service)]
        mine = {t.label: t.weight for t in found if t not in foreign}
        expected = {t.label: t.weight for t in wanted}
        actual: dict[str, int | None] = {label: mine.get(label, 0) for label in expected}
        weights_differ = any(
            weight is not None and (mine.get(label) or 0) != weight for label, weight in expected.items()
        )
        if not foreign and not weights_differ:
            results.extend(_undeployed(declared, resource, live, key, expected, service, where))
            continue
        actual.update({t.label: t.weight for t in foreign})
        name = service or resource.name
        parts = [
            f"forwards to {t.description} (weight {'?' if t.weight is None else t.weight}), not to a target group "
            f"of its backends ({', '.join(expected)})"
            for t in foreign
        ]
        declared_text = f"declared {_text(expected)}"
        live_text = f"live weights {_text({label: actual[label] for label in expected})}"
        if foreign:
            hint = "run `pulumi up` to restore the declared target groups"
            message = f"service {name}: {'; '.join(parts)}; {live_text}, {declared_text} ({hint})"
        else:
            message = f"service {name}: {live_text}, {declared_text} ({_rollout_hint(declared, service)})"
        suffix = f"[{index}]" if len(declared_forwards) > 1 else ""
        results.append(
            CheckResult(
                CheckId.drift_changed,
                Status.failed,
                message,
                path=f"{key}{suffix}.forward.targetGroups",
                expected=expected,
                actual=actual,
                **where,
            )
        )
    return results


def _undeployed(
    declared: DeclaredPlatform,
    resource: Resource,
    live: Resource,
    key: str,
    expected: Mapping[str, int | None],
    service: str | None,
    where: Subject,
) -> list[CheckResult]:
    """Live weights as declared, yet not what the last `pulumi up` deployed (the `accelplane:weights` tag):
    `accelplane rollout --apply-now` set them and the stack file it wrote has not been applied yet, so
    Pulumi's state still holds the old weights (a later `pulumi up` of another change would revert them)."""
    deployed = parse_weights(live.tags().get(WEIGHTS_TAG))
    live_weights = {label: weight or 0 for label, weight in expected.items()}
    if deployed is None or deployed == live_weights:
        return []
    found = next((s for s in _services(declared) if s.name == service), None)
    rollout = f"rollout {found.rollout.baseline} → {found.canary or '?'}: " if found and found.rollout else ""
    message = (
        f"service {service or resource.name}: live weights {_text(live_weights)} are not deployed by Pulumi (the "
        f"last `pulumi up` set {_text(deployed)}; {rollout}applied with `accelplane rollout --apply-now`?); "
        "run `pulumi up` with this stack file"
    )
    return [CheckResult(CheckId.drift_changed, Status.failed, message, path=f"tags.{WEIGHTS_TAG}",
                        expected=dict(deployed), actual=live_weights, **where)]


def without_weights_tag(tags: Any) -> Any:
    """Tags as the generic comparison sees them: the deployed weights are judged with the forward."""
    return {k: v for k, v in tags.items() if k != WEIGHTS_TAG} if isinstance(tags, Mapping) else tags


def idle_target_groups(declared: DeclaredPlatform) -> set[str]:
    """URNs of declared target groups every forward naming them gives weight 0 (an idle canary or a
    retired baseline): no registered targets is the declared state there, not an outage."""
    weights: dict[str, list[int | None]] = {}
    by_symbol = {symbol(r.name): r for r in declared.of_type(TARGET_GROUP)}
    symbols = declared.symbols()
    for type_token, key in ACTIONS_KEY.items():
        for resource in declared.of_type(type_token):
            for groups in _forwards(resource.props.get(key)):
                for group in groups:
                    found = by_symbol.get(symbols.symbol_of(group.get("arn")) or "")
                    if found is not None:
                        weights.setdefault(found.urn, []).append(_weight(group.get("weight")))
    return {urn for urn, found in weights.items() if found and all(w == 0 for w in found)}


def rule_summary(props: Mapping[str, Any]) -> str:
    """`priority 10: path /x/* -> forward <tg> 100`, for an undeclared rule's message."""
    conditions = []
    for condition in props.get("conditions") or []:
        for key, value in condition.items() if isinstance(condition, Mapping) else ():
            values = value.get("values") if isinstance(value, Mapping) else value
            conditions.append(f"{key} {', '.join(map(str, values)) if isinstance(values, list) else values}")
    actions = []
    for action in props.get("actions") or []:
        forwards = _forwards([action])
        if forwards:
            actions.append(
                "forward "
                + ", ".join(f"{_arn_name(str(g.get('arn')))} {g.get('weight') or ''}".strip() for g in forwards[0])
            )
        elif isinstance(action, Mapping):
            actions.append(str(action.get("type")))
    return f"priority {props.get('priority')}: {'; '.join(conditions) or 'no conditions'} -> {'; '.join(actions)}"
