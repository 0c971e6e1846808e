"""Where a resilience finding lands when the graph lacks what its fix belongs to: a state file or a
hand-written program may hold the load balancer, web ACL or Cloud Armor policy without the target
groups or Services behind it. The finding then stays on the resource judged, so it is never lost
(with them in the graph, each rule's fixture puts it on the service's resource: tests/rules/resilience_cases.py)."""

from __future__ import annotations

from accelplane.rules.engine import run_rule
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.registry import RULES
from tests.rules.resilience_cases import MANAGED, armor, association, prod_alb, rate_rule, throttle, web_acl


def _names(rule_id: str, resources: list) -> list[str]:
    rule = next(r for r in RULES if r.id == rule_id)
    findings, _ = run_rule(rule, ReferenceGraph(resources, environment="prod"))
    return sorted(f.name for f in findings)


def test_a_rate_limit_missing_behind_an_alb_without_target_groups_is_the_albs() -> None:
    assert _names("AP-LB-010", [prod_alb(), association(), web_acl(MANAGED)]) == ["alb"]


def test_a_counting_rule_whose_service_has_no_target_group_is_the_web_acls() -> None:
    assert _names("AP-LB-011", [web_acl(rate_rule({"count": {}}))]) == ["acl"]


def test_a_preview_throttle_no_service_names_is_the_policys() -> None:
    assert _names("AP-GLB-011", [armor("acme-serve", throttle(preview=True))]) == ["acme-serve"]
