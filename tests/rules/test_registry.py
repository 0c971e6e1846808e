"""Meta-tests over the registry (docs/conventions.md 16): unique ids, every rule registered, every rule with
fixtures, metadata complete, families covered."""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest

import accelplane.rules as rules_package
from accelplane.cloud_support import entry_points_in
from accelplane.rules.cloud_rules import ENTRY_POINT_GROUP
from accelplane.rules.registry import RULES, RegistryError, build_registry
from accelplane.rules.rule import Family, Rule, Scope
from tests.rules.all_cases import CASES


def _rule_packages() -> list[tuple[list[str], str]]:
    """The neutral rules package and each installed cloud's (the module its entry point names)."""
    packages = [(list(rules_package.__path__), "accelplane.rules.")]
    for point in entry_points_in(ENTRY_POINT_GROUP).values():
        package = importlib.import_module(point.module)
        packages.append((list(package.__path__), f"{point.module}."))
    return packages


def _defined_rules() -> list[Rule]:
    found = []
    for path, prefix in _rule_packages():
        for module_info in pkgutil.walk_packages(path, prefix=prefix):
            module = importlib.import_module(module_info.name)
            rule = getattr(module, "RULE", None)
            if isinstance(rule, Rule):
                found.append(rule)
    return found


# The registry's size, stated exactly: a rule added or dropped changes this line in the same commit.
RULE_COUNT = 131


def test_registry_holds_exactly_the_rules_it_lists_in_every_family() -> None:
    assert len(RULES) == RULE_COUNT
    assert {rule.family for rule in RULES} == set(Family)


def test_registry_is_sorted_and_ids_unique() -> None:
    ids = [rule.id for rule in RULES]
    assert ids == sorted(ids)
    assert len(ids) == len(set(ids))
    assert len({rule.name for rule in RULES}) == len(RULES)


def test_every_rule_module_is_registered_and_no_module_copies_an_id() -> None:
    """Each module's RULE is the very object the registry holds: a module that copies a registered
    id (a new check under an old id, never registered) is caught, not counted as that id."""
    defined = _defined_rules()
    registered = {id(rule) for rule in RULES}
    assert [rule.id for rule in defined if id(rule) not in registered] == []
    assert len(defined) == len(RULES)


def test_the_registration_check_catches_a_copied_id_in_an_unregistered_module(monkeypatch) -> None:
    import sys
    import types

    first = RULES[0]
    copy = types.ModuleType("accelplane.rules.hygiene.copied_rule")
    copy.RULE = Rule(**{**first.__dict__, "name": "a-copy"})  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, copy.__name__, copy)
    original = pkgutil.walk_packages

    def walk(path, prefix="", onerror=None):
        yield from original(path, prefix, onerror)
        if prefix == "accelplane.rules.":
            yield pkgutil.ModuleInfo(None, copy.__name__, False)  # type: ignore[arg-type]

    monkeypatch.setattr(pkgutil, "walk_packages", walk)
    with pytest.raises(AssertionError):
        test_every_rule_module_is_registered_and_no_module_copies_an_id()


def test_every_rule_module_is_named_by_its_slug() -> None:
    assert [r.id for r in RULES if r.check.__module__.rsplit(".", 1)[-1] != r.name.replace("-", "_")] == []


def test_gcp_rules_have_ids_in_the_gcp_families_and_a_moved_id_stays_an_alias() -> None:
    gcp = [r for r in RULES if r.name.startswith(("gcp-", "gcs-", "gke-"))]
    assert gcp and [r.id for r in gcp if not r.id.startswith("AP-G")] == []
    from accelplane.rules.registry import rule_by_id

    assert rule_by_id("AP-TAG-004") is rule_by_id("AP-GTAG-001")


def test_every_rule_has_pass_and_fail_fixtures() -> None:
    assert set(CASES) == {rule.id for rule in RULES}
    for rule_id, case in CASES.items():
        assert case.passing and case.failing, rule_id


def _variant(**changes: object) -> Rule:
    return Rule(**{**RULES[0].__dict__, **changes})


@pytest.mark.parametrize(
    ("rules", "refusal"),
    [
        ([_variant(id="iam-1")], "does not match AP-<FAMILY>-<NNN>"),
        ([_variant(name="Not A Slug")], "is not a lower-case slug"),
        ([_variant(id="AP-RO-004")], "is taken by an `accelplane diff` check"),
        ([RULES[0], _variant(name="another-name")], "duplicate rule id"),
        ([RULES[0], _variant(id="AP-IAM-999")], "duplicate rule name"),
        ([_variant(description="No wildcards.")], "must start with 'Checks whether'"),
        ([_variant(resource_types=frozenset())], "names no resource types"),
        ([_variant(aliases=(RULES[0].id,))], "is not a free"),
        ([RULES[0], _variant(id="AP-IAM-999", name="other", aliases=(RULES[0].id,))], "is not a free"),
        ([_variant(aliases=("AP-OLD-001",)), _variant(id="AP-IAM-998", name="other", aliases=("AP-OLD-001",))],
         "are ids or aliases of other rules"),
    ],
    ids=["id", "name", "diff-only-id", "duplicate-id", "duplicate-name", "description", "no-types", "alias-own-id",
         "alias-taken", "alias-twice"],
)
def test_registry_refuses(rules: list[Rule], refusal: str) -> None:
    with pytest.raises(RegistryError, match=re.escape(refusal)):
        build_registry(rules)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_rule_metadata_is_complete(rule: Rule) -> None:
    assert rule.description.startswith("Checks whether") and rule.description.endswith(".")
    assert rule.remediation and rule.remediation.endswith((".", ")"))
    assert rule.resource_types and all(":" in token for token in rule.resource_types)
    module = importlib.import_module(rule.check.__module__)
    assert module.__doc__ and module.__doc__.startswith(rule.id), f"{rule.id}: module docstring names its id"


def test_resource_rules_read_only_their_resource(dev_graph, prod_graph) -> None:
    """A resource-scope rule gives the same answer alone (CrossGuard Analyze) as in the whole graph."""
    from accelplane.engine.graph import from_offline_graph
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


def test_each_clouds_rules_live_in_its_folder_and_the_neutral_rules_name_no_cloud_type() -> None:
    """A cloud's rules come from its folder through its entry point; a neutral rule judges only neutral
    resource types and those the installed clouds name (node pools, stateful stores, budgets)."""
    from accelplane.cost.budget import budget_types
    from accelplane.rules.cloud_rules import installed, node_pool_types, stateful_types

    for facet in installed():
        modules = {rule.check.__module__ for rule in facet.load_rules()}
        assert {m for m in modules if not m.startswith(f"accelplane.clouds.{facet.cloud}.rules.")} == set()
    cloud_types = node_pool_types() | stateful_types() | budget_types()
    neutral = [rule for rule in RULES if rule.check.__module__.startswith("accelplane.rules.")]
    assert len(neutral) == 22
    prefixes = ("kubernetes:", "accelplane:")
    assert sorted(f"{rule.id} {token}" for rule in neutral for token in rule.resource_types
                  if not token.startswith(prefixes) and token not in cloud_types) == []
