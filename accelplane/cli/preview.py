"""`accelplane preview --stack NAME | --stack-file PATH [--json FILE]`: the plan of `pulumi up`, offline.

Runs the Pulumi program with mocks as the engine, prints the plan (tree, counts by type) and the
version-matrix verdict of every node pool's software profile, and validates every Kubernetes
manifest against the stack's Kubernetes version. `--json -` writes the resource graph to standard
output alone (the plan and the verdicts go to standard error), so it pipes into `jq`. Exit 1 when
a profile is incompatible with its pool (the same verdict `check` enforces) or a manifest is
invalid, 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from accelplane.cli.graph_json import write_graph
from accelplane.cli.stack_args import add_stack_arguments, stack_or_migration
from accelplane.errors import EXIT_FINDINGS, EXIT_OK


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("preview", help="offline plan of a stack (no cloud, no Pulumi CLI)")
    add_stack_arguments(parser)
    parser.add_argument("--json", dest="json_file", type=Path,
                        help="write the resource graph as JSON here (`-`: standard output, the plan then goes to "
                        "standard error)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # Start-up time: the Pulumi engine, the cloud's SDK and the manifest validator load only for a
    # preview (every command's parser is built at start).
    from accelplane.capacity.purchases import purchase_lines
    from accelplane.cost.cloud_pricing import builtin_table, has_pricing
    from accelplane.cost.estimate import estimate_plan
    from accelplane.cost.estimate_output import one_line
    from accelplane.engine.plan import render_plan
    from accelplane.engine.profile_checks import check_pool_profiles, render_profile_checks
    from accelplane.k8s.manifests import render_manifest_report, validate_graph
    from accelplane.migration.stack import MigrationStack
    from accelplane.preflight.gate import offline_note
    from accelplane.program import offline_graph
    from accelplane.report.output import to_stdout

    stack = stack_or_migration(args)
    assert stack is not None  # argparse requires --stack or --stack-file
    if isinstance(stack, MigrationStack):
        from accelplane.cli.migration_commands import preview  # start-up time: as above

        return preview(args, stack)
    json_to_stdout = args.json_file is not None and to_stdout(args.json_file)
    # With the graph on standard output, everything a person reads goes to standard error.
    words = sys.stderr if json_to_stdout else sys.stdout
    pool_checks = check_pool_profiles(stack.platform)
    graph = offline_graph(stack)
    print(render_plan(graph, graph.project), file=words)
    print(file=words)
    print(render_profile_checks(pool_checks), file=words)
    platform = stack.platform
    cloud = platform.cloud
    print(file=words)
    plan = graph.to_json()
    if has_pricing(cloud):
        estimate = estimate_plan(plan, cloud, platform.region, builtin_table(cloud),
                                 {pool.name: pool.scaling.desired for pool in platform.node_pools})
        print(one_line(estimate), file=words)
    else:
        print(f"Monthly cost: not estimated (the {cloud} cloud ships no prices)", file=words)
    purchases = purchase_lines(plan["resources"])
    if purchases:
        print("Capacity `pulumi up` buys (paid at purchase, never refunded; AP-CAP-001 checks the approval):",
              file=words)
        for line in purchases:
            print(f"    {line}", file=words)
    manifests = validate_graph(graph, stack.platform.kubernetes_version)
    print(file=words)
    print(render_manifest_report(manifests, stack.platform.kubernetes_version), file=words)
    note = offline_note(stack.config)
    if note:
        print(f"\n{note}", file=words)
    write_graph(graph, args.json_file)
    blocking = any(c.blocking for c in pool_checks) or not manifests.ok
    return EXIT_FINDINGS if blocking else EXIT_OK

