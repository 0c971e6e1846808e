"""Where a service's traffic is split live: the platform's ALB, its HTTPS listener, the target groups.

Found by tags, as the build writes them: the load balancer and every target group carry
`accelplane:platform` = <platform name>; a backend's target group also carries
`accelplane:service` = <service> and `accelplane:backend` = <backend>. The "/" service is the HTTPS
listener's default action; any other service is the listener rule forwarding to its target groups
(path pattern `<prefix>*`).

Reads go through the read-only `AwsClients`; `apply_weights` is the one write, made
with a separate client (`ModifyListener` or `ModifyRule`, nothing else).

ALB weights are relative (0-999 per target group,
https://docs.aws.amazon.com/elasticloadbalancing/latest/application/load-balancer-listeners.html#forward-actions);
the declaration's weights are percentages summing to 100, written as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from accelplane.clouds.aws.alb_forward import forward_action, forward_targets
from accelplane.clouds.aws.clients import API_ERRORS, describe_error
from accelplane.clouds.aws.declaration import AwsPlatform
from accelplane.clouds.aws.endpoint_tags import BACKEND_TAG, SERVICE_TAG
from accelplane.declaration import InferenceService
from accelplane.rollout.route import RouteError

PLATFORM_TAG = "accelplane:platform"


class RoutingError(RouteError):
    """The service's live route cannot be found or changed (the message says why)."""


@dataclass(frozen=True)
class Routing:
    load_balancer_arn: str
    listener_arn: str
    rule_arn: str | None  # None: the listener's default action routes the service
    actions: list[dict[str, Any]]  # the listener's default actions or the rule's actions, as read
    target_groups: dict[str, str]  # backend -> its target group ARN
    backend_of: dict[str, str] = field(default_factory=dict)  # target group ARN -> backend

    @property
    def where(self) -> str:
        return f"rule {self.rule_arn}" if self.rule_arn else f"listener {self.listener_arn} (default action)"

    def load_balancer_dimension(self) -> str:
        """CloudWatch's LoadBalancer dimension: the ARN's final part, `app/<name>/<id>`
        (https://docs.aws.amazon.com/elasticloadbalancing/latest/application/load-balancer-cloudwatch-metrics.html#load-balancer-metric-dimensions-alb)."""
        return self.load_balancer_arn.split(":loadbalancer/", 1)[-1]

    def target_group_dimension(self, backend: str) -> str:
        """CloudWatch's TargetGroup dimension: the ARN's final part, `targetgroup/<name>/<id>`."""
        return self.target_groups[backend].split(":", 5)[-1]


def _call(client: Any, operation: str, **params: Any) -> Any:
    try:
        return getattr(client, operation)(**params)
    except API_ERRORS as error:
        code, message = describe_error(error)
        raise RoutingError(f"elbv2/tagging {operation} failed: {code}: {message}") from None


def _all(client: Any, operation: str, key: str, **params: Any) -> list[dict[str, Any]]:
    """Every page of an ELBv2 Describe call (Marker / NextMarker)."""
    items: list[dict[str, Any]] = []
    marker = ""
    while True:
        page = _call(client, operation, **params, **({"Marker": marker} if marker else {}))
        items += page.get(key, [])
        marker = page.get("NextMarker") or ""
        if not marker:
            return items


def find_routing(clients: Any, platform: AwsPlatform, service: InferenceService) -> Routing:
    """The live route of `service`; `clients(service_name)` returns a boto3 client."""
    tagging = clients("resourcegroupstaggingapi")
    tagged: dict[str, dict[str, str]] = {}
    token = ""
    while True:
        page = _call(
            tagging, "get_resources",
            TagFilters=[{"Key": PLATFORM_TAG, "Values": [platform.name]}],
            ResourceTypeFilters=["elasticloadbalancing:loadbalancer", "elasticloadbalancing:targetgroup"],
            **({"PaginationToken": token} if token else {}),
        )
        for mapping in page.get("ResourceTagMappingList", []):
            tagged[mapping["ResourceARN"]] = {t["Key"]: t["Value"] for t in mapping.get("Tags", [])}
        token = page.get("PaginationToken") or ""
        if not token:
            break
    groups = {tags[BACKEND_TAG]: arn for arn, tags in tagged.items()
              if ":targetgroup/" in arn and tags.get(SERVICE_TAG) == service.name and BACKEND_TAG in tags}
    if not groups:
        raise RoutingError(
            f"no target group tagged {SERVICE_TAG}={service.name} and {PLATFORM_TAG}={platform.name} in "
            f"{platform.region}: has `pulumi up` created the service's backends?"
        )
    balancers = sorted(arn for arn in tagged if ":loadbalancer/app/" in arn)
    if not balancers:
        raise RoutingError(f"no application load balancer tagged {PLATFORM_TAG}={platform.name} in {platform.region}")
    elbv2 = clients("elbv2")
    ours = set(groups.values())
    for balancer in balancers:
        listeners = _all(elbv2, "describe_listeners", "Listeners", LoadBalancerArn=balancer)
        for listener in (item for item in listeners if item.get("Protocol") == "HTTPS"):
            if service.path_prefix == "/":
                actions = listener.get("DefaultActions", [])
                if _forwarded(actions) & ours:
                    return Routing(balancer, listener["ListenerArn"], None, actions, groups,
                                   {arn: name for name, arn in groups.items()})
                continue
            rules = _all(elbv2, "describe_rules", "Rules", ListenerArn=listener["ListenerArn"])
            for rule in rules:
                if not rule.get("IsDefault") and _forwarded(rule.get("Actions", [])) & ours:
                    return Routing(balancer, listener["ListenerArn"], rule["RuleArn"], rule.get("Actions", []),
                                   groups, {arn: name for name, arn in groups.items()})
    where = "default action" if service.path_prefix == "/" else f"rule for {service.path_prefix}*"
    raise RoutingError(f"no HTTPS listener {where} of {', '.join(balancers)} forwards to service "
                       f"{service.name!r}'s target groups")


def _forwarded(actions: list[dict[str, Any]]) -> set[str]:
    action = forward_action(actions)
    return {arn for arn, _ in forward_targets(action)} if action is not None else set()


def live_weights(routing: Routing) -> dict[str, int]:
    """Each target group's share of the route's requests, %, by backend (a target group that is no
    backend of the service keeps its ARN as name; a group named without a weight weighs 1)."""
    action = forward_action(routing.actions)
    if action is None:
        return {}
    raw = {arn: 1 if weight is None else int(weight) for arn, weight in forward_targets(action)}
    total = sum(raw.values())
    return {routing.backend_of.get(arn, arn): round(100 * weight / total) if total else 0
            for arn, weight in raw.items()}


def forward_actions(routing: Routing, weights: dict[str, int]) -> list[dict[str, Any]]:
    """The route's actions with the forward action's weights replaced (stickiness and any other
    action, e.g. an authentication step before it, kept as they are)."""
    action = forward_action(routing.actions)
    if action is None:
        raise RoutingError(f"{routing.where} has no forward action to weigh")
    strangers = _forwarded(routing.actions) - set(routing.target_groups.values())
    if strangers:
        raise RoutingError(f"{routing.where} also forwards to {', '.join(sorted(strangers))}, which is no backend "
                           "of the service: not changing a route accelplane does not fully own")
    missing = sorted(name for name, weight in weights.items() if weight > 0 and name not in routing.target_groups)
    if missing:
        raise RoutingError(f"no target group for backend(s) {', '.join(missing)}: run `pulumi up` first")
    config: dict[str, Any] = {
        "TargetGroups": [{"TargetGroupArn": routing.target_groups[name], "Weight": weight}
                         for name, weight in weights.items() if name in routing.target_groups],
    }
    stickiness = (action.get("ForwardConfig") or {}).get("TargetGroupStickinessConfig")
    if stickiness:
        config["TargetGroupStickinessConfig"] = stickiness
    new = {key: value for key, value in action.items() if key not in ("TargetGroupArn", "ForwardConfig")}
    new["ForwardConfig"] = config
    return [new if item is action else item for item in routing.actions]


def apply_weights(elbv2: Any, routing: Routing, weights: dict[str, int]) -> None:
    """Set the live weights: `ModifyListener` (default action) or `ModifyRule`, nothing else."""
    actions = forward_actions(routing, weights)
    if routing.rule_arn is None:
        _call(elbv2, "modify_listener", ListenerArn=routing.listener_arn, DefaultActions=actions)
    else:
        _call(elbv2, "modify_rule", RuleArn=routing.rule_arn, Actions=actions)
