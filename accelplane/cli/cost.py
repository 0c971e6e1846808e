"""`accelplane cost --stack NAME`: what the stack costs a month, per resource and per pool, at its
pools' minimum, desired and maximum sizes, from sourced and dated list prices (USD), with spot,
reservations and declared discounts; the budget's verdict when one is declared. Offline.

`accelplane cost idle --stack NAME --prometheus-url URL`: the accelerator nodes whose utilisation
stayed below their pool's threshold over the window (live, read-only), and what releasing them saves.

Exit codes: 0 (cost), 0 no idle node / 1 idle nodes found (idle), 2 bad input.
"""

from __future__ import annotations

import argparse
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from accelplane.cli.connection_args import add_connection_arguments, connection_of
from accelplane.cli.instant_arg import instant
from accelplane.cli.stack_args import add_stack_arguments, require_stack, stack_or_migration
from accelplane.errors import EXIT_FINDINGS, EXIT_OK, InputError
from accelplane.input_files import is_dir
from accelplane.option_types import iso_date

if TYPE_CHECKING:
    from accelplane.config.loader import StackConfig
    from accelplane.cost.estimate import Estimate
    from accelplane.migration.stack import MigrationStack



def _hours(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of hours (got {text!r})") from None
    if not 1 <= value <= 720:
        raise argparse.ArgumentTypeError(f"expected 1 to 720 hours (got {value})")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "cost", help="monthly cost of a stack per resource and pool, from sourced list prices (offline)",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    add_stack_arguments(parser, required=False)
    parser.add_argument("--format", choices=("text", "json", "markdown"), default="text",
                        help="output format (default: text)")
    parser.add_argument("--prices-dir", type=Path, metavar="DIR",
                        help="price tables written by `accelplane prices refresh --output-dir` (default: shipped)")
    parser.add_argument("--as-of", type=iso_date, help="judge the price tables' age at this date (default: today)")
    parser.add_argument("--output", type=Path, help="write the report here instead of standard output")
    parser.set_defaults(handler=run)
    actions = parser.add_subparsers(dest="cost_action", metavar="idle")
    idle = actions.add_parser("idle", help="accelerator nodes idle below their pool's threshold (live, read-only)",
                              description="Accelerator nodes whose utilisation stayed below the pool's threshold "
                              "over the window, from Prometheus, with what releasing them saves a month.")
    add_stack_arguments(idle)
    idle.add_argument("--prometheus-url", required=True, metavar="URL",
                      help="Prometheus (or Google Cloud Managed Service for Prometheus) query endpoint")
    idle.add_argument("--hours", type=_hours, metavar="H",
                      help="window for every pool (default: each pool's idle.for_hours, else the environment's)")
    add_connection_arguments(idle)  # a cloud's managed Prometheus is read with the cloud's credentials
    idle.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    idle.add_argument("--output", type=Path, help="write the report here instead of standard output")
    # For tests and reruns: read the windows as they ended at this instant (UTC, e.g. 2026-12-03T06:00:00Z).
    idle.add_argument("--now", type=instant, help=argparse.SUPPRESS)
    idle.set_defaults(handler=run_idle)


def stack_estimate(stack: StackConfig, prices_dir: Path | None = None) -> tuple[Estimate, dict[str, Any]]:
    """The offline plan of `stack` priced (the program run with mocks, as `preview`)."""
    # Start-up time: the Pulumi engine loads only for a command that runs the program.
    from accelplane.cost.cloud_pricing import table_for
    from accelplane.cost.estimate import estimate_plan
    from accelplane.program import offline_graph

    cloud = stack.platform.cloud
    table = table_for(cloud, prices_dir)
    # The plan document once: the estimate and the budget both read it.
    document = offline_graph(stack).to_json()
    desired = {pool.name: pool.scaling.desired for pool in stack.platform.node_pools}
    return estimate_plan(document, cloud, stack.platform.region, table, desired), document


def run(args: argparse.Namespace) -> int:
    # Start-up time: only this command loads these.
    from accelplane.cost.budget import budgets_in, judge
    from accelplane.cost.estimate_output import render
    from accelplane.migration.stack import MigrationStack
    from accelplane.report.output import emit

    if args.prices_dir is not None and not is_dir(args.prices_dir):
        raise InputError.single("no such directory", file=str(args.prices_dir), field="--prices-dir")
    # --stack is optional on `cost` itself (the `idle` action has its own): without one, say so.
    stack = stack_or_migration(args)
    if stack is None:
        raise InputError.single("name the stack to price: --stack NAME or --stack-file PATH", file="accelplane cost")
    if isinstance(stack, MigrationStack):
        return _migration(args, stack)
    estimate, document = stack_estimate(stack, args.prices_dir)
    budgets = budgets_in(document["resources"])
    verdict = judge(estimate, budgets[0]) if budgets else None
    today = args.as_of or date.today()
    low, desired, high = estimate.totals()
    emit(render(estimate, stack.stack, args.format, today, verdict) + "\n", args.output,
         f"cost of {stack.stack}: ${low:,.2f} / ${desired:,.2f} / ${high:,.2f} a month (minimum / desired / maximum)")
    return EXIT_OK


def _migration(args: argparse.Namespace, stack: MigrationStack) -> int:
    """Both ends priced, the overlap per step and the cost per million requests (migration/cost.py)."""
    # Start-up time: only a migration's cost loads these.
    from accelplane.migration.cost import migration_cost
    from accelplane.migration.cost_output import FORMATS
    from accelplane.report.output import emit

    cost = migration_cost(stack, lambda end: stack_estimate(end, args.prices_dir)[0])
    peak = max((step.overlap_monthly or 0.0 for step in cost.steps), default=0.0)
    emit(FORMATS[args.format](cost) + "\n", args.output,
         f"cost of migration {stack.stack}: both ends' service pools up to ${peak:,.2f} a month while they overlap")
    return EXIT_OK


def run_idle(args: argparse.Namespace) -> int:
    # Start-up time: only this command loads these.
    from accelplane.cost.idle.idle_command import find_idle
    from accelplane.cost.idle.idle_output import render_idle
    from accelplane.report.output import emit

    stack = require_stack(args)
    connection = connection_of(args, stack.platform.cloud, "cost idle")
    report = find_idle(stack, args.prometheus_url, hours=args.hours, connection=connection, now=args.now)
    emit(render_idle(report, args.format) + "\n", args.output, report.summary_line())
    return EXIT_FINDINGS if report.idle else EXIT_OK
