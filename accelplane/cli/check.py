"""`accelplane check`: evaluate every rule (least privilege, hygiene, version matrix) without a cloud
account or the Pulumi CLI.

What is judged:
- `--stack NAME` (or `--stack-file PATH`): the offline graph of the stack (the program run under
  mocks) and its bare-metal host groups;
- `--state FILE`: a `pulumi stack export` document;
- `--plan FILE`: a `pulumi preview --json` document (or `accelplane preview --json` output).
With `--state`/`--plan`, a stack may be given as well: the file is judged, it must be that stack's
(its URNs name stack and project), and the declaration supplies the environment, the waivers and
the bare-metal host groups. Without one the environment comes from the resources'
`accelplane:environment` tags and no waivers apply. A file that is not a state export or plan, or
holds no resources, is refused (exit 2): a gate must never pass because it judged nothing.

Exit codes: 0 when no unwaived mandatory finding remains, 1 when one does or a waiver has expired,
2 on bad input. `--strict` makes unwaived advisory findings block too (the way `matrix check
--strict` turns conditional into incompatible): use it on release branches.
`--policy-config FILE` takes the same JSON as `pulumi preview --policy-pack-config` (`"all"` plus
per-rule enforcement levels), so both engines enforce alike. `--as-of` fixes the day waivers expire
against and lifecycle facts are judged at (default: today).
"""

from __future__ import annotations

import argparse
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from accelplane.cli.stack_args import add_stack_arguments, stack_from_args, stack_or_migration
from accelplane.config.keys import PLATFORM_KEY
from accelplane.errors import EXIT_FINDINGS, EXIT_OK, InputError, Problem
from accelplane.option_types import iso_date
from accelplane.report import FORMATS

if TYPE_CHECKING:
    from accelplane.config.loader import StackConfig
    from accelplane.rules.view import Resource



def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "check",
        help="evaluate the policy rules on a stack, a state export or a plan",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    add_stack_arguments(parser, required=False,
                        purpose=": its offline graph, or the declaration (environment, waivers) for --state/--plan")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--state", type=Path, help="a `pulumi stack export` JSON file")
    source.add_argument("--plan", type=Path, help="a `pulumi preview --json` (or `accelplane preview --json`) file")
    parser.add_argument("--format", choices=sorted(FORMATS), default="table", help="output format (default: table)")
    parser.add_argument("--output", type=Path, help="write the report here instead of standard output")
    parser.add_argument("--strict", action="store_true", help="unwaived advisory findings block as well")
    parser.add_argument("--as-of", type=iso_date,
                        help="judge waiver expiry and lifecycle facts at this date (YYYY-MM-DD)")
    parser.add_argument(
        "--policy-config", type=Path, help="enforcement levels, as for `pulumi preview --policy-pack-config`"
    )
    parser.set_defaults(handler=run)



def run(args: argparse.Namespace) -> int:
    # Start-up time: the rules and the report load only for this command (every parser is built at start).
    from accelplane.engine.graph import from_offline_graph
    from accelplane.report import render
    from accelplane.report.findings import build_report
    from accelplane.report.output import artifact_path, emit
    from accelplane.rules.judgement import Policy, judge, load_policy_config
    from accelplane.rules.sources import load_file

    started, clock = datetime.now(UTC), time.perf_counter()
    file_path: Path | None = args.state or args.plan
    if file_path is None and args.stack is None and args.stack_file is None:
        raise InputError.single("give --stack NAME, --stack-file PATH, --state FILE or --plan FILE",
                                file="accelplane check")
    # A state or plan is judged with a platform stack's declaration; the offline graph of either kind.
    if file_path is not None:
        stack = stack_from_args(args)
    else:
        # Start-up time: a state or plan without a stack loads no declaration model.
        from accelplane.migration.stack import MigrationStack

        found = stack_or_migration(args)
        if isinstance(found, MigrationStack):
            from accelplane.cli.migration_commands import check  # start-up time: as above

            return check(args, found)
        stack = found
    config = load_policy_config(args.policy_config) if args.policy_config else None
    if stack is not None:
        _check_waiver_rules(stack)
    policy = Policy.of(config=config, config_source=str(args.policy_config or "<policy config>"),
                       waivers=stack.platform.waivers if stack else (), as_of=args.as_of)

    if file_path is not None:
        kind = "state" if args.state else "plan"
        resources = load_file(file_path, kind)
        _check_document(resources, file_path, kind, stack)
        subject = f"{kind} {file_path}"
    else:
        # Start-up time: only this command loads these (every parser is built at start).
        from accelplane.program import offline_graph

        assert stack is not None
        resources = from_offline_graph(offline_graph(stack))
        subject = f"stack {stack.stack}"
    deployed = len(resources)  # the count preview and `preview --json` give too: no stack, no providers
    groups = _declared_resources(stack, resources) if stack is not None else []
    judgement = judge(resources, policy=policy, stack=stack.stack if stack else None,
                      environment=stack.platform.environment.value if stack else None)

    artifact = stack.path if stack is not None else file_path
    report = build_report(judgement, subject=subject, strict=args.strict,
                          artifact=artifact_path(artifact) if artifact is not None else None)
    report.resources = deployed
    if groups:
        report.notes.append(f"{len(groups)} bare-metal host groups judged from the declaration "
                            f"({', '.join(g.name for g in groups)})")
    if stack is not None:
        # Start-up time: only this command loads these (every parser is built at start).
        from accelplane.engine.provenance import finding_lines, fix_lines

        report.lines = finding_lines(stack.platform, stack.line_of, resources)
        report.fix_lines = fix_lines(stack.platform, stack.line_of, resources, judgement.findings)
    report.started, report.seconds = started, time.perf_counter() - clock
    emit(
        render(report, args.format),
        args.output,
        report.verdict_line(),
    )
    return EXIT_OK if report.passed else EXIT_FINDINGS


def _declared_resources(stack: StackConfig, resources: list[Resource]) -> list[Resource]:
    """What the rules judge from the declaration itself, added to `resources`; returns the host groups."""
    # Start-up time: the bundle's source lists load only when a stack is named.
    from accelplane.bundle.sources import air_gap_resources
    from accelplane.rules.bare_metal_groups import host_group_resources

    groups = host_group_resources(stack.config[PLATFORM_KEY], stack=stack.stack, project=stack.project)
    resources += groups  # bare metal is in no Pulumi graph: the declaration is its source
    # Nor are the artifact sources (apt, Python index, installers, charts, images): AP-AIR-001 judges
    # them from the declaration too, with --state/--plan as well as the offline graph.
    resources += air_gap_resources(stack.config[PLATFORM_KEY], stack=stack.stack, project=stack.project)
    return groups


def _check_document(resources: list[Resource], path: Path, kind: str, stack: StackConfig | None) -> None:
    """A state or plan must hold resources, of one stack, and of the stack named with it."""
    from accelplane.rules.sources import stack_of  # start-up time: as in run()

    owner = stack_of(resources, str(path))
    if owner is None:
        raise InputError.single(f"the {kind} holds no resources: nothing to judge (is this the right file?)",
                                file=str(path), field=f"--{kind}")
    if stack is not None and owner != (stack.stack, stack.project):
        raise InputError.single(
            f"the {kind} is of stack {owner[0]!r} (project {owner[1]!r}), not of the stack given "
            f"({stack.stack!r}, project {stack.project!r}): its waivers and environment would judge the wrong "
            "resources", file=str(path), field=f"--{kind}",
        )


def _check_waiver_rules(stack: StackConfig) -> None:
    """A waiver naming no rule is a typo that silently waives nothing: reject it (exit 2)."""
    from accelplane.rules.registry import rule_by_id  # start-up time: as in run()

    problems = [
        Problem(
            file=str(stack.path),
            line=stack.line_of("waivers", index, "rule"),
            field=f"{PLATFORM_KEY}.waivers[{index}].rule",
            message=f"no rule with id {waiver.rule!r} (`accelplane rules list` lists the ids)",
        )
        for index, waiver in enumerate(stack.platform.waivers)
        if rule_by_id(waiver.rule) is None
    ]
    if problems:
        raise InputError(problems)
