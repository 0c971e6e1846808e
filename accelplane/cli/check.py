"""`accelplane check`: evaluate every rule (least privilege, hygiene, version matrix) without a cloud
account or the Pulumi CLI.

What is judged:
- `--stack NAME`: the offline graph of `stacks/Pulumi.<NAME>.yaml` (the program run under mocks);
- `--state FILE`: a `pulumi stack export` document;
- `--plan FILE`: a `pulumi preview --json` document (or `accelplane preview --json` output).
With `--state`/`--plan`, `--stack NAME` may be given as well: the file is judged, and the stack's
declaration supplies the environment and the waivers. Without it the environment comes from the
resources' `accelplane:environment` tags and no waivers apply.

Exit codes: 0 when no unwaived mandatory finding remains, 1 when one does or a waiver has expired,
2 on bad input. `--strict` makes unwaived advisory findings block too (the way `matrix check
--strict` turns conditional into incompatible): use it on release branches.
`--policy-config FILE` takes the same JSON as `pulumi preview --policy-pack-config` (`"all"` plus
per-rule enforcement levels), so both engines enforce alike. `--as-of` fixes the day waivers expire
against and lifecycle facts are judged at (default: today).
"""

from __future__ import annotations

import argparse
import contextlib
from datetime import date
from pathlib import Path
from typing import Any

from accelplane.errors import EXIT_FINDINGS, EXIT_OK, InputError, Problem
from accelplane.report import FORMATS, render
from accelplane.report.findings import build_report
from accelplane.report.output import emit
from accelplane.rules.enforcement import resolve_levels
from accelplane.rules.engine import evaluate
from accelplane.rules.graph import Graph
from accelplane.rules.registry import RULES
from accelplane.rules.sources import from_offline_graph, load_file, read_json
from accelplane.rules.waivers import apply_waivers


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "check",
        help="evaluate the policy rules on a stack, a state export or a plan",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    parser.add_argument(
        "--stack",
        help="stack name (stacks/Pulumi.<stack>.yaml): its offline graph, or the "
        "declaration (environment, waivers) for --state/--plan",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--state", type=Path, help="a `pulumi stack export` JSON file")
    source.add_argument("--plan", type=Path, help="a `pulumi preview --json` (or `accelplane preview --json`) file")
    parser.add_argument("--format", choices=sorted(FORMATS), default="table", help="output format (default: table)")
    parser.add_argument("--output", type=Path, help="write the report here instead of standard output")
    parser.add_argument("--strict", action="store_true", help="unwaived advisory findings block as well")
    parser.add_argument("--as-of", type=_date, help="judge waiver expiry and lifecycle facts at this date (YYYY-MM-DD)")
    parser.add_argument(
        "--policy-config", type=Path, help="enforcement levels, as for `pulumi preview --policy-pack-config`"
    )
    parser.set_defaults(handler=run)


def _date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date as YYYY-MM-DD (got {text!r})") from None


def run(args: argparse.Namespace) -> int:
    if not (args.stack or args.state or args.plan):
        raise InputError.single("give --stack NAME, --state FILE or --plan FILE", file="accelplane check")
    today = args.as_of or date.today()
    levels = resolve_levels(RULES, _policy_config(args.policy_config), str(args.policy_config or "<policy config>"))

    stack = None
    if args.stack:
        from accelplane.config.loader import load_stack

        stack = load_stack(args.stack)
        _check_waiver_rules(stack)
    file_path: Path | None = args.state or args.plan
    if file_path is not None:
        resources = load_file(file_path, "state" if args.state else "plan")
        subject = f"{'state' if args.state else 'plan'} {file_path}"
        artifact = str(file_path)
    else:
        from accelplane.engine.offline import run_offline

        assert stack is not None
        resources = from_offline_graph(run_offline(stack))
        subject = f"stack {stack.stack}"
        artifact = _relative(stack.path)
    environment = stack.platform.environment.value if stack else None
    graph = Graph(resources, stack=stack.stack if stack else None, environment=environment, as_of=args.as_of)
    evaluation = evaluate(graph, RULES, levels=levels)
    waivers = list(stack.platform.waivers) if stack else []
    findings, statuses = apply_waivers(evaluation.findings, waivers, today)

    report = build_report(
        subject=subject,
        findings=findings,
        rules=RULES,
        levels=levels,
        resources=len(graph),
        strict=args.strict,
        artifact=artifact,
    )
    report.waivers = [s.to_json() for s in statuses]
    for status in statuses:
        where = f"waivers[{status.index}] ({status.rule} on {status.resource}, owner {status.owner})"
        if status.state == "expired":
            report.failures.append(
                f"{where} expired on {status.expires.isoformat()}: renew it with a new reason or fix the finding"
            )
        elif status.state == "unused":
            report.notes.append(f"{where} matches no finding: remove it")
    skipped = sum(evaluation.not_applicable.values())
    if skipped:
        report.notes.append(
            f"{skipped} rule evaluations skipped: values unknown until apply "
            f"({', '.join(sorted(evaluation.not_applicable))})"
        )
    summary = report.summary()
    emit(
        render(report, args.format),
        args.output,
        f"{'PASSED' if report.passed else 'FAILED'}: {summary['blocking']} blocking, {summary['findings']} findings",
    )
    return EXIT_OK if report.passed else EXIT_FINDINGS


def _policy_config(path: Path | None) -> dict[str, Any] | None:
    if path is None:
        return None
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError.single('expected an object mapping rule ids (or "all") to enforcement levels', file=str(path))
    return data


def _check_waiver_rules(stack: Any) -> None:
    """A waiver naming no rule is a typo that silently waives nothing: reject it (exit 2)."""
    from accelplane.config.loader import PLATFORM_KEY
    from accelplane.config.yaml_source import read_yaml
    from accelplane.rules.registry import rule_by_id

    problems = []
    for index, waiver in enumerate(stack.platform.waivers):
        if rule_by_id(waiver.rule) is None:
            line = None
            with contextlib.suppress(InputError, OSError):
                line = read_yaml(stack.path).line_of(["config", PLATFORM_KEY, "waivers", index, "rule"])
            problems.append(
                Problem(
                    file=str(stack.path),
                    line=line,
                    field=f"{PLATFORM_KEY}.waivers[{index}].rule",
                    message=f"no rule with id {waiver.rule!r} (see `accelplane check` output for ids)",
                )
            )
    if problems:
        raise InputError(problems)


def _relative(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
