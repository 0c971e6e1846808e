"""`preview` and `check` of a migration stack (`accelplane:migration`): the same options and exit codes
as for a platform stack, over the migration's own program (the weighted records and their health
checks), with what a person deciding on the move needs beside the plan: the weights, the steps and how
fast clients follow an abort.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import UTC, datetime

from accelplane.errors import EXIT_FINDINGS, EXIT_OK
from accelplane.migration.stack import MigrationStack


def weights_line(stack: MigrationStack) -> str:
    migration = stack.migration
    steps = ", ".join(f"{step}" for step in migration.steps)
    position = (f"step {migration.steps.index(migration.weight) + 1} of {len(migration.steps)}" if migration.weight
                else "before the first step")
    return (f"{migration.hostname}: {stack.source.stack} ({migration.source.service}) "
            f"{100 - migration.weight}% · {stack.target.stack} ({migration.target.service}) {migration.weight}% "
            f"— {position} (steps {steps} %, bake {migration.bake})")


def preview(args: argparse.Namespace, stack: MigrationStack) -> int:
    # Start-up time: the Pulumi engine and the DNS service's SDK load only for a preview.
    from accelplane.cli.graph_json import write_graph
    from accelplane.engine.plan import render_plan
    from accelplane.migration.rollback import rollback_figure
    from accelplane.program import migration_offline_graph
    from accelplane.report.output import to_stdout

    json_to_stdout = args.json_file is not None and to_stdout(args.json_file)
    words = sys.stderr if json_to_stdout else sys.stdout
    graph = migration_offline_graph(stack)
    print(render_plan(graph, graph.project), file=words)
    print(file=words)
    print(f"Migration {weights_line(stack)}", file=words)
    print(rollback_figure(stack).sentence(), file=words)
    write_graph(graph, args.json_file)
    return EXIT_OK


def check(args: argparse.Namespace, stack: MigrationStack) -> int:
    # Start-up time: the rules and the report load only for this command.
    from accelplane.engine.graph import from_offline_graph
    from accelplane.program import migration_offline_graph
    from accelplane.report import render
    from accelplane.report.findings import build_report
    from accelplane.report.output import artifact_path, emit
    from accelplane.rules.judgement import Policy, judge, load_policy_config

    started, clock = datetime.now(UTC), time.perf_counter()
    config = load_policy_config(args.policy_config) if args.policy_config else None
    policy = Policy.of(config=config, config_source=str(args.policy_config or "<policy config>"), as_of=args.as_of)
    resources = from_offline_graph(migration_offline_graph(stack))
    judgement = judge(resources, policy=policy, stack=stack.stack, environment=stack.environment.value)
    report = build_report(judgement, subject=f"stack {stack.stack}", strict=args.strict,
                          artifact=artifact_path(stack.path))
    report.resources = len(resources)
    report.notes.append(f"migration {weights_line(stack)}")
    report.started, report.seconds = started, time.perf_counter() - clock
    emit(render(report, args.format), args.output, report.verdict_line())
    return EXIT_OK if report.passed else EXIT_FINDINGS
