"""`accelplane rules list | show ID`: the policy rules `check`, `verify`, `diff` and the CrossGuard
pack evaluate, and what one of them checks, why, how to fix what it finds and where the practice
comes from (what a waiver or a `--policy-config` entry needs to name).

`list` prints one line per rule (id, severity, enforcement, family, slug; `--format json` for tools);
`show` the whole record of one rule, found by id, old id (an alias) or slug. The checks only
`accelplane diff` makes (they compare two revisions, so the registry holds no rule for them:
AP-RO-004) are listed and shown too, marked "diff only": every id a command can report is here.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import json
import re
import sys
from typing import Any

from accelplane.errors import EXIT_OK, InputError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("rules", help="list the policy rules, or show one")
    sub = parser.add_subparsers(dest="rules_command", required=True)
    listing = sub.add_parser("list", help="every rule: id, severity, enforcement, family, slug")
    listing.add_argument("--format", choices=("table", "json"), default="table")
    listing.set_defaults(handler=run_list)
    show = sub.add_parser("show", help="one rule: what it checks, why, the fix and its sources")
    show.add_argument("rule", metavar="ID", help="a rule id (AP-IAM-001), an old id, or a slug")
    show.add_argument("--format", choices=("text", "json"), default="text")
    show.set_defaults(handler=run_show)


def _rules() -> tuple[Any, ...]:
    """The registered rules, then the diff-only checks."""
    # Start-up time: the registry (every rule) loads only for these commands.
    from accelplane.capacity.purchases import purchase_rule
    from accelplane.diff.step_rule import STEP_RULE  # start-up time: as above
    from accelplane.rules.registry import RULES  # start-up time: as above

    return (*RULES, STEP_RULE, purchase_rule())


def _diff_only(rule: Any) -> bool:
    # Start-up time: as _rules (the registry loads only for these commands).
    from accelplane.rules.registry import DIFF_ONLY_IDS

    return rule.id in DIFF_ONLY_IDS


def _record(rule: Any) -> dict[str, Any]:
    module = importlib.import_module(rule.check.__module__)
    # The module's docstring opens with the id (and any old one) and says what the rule guards against.
    why = re.sub(r"^AP-[A-Z0-9]+-\d{3}( \(was [^)]*\))?:\s*", "", (module.__doc__ or "").strip())
    return {
        "id": rule.id,
        "name": rule.name,
        "aliases": list(rule.aliases),
        "family": rule.family.value,
        "severity": rule.severity.value,
        "enforcement": rule.enforcement.value,
        "checks": rule.description,
        "why": why,
        "fix": rule.remediation,
        "resource_types": sorted(rule.resource_types),
        "categories": list(rule.categories),
        "sources": list(rule.references),
        # Judged by `accelplane diff` only (two revisions); never by check, verify or the pack.
        "diff_only": _diff_only(rule),
    }


def run_list(args: argparse.Namespace) -> int:
    rules = _rules()
    if args.format == "json":
        sys.stdout.write(json.dumps([_record(rule) for rule in rules], indent=2) + "\n")
        return EXIT_OK
    for rule in rules:
        aliases = f"  (was {', '.join(rule.aliases)})" if rule.aliases else ""
        diff_only = "  (diff only)" if _diff_only(rule) else ""
        sys.stdout.write(f"{rule.id:<12} {rule.severity.value:<8} {rule.enforcement.value:<9} "
                         f"{rule.family.value:<14} {rule.name}{aliases}{diff_only}\n")
    diff_only = sum(1 for rule in rules if _diff_only(rule))
    checks = "check" if diff_only == 1 else "checks"
    sys.stdout.write(f"{len(rules) - diff_only} rules and {diff_only} {checks} of `accelplane diff` only; "
                     "`accelplane rules show ID` for one\n")
    return EXIT_OK


def run_show(args: argparse.Namespace) -> int:
    # Start-up time: as _rules.
    from accelplane.rules.registry import rule_by_id

    rules = _rules()
    wanted = args.rule.strip()
    rule = rule_by_id(wanted.upper()) or next(
        (r for r in rules if r.id == wanted.upper() or r.name == wanted.lower()), None)
    if rule is None:
        keys = [r.id for r in rules] + [r.name for r in rules]
        close = difflib.get_close_matches(wanted.upper() if wanted.upper().startswith("AP-") else wanted.lower(),
                                          keys, n=3, cutoff=0.6)
        hint = f"; did you mean {' or '.join(close)}?" if close else "; `accelplane rules list` lists them"
        raise InputError.single(f"no rule {wanted!r}{hint}", file="accelplane rules show", field="ID")
    record = _record(rule)
    if args.format == "json":
        sys.stdout.write(json.dumps(record, indent=2) + "\n")
        return EXIT_OK
    lines = [
        f"{rule.id}  {rule.name}" + (f"  (was {', '.join(rule.aliases)})" if rule.aliases else ""),
        f"severity {rule.severity.value}, {rule.enforcement.value} by default, family {rule.family.value}"
        + (" (accelplane diff only: it compares two revisions)" if _diff_only(rule) else ""),
        f"checks:  {rule.description}",
        f"why:     {record['why']}",
        f"fix:     {rule.remediation}",
        f"applies to: {', '.join(record['resource_types'])}",
    ]
    if rule.references:
        lines.append("sources: " + "; ".join(rule.references))
    sys.stdout.write("\n".join(lines) + "\n")
    return EXIT_OK
