"""The load balancer, its target groups (tagged or bound), listeners and listener rules."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from accelplane.clouds.aws.verify.live_inventory import UNREADABLE
from accelplane.clouds.aws.verify.live_view.core import (
    ViewCore,
)
from accelplane.clouds.aws.verify.live_view.wire import (
    as_int,
    bool_attr,
    wire,
    wire_actions,
)
from accelplane.clouds.aws.verify.routing import BACKEND_TAG, SERVICE_TAG, live_conditions
from accelplane.rules.view import Resource
from accelplane.verify.canonical import canonical


class Elbv2Reader(ViewCore):
    """The load balancer, its target groups (tagged or bound), listeners and listener rules."""

    def _load_balancing(self) -> None:
        inv = self.inv
        lbs = self.declared.of_type("aws:lb/loadBalancer:LoadBalancer")
        tgs = self.declared.of_type("aws:lb/targetGroup:TargetGroup")
        listeners = self.declared.of_type("aws:lb/listener:Listener")
        if inv.tagged is UNREADABLE:
            self._unreadable([*lbs, *tgs, *listeners], "tag:GetResources failed")
            return
        rules = self.declared.of_type("aws:lb/listenerRule:ListenerRule")
        if "load balancers" in inv.elb_unread:
            # What hangs off a load balancer is found through it: nothing of it was read.
            self._unreadable([*lbs, *listeners, *rules], "elbv2:DescribeLoadBalancers failed")
            lbs, listeners, rules = [], [], []
        if "target groups" in inv.elb_unread:
            self._unreadable(tgs, "elbv2:DescribeTargetGroups failed")
            tgs = []
        self._load_balancers(lbs)
        self._target_groups(tgs)
        self._bound_target_groups()
        self._listeners(listeners)
        self._listener_rules(rules)

    def _load_balancers(self, lbs: list[Resource]) -> None:
        inv = self.inv
        for resource, arn in self._pair(lbs, inv.load_balancers, "LoadBalancerName"):
            lb = inv.load_balancers[arn]
            attributes = inv.lb_attributes.get(arn) or {}
            props = {
                "name": lb.get("LoadBalancerName"),
                "loadBalancerType": lb.get("Type"),
                "internal": lb.get("Scheme") == "internal",
                "subnets": [zone.get("SubnetId") for zone in lb.get("AvailabilityZones") or []],
                "securityGroups": lb.get("SecurityGroups"),
                "ipAddressType": lb.get("IpAddressType"),
                "dropInvalidHeaderFields": bool_attr(
                    attributes.get("routing.http.drop_invalid_header_fields.enabled")
                ),
                "idleTimeout": as_int(attributes.get("idle_timeout.timeout_seconds")),
                "enableDeletionProtection": bool_attr(attributes.get("deletion_protection.enabled")),
                "tags": inv.elb_tags.get(arn, {}),
            }
            self._live(
                resource,
                resource.type,
                arn,
                props,
                {"arn": arn, "dnsName": lb.get("DNSName"), "name": lb.get("LoadBalancerName")},
                raw={**lb, "web_acl": inv.web_acls.get(arn, UNREADABLE)},
            )

    def _target_groups(self, tgs: list[Resource]) -> None:
        """Declared target groups by their service and backend tags; a tagged one nobody declared is unexpected."""
        inv = self.inv
        for arn, tg in inv.target_groups.items():
            self.view.target_groups[arn] = {"name": tg.get("TargetGroupName"), "tags": inv.elb_tags.get(arn, {})}
        paired = self._pair_target_groups(tgs)
        for resource, arn in paired:
            tg = inv.target_groups[arn]
            attributes = inv.tg_attributes.get(arn) or {}
            props = {
                "name": tg.get("TargetGroupName"),
                "port": tg.get("Port"),
                "protocol": tg.get("Protocol"),
                "targetType": tg.get("TargetType"),
                "vpcId": tg.get("VpcId"),
                "deregistrationDelay": as_int(attributes.get("deregistration_delay.timeout_seconds")),
                "healthCheck": {
                    "enabled": tg.get("HealthCheckEnabled"),
                    "path": tg.get("HealthCheckPath"),
                    "port": tg.get("HealthCheckPort"),
                    "protocol": tg.get("HealthCheckProtocol"),
                    "interval": tg.get("HealthCheckIntervalSeconds"),
                    "timeout": tg.get("HealthCheckTimeoutSeconds"),
                    "healthyThreshold": tg.get("HealthyThresholdCount"),
                    "unhealthyThreshold": tg.get("UnhealthyThresholdCount"),
                    "matcher": (tg.get("Matcher") or {}).get("HttpCode") or (tg.get("Matcher") or {}).get("GrpcCode"),
                },
                "tags": inv.elb_tags.get(arn, {}),
            }
            self._live(
                resource,
                resource.type,
                arn,
                props,
                {"arn": arn, "name": tg.get("TargetGroupName")},
                raw={"target_group": tg, "health": inv.target_health.get(arn)},
            )
        claimed = {arn for _, arn in paired}
        for arn, tg in inv.target_groups.items():
            if arn not in claimed:
                self._unexpected(
                    self._live(
                        None,
                        "aws:lb/targetGroup:TargetGroup",
                        arn,
                        {"name": tg.get("TargetGroupName"), "tags": inv.elb_tags.get(arn, {})},
                        {"arn": arn},
                    ),
                    "a target group tagged with the platform that the declaration does not have",
                )

    def _bound_target_groups(self) -> None:
        """Target groups bound to the platform's load balancer that carry none of its tags."""
        names = {
            str(live.id): live.name
            for live in self.view.matched.values()
            if live.type == "aws:lb/loadBalancer:LoadBalancer"
        }
        seen: set[str] = set()
        for lb_arn, found in sorted(self.inv.bound_target_groups.items()):
            if lb_arn not in names or not found:
                continue  # not the platform's, or unreadable (its read error is reported)
            for tg in found:
                arn = tg["TargetGroupArn"]
                if arn in self.inv.target_groups or arn in seen:
                    continue
                seen.add(arn)
                self.view.target_groups[arn] = {"name": tg.get("TargetGroupName"), "tags": {}}
                self._unexpected(
                    self._live(
                        None,
                        "aws:lb/targetGroup:TargetGroup",
                        arn,
                        {
                            "name": tg.get("TargetGroupName"),
                            "port": tg.get("Port"),
                            "protocol": tg.get("Protocol"),
                            "targetType": tg.get("TargetType"),
                        },
                        {"arn": arn},
                    ),
                    f"a target group bound to {names[lb_arn]} that the declaration does not have",
                )

    def _pair_target_groups(self, declared: list[Resource]) -> list[tuple[Resource, str]]:
        """A backend's target group by its service and backend tags (their names share a long prefix and
        end in a random suffix); groups without those tags as load balancers are paired."""
        live = self.inv.target_groups
        by_backend = {
            (tags.get(SERVICE_TAG), tags.get(BACKEND_TAG)): arn
            for arn in sorted(live)
            if (tags := self.inv.elb_tags.get(arn, {})).get(BACKEND_TAG)
        }
        pairs: list[tuple[Resource, str]] = []
        rest: list[Resource] = []
        for resource in declared:
            key = (resource.tags().get(SERVICE_TAG), resource.tags().get(BACKEND_TAG))
            if key[1] is None:
                rest.append(resource)
            elif key in by_backend:
                pairs.append((resource, by_backend.pop(key)))
            else:
                self.view.missing_reason[resource.urn] = (
                    f"no target group tagged {SERVICE_TAG}={key[0]}, {BACKEND_TAG}={key[1]} "
                    f"(service {key[0]}, backend {key[1]})"
                )
        taken = {arn for _, arn in pairs}
        untagged = {
            arn: tg
            for arn, tg in live.items()
            if arn not in taken and not self.inv.elb_tags.get(arn, {}).get(BACKEND_TAG)
        }
        return pairs + self._pair(rest, untagged, "TargetGroupName")

    def _listeners(self, declared: list[Resource]) -> None:
        inv = self.inv
        by_lb: dict[str, list[Resource]] = {}
        for resource in declared:
            lb_arn = self._live_ref(resource.props.get("loadBalancerArn"))
            if lb_arn:
                by_lb.setdefault(lb_arn, []).append(resource)
        lb_names = {
            str(live.id): live.name
            for live in self.view.matched.values()
            if live.type == "aws:lb/loadBalancer:LoadBalancer"
        }
        for lb_arn in lb_names:
            found = inv.listeners.get(lb_arn)
            if found is UNREADABLE:
                self._unreadable(by_lb.get(lb_arn, []), "elbv2:DescribeListeners failed")
                continue
            wanted = {r.props.get("port"): r for r in by_lb.get(lb_arn, [])}
            for listener in found or []:
                arn = listener["ListenerArn"]
                protocol = listener.get("Protocol")
                default_cert = next(
                    (c["CertificateArn"] for c in listener.get("Certificates") or [] if c.get("IsDefault", True)), None
                )
                resource = wanted.pop(listener.get("Port"), None)
                props = {
                    "loadBalancerArn": lb_arn,
                    "port": listener.get("Port"),
                    "protocol": protocol,
                    # The policy applies to TLS listeners only (some emulators report one on HTTP too).
                    "sslPolicy": listener.get("SslPolicy") if protocol in ("HTTPS", "TLS") else None,
                    "certificateArn": default_cert,
                    "alpnPolicy": (listener.get("AlpnPolicy") or [None])[0],
                    "defaultActions": wire_actions(
                        listener.get("DefaultActions"), resource.props.get("defaultActions") if resource else None
                    ),
                    "tags": inv.elb_tags.get(arn, {}),
                }
                if listener.get("MutualAuthentication"):  # client_auth.mutual_tls: verify (trust store) or passthrough
                    props["mutualAuthentication"] = wire(listener["MutualAuthentication"])
                if resource is not None:
                    self._live(resource, resource.type, arn, props, {"arn": arn}, raw=listener)
                else:
                    self._unexpected(
                        self._live(None, "aws:lb/listener:Listener", arn, props, {"arn": arn}),
                        f"a listener on {lb_names[lb_arn]} that the declaration does not have",
                    )

    def _listener_rules(self, declared: list[Resource]) -> None:
        """The rules of each matched listener (not its default rule: that is the listener's default action)."""
        inv = self.inv
        by_listener: dict[str, list[Resource]] = {}
        for resource in declared:
            listener_arn = self._live_ref(resource.props.get("listenerArn"))
            if listener_arn:
                by_listener.setdefault(listener_arn, []).append(resource)
        listeners = {
            str(live.id): live.name for live in self.view.matched.values() if live.type == "aws:lb/listener:Listener"
        }
        for listener_arn, listener_name in listeners.items():
            wanted = by_listener.get(listener_arn, [])
            found = inv.listener_rules.get(listener_arn)
            if found is UNREADABLE:
                self._unreadable(wanted, "elbv2:DescribeRules failed")
                continue
            rules = [rule for rule in found or [] if not rule.get("IsDefault")]
            props_of = {rule["RuleArn"]: self._rule_props(listener_arn, rule) for rule in rules}
            pairs = self._pair_rules(wanted, props_of)
            for resource, arn in pairs:
                rule = next(r for r in rules if r["RuleArn"] == arn)
                props = {**props_of[arn], "actions": wire_actions(rule.get("Actions"), resource.props.get("actions"))}
                self._live(resource, resource.type, arn, props, {"arn": arn}, raw=rule)
            claimed = {arn for _, arn in pairs}
            for arn, props in props_of.items():
                if arn not in claimed:
                    self._unexpected(
                        self._live(None, "aws:lb/listenerRule:ListenerRule", arn, props, {"arn": arn}),
                        f"a rule of listener {listener_name} that the declaration does not have",
                    )

    def _rule_props(self, listener_arn: str, rule: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "listenerArn": listener_arn,
            "priority": as_int(rule.get("Priority")),
            "conditions": live_conditions(rule.get("Conditions") or []),
            "actions": wire_actions(rule.get("Actions"), None),
            "tags": self.inv.elb_tags.get(rule["RuleArn"], {}),
        }

    def _pair_rules(
        self, declared: list[Resource], live: Mapping[str, Mapping[str, Any]]
    ) -> list[tuple[Resource, str]]:
        """A rule is what it matches: paired by conditions first, so a changed priority is drift of the
        rule; then by priority, so a changed path pattern is too rather than one rule missing and one extra."""

        def key(conditions: Any) -> str:
            return json.dumps(canonical(conditions, self.symbols), sort_keys=True, default=str)

        pairs: list[tuple[Resource, str]] = []
        free = dict(live)
        rest = []
        for resource in declared:
            wanted = key(resource.props.get("conditions"))
            arn = next((a for a, props in free.items() if key(props.get("conditions")) == wanted), None)
            if arn is None:
                rest.append(resource)
            else:
                pairs.append((resource, arn))
                free.pop(arn)
        for resource in rest:
            priority = as_int(resource.props.get("priority"))
            arn = next((a for a, props in free.items() if props.get("priority") == priority), None)
            if arn is not None:
                pairs.append((resource, arn))
                free.pop(arn)
        return pairs
