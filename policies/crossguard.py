"""The CrossGuard adapter: the one module that knows `pulumi_policy` (docs/design.md, docs/conventions.md 15).

It turns every rule of `accelplane.rules.registry` into a CrossGuard policy named by the rule's id:

- resource-scope rules become `ResourceValidationPolicy`s (CrossGuard `Analyze`: one resource, its
  inputs); stack-scope rules become `StackValidationPolicy`s (`AnalyzeStack`: every resource, its
  outputs, parents and dependencies);
- type filtering: a policy returns at once for resource types its rule does not look at;
- props arrive as read-only mapping/sequence proxies whose unknown values raise on access, with
  numbers as floats: `to_plain` copies them into plain data, unknowns as `UNKNOWN`, whole floats as
  ints. A rule that touches an unknown value is reported not applicable (`args.not_applicable`);
- enforcement levels: each policy starts at its rule's default; `ACCELPLANE_POLICY_CONFIG` may name
  a JSON file in the `--policy-pack-config` format (`"all"` then per-rule levels) to change the
  defaults, and the Pulumi CLI's own `--policy-pack-config` overrides per policy at run time. The
  same file works with `accelplane check --policy-config`;
- findings are judged by `accelplane.rules.judgement.judge`, the function behind `check`, `verify`
  and `diff`: the stack's declaration (found from the URNs' stack name in the project this pack
  lives in) supplies the environment and the waivers, so a finding waived for `accelplane check` is
  not reported here either, and an expired waiver stops covering it on the same day.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import pulumi_policy
from pulumi_policy import (
    EnforcementLevel,
    PolicyResource,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Severity,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.proxy import UnknownValueError

from accelplane.config.project import find_project
from accelplane.rules.judgement import Policy, judge, load_policy_config
from accelplane.rules.registry import RULES
from accelplane.rules.rule import Rule, Scope
from accelplane.rules.view import UNKNOWN, UNKNOWN_SENTINELS, Resource

PACK_NAME = "accelplane"
CONFIG_ENV = "ACCELPLANE_POLICY_CONFIG"
_LEVELS = {
    "mandatory": EnforcementLevel.MANDATORY,
    "advisory": EnforcementLevel.ADVISORY,
    "disabled": EnforcementLevel.DISABLED,
}


def to_plain(value: Any) -> Any:
    """CrossGuard props (proxies, floats, unknowns) as plain rule data."""
    if isinstance(value, str):
        return UNKNOWN if value in UNKNOWN_SENTINELS else value
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, int):
        return value
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key in value:
            try:
                item = value[key]
            except UnknownValueError:
                out[key] = UNKNOWN
                continue
            out[key] = to_plain(item)
        return out
    if isinstance(value, Sequence):
        items: list[Any] = []
        for index in range(len(value)):
            try:
                item = value[index]
            except UnknownValueError:
                items.append(UNKNOWN)
                continue
            items.append(to_plain(item))
        return items
    return str(value)  # assets and archives: their text is what a rule could read


def resource_from_args(args: ResourceValidationArgs) -> Resource:
    return Resource(urn=args.urn, type=args.resource_type, name=args.name, props=to_plain(args.props),
                    parent=args.opts.parent or None, protect=bool(args.opts.protect))


def resource_from_stack(resource: PolicyResource) -> Resource:
    props = to_plain(resource.props)
    resource_id = props.get("id")
    return Resource(
        urn=resource.urn, type=resource.resource_type, name=resource.name, props=props,
        parent=resource.parent.urn if resource.parent is not None else (resource.opts.parent or None),
        dependencies=tuple(d.urn for d in resource.dependencies),
        property_dependencies={k: tuple(d.urn for d in v) for k, v in resource.property_dependencies.items()},
        protect=bool(resource.opts.protect), id=resource_id if isinstance(resource_id, str) else None,
        outputs={k: v for k, v in props.items() if v is not UNKNOWN},
    )


@lru_cache(maxsize=16)
def stack_context(urn: str) -> tuple[str | None, str | None, tuple[Any, ...]]:
    """(stack, environment, waivers) for the stack a URN belongs to, from its declaration in the
    project around this pack; a stack without a declaration file gets no waivers."""
    from accelplane.config.loader import load_stack

    parts = urn.removeprefix("urn:pulumi:").split("::")
    stack = parts[0] if len(parts) > 1 and parts[0] else None
    if stack is None:
        return None, None, ()
    project = find_project(Path(__file__).resolve().parent)
    if not project.stack_file(stack).is_file():
        return stack, None, ()
    declared = load_stack(stack, project)
    return stack, declared.platform.environment.value, tuple(declared.platform.waivers)


def _violations(rule: Rule, resources: list[Resource], scope: Scope) -> tuple[list[tuple[str, str]], int]:
    """(message, URN) of each unwaived finding of `rule`, and how many resources it could not judge."""
    stack, environment, waivers = stack_context(resources[0].urn) if resources else (None, None, ())
    judgement = judge(resources, policy=Policy(waivers=waivers), stack=stack, environment=environment,
                      rules=(rule,), scopes=(scope,))
    found = [(f.message if scope is Scope.resource else f"{f.name}: {f.message}", f.urn)
             for f in judgement.findings if not f.waived]
    return found, sum(judgement.not_applicable.values())


def _resource_policy(rule: Rule, level: str) -> ResourceValidationPolicy:
    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        if args.resource_type not in rule.resource_types:
            return
        found, unknown = _violations(rule, [resource_from_args(args)], Scope.resource)
        if unknown:
            args.not_applicable("a value this rule reads is not known until the resource is created")
            return
        for message, _ in found:
            report_violation(message, None)

    return ResourceValidationPolicy(name=rule.id, description=rule.description, validate=validate,
                                    **_metadata(rule, level))


def _stack_policy(rule: Rule, level: str) -> StackValidationPolicy:
    def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
        found, _ = _violations(rule, [resource_from_stack(r) for r in args.resources], Scope.stack)
        for message, urn in found:
            report_violation(message, urn)

    return StackValidationPolicy(name=rule.id, description=rule.description, validate=validate,
                                 **_metadata(rule, level))


def _metadata(rule: Rule, level: str) -> dict[str, Any]:
    return {
        "enforcement_level": _LEVELS[level],
        "display_name": rule.name,
        "severity": Severity(rule.severity.value),
        "remediation_steps": rule.remediation,
        "tags": [rule.family.value, *rule.categories],
        "url": rule.references[0] if rule.references else None,
    }


def pack_config() -> Mapping[str, Any] | None:
    path = os.environ.get(CONFIG_ENV)
    if not path:
        return None
    return load_policy_config(Path(path), option=CONFIG_ENV)


def policies(config: Mapping[str, Any] | None = None) -> list[pulumi_policy.Policy]:
    """One CrossGuard policy per rule, at the level `config` (`"all"` + per-rule) resolves to."""
    source = os.environ.get(CONFIG_ENV, "<pack>")
    levels = Policy.of(config=config if config is not None else pack_config(), config_source=source).levels
    return [
        (_resource_policy if rule.scope is Scope.resource else _stack_policy)(rule, levels[rule.id])
        for rule in RULES
    ]
