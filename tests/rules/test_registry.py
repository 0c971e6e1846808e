"""Meta-tests over the registry (docs/conventions.md 16): unique ids, every rule registered, every rule with
fixtures, metadata complete, families covered."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import accelplane.rules as rules_package
from accelplane.rules.registry import RULES, RegistryError, build_registry
from accelplane.rules.rule import Family, Rule, Scope
from tests.rules.all_cases import CASES


def _defined_rules() -> list[Rule]:
    found = []
    for module_info in pkgutil.walk_packages(rules_package.__path__, prefix="accelplane.rules."):
        module = importlib.import_module(module_info.name)
        rule = getattr(module, "RULE", None)
        if isinstance(rule, Rule):
            found.append(rule)
    return found


def test_registry_holds_at_least_35_rules_in_every_family() -> None:
    assert len(RULES) >= 35
    assert {rule.family for rule in RULES} == set(Family)


def test_registry_is_sorted_and_ids_unique() -> None:
    ids = [rule.id for rule in RULES]
    assert ids == sorted(ids)
    assert len(ids) == len(set(ids))
    assert len({rule.name for rule in RULES}) == len(RULES)


def test_every_rule_module_is_registered() -> None:
    defined = {rule.id for rule in _defined_rules()}
    assert defined == {rule.id for rule in RULES}


def test_every_rule_has_pass_and_fail_fixtures() -> None:
    assert set(CASES) == {rule.id for rule in RULES}
    for rule_id, case in CASES.items():
        assert case.passing and case.failing, rule_id


def test_registry_refuses_duplicate_ids() -> None:
    first = RULES[0]
    clone = Rule(**{**first.__dict__, "name": "another-name"})
    with pytest.raises(RegistryError, match="duplicate rule id"):
        build_registry([first, clone])


def test_registry_refuses_malformed_ids_and_descriptions() -> None:
    first = RULES[0]
    with pytest.raises(RegistryError, match="does not match"):
        build_registry([Rule(**{**first.__dict__, "id": "iam-1"})])
    with pytest.raises(RegistryError, match="Checks whether"):
        build_registry([Rule(**{**first.__dict__, "description": "No wildcards."})])


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_rule_metadata_is_complete(rule: Rule) -> None:
    assert rule.description.startswith("Checks whether") and rule.description.endswith(".")
    assert rule.remediation and rule.remediation.endswith((".", ")"))
    assert rule.resource_types and all(":" in token for token in rule.resource_types)
    module = importlib.import_module(rule.check.__module__)
    assert module.__doc__ and module.__doc__.startswith(rule.id), f"{rule.id}: module docstring names its id"


def test_resource_rules_read_only_their_resource(dev_graph, prod_graph) -> None:
    """A resource-scope rule gives the same answer alone (CrossGuard Analyze) as in the whole graph."""
    from accelplane.engine.offline import from_offline_graph
    from accelplane.rules.engine import run_rule
    from accelplane.rules.graph import ReferenceGraph

    graphs = [ReferenceGraph(from_offline_graph(g)) for g in (dev_graph, prod_graph)]
    graphs += [ReferenceGraph(case.failing) for case in CASES.values()]
    for rule in (r for r in RULES if r.scope is Scope.resource):
        for graph in graphs:
            whole = sorted((f.urn, f.message) for f in run_rule(rule, graph)[0])
            alone = sorted(
                (f.urn, f.message)
                for resource in graph.resources if rule.applies_to(resource.type)
                for f in run_rule(rule, ReferenceGraph([resource], environment=graph.environment))[0]
            )
            assert whole == alone, rule.id
