"""`accelplane preflight --stack NAME`: before `pulumi up`, confirm the stack's capacity can be had.

Read-only, with live credentials: EC2 vCPU quotas, instance types offered in every zone, EFA, the
capacity reservations and capacity blocks pools name and the EKS version and node images (AWS);
regional GPU and TPU quotas, machine and accelerator types per zone, reservations and the GKE
version in the release channel (Google Cloud); the whole-fleet node preflight for bare-metal hosts.
One row per check: what the stack needs, what is there, the headroom, and the fix where it falls
short.

Exit codes: 0 when everything fits (warnings do not block); 1 when something is short, or could not
be checked (unknown) without --allow-unknown; 2 for bad input or missing credentials.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from accelplane.cli.connection_args import add_connection_arguments, connection_of
from accelplane.cli.stack_args import add_stack_arguments, require_stack
from accelplane.errors import EXIT_FINDINGS, EXIT_OK, InputError
from accelplane.input_files import is_file
from accelplane.report import FORMATS


def _days(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of days (got {text!r})") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or more days (got {value})")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "preflight",
        help="confirm quotas, capacity, offerings and versions before anything is created (read-only)",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    add_stack_arguments(parser)
    add_connection_arguments(parser)
    parser.add_argument("--ca-bundle", help="PEM file of CAs for a TLS-inspecting proxy (Google Cloud)")
    parser.add_argument("--min-days", type=_days, default=7, metavar="DAYS",
                        help="a reservation, capacity block or version support ending sooner than this does not "
                        "fit (default 7)")
    parser.add_argument("--allow-unknown", action="store_true",
                        help="do not block on checks that could not be made (denied, throttled, no known quota)")
    parser.add_argument("--inventory", metavar="PATH",
                        help="bare metal: the inventory the node preflight reads (default: the stack's hosts)")
    parser.add_argument("--nodes-only", action="store_true",
                        help="bare metal: check the stack's hosts only; nothing is read from the cloud, so no cloud "
                        "credentials are needed")
    parser.add_argument("--format", choices=sorted(FORMATS), default="table", help="output format (default: table)")
    parser.add_argument("--output", type=Path, help="write the report here instead of standard output")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.preflight.options import PreflightOptions
    from accelplane.preflight.preflight_command import preflight
    from accelplane.preflight.preflight_output import render_preflight
    from accelplane.report.output import emit

    if args.ca_bundle and not is_file(Path(args.ca_bundle)):
        raise InputError.single("no such file", file=args.ca_bundle, field="--ca-bundle")
    if args.inventory and not is_file(Path(args.inventory)):
        raise InputError.single("no such file", file=args.inventory, field="--inventory")
    stack = require_stack(args)
    options = PreflightOptions(
        connection=connection_of(args, stack.platform.cloud, "preflight"),
        ca_bundle=args.ca_bundle,
        min_days=args.min_days,
        allow_unknown=args.allow_unknown,
        inventory=args.inventory,
        nodes_only=args.nodes_only,
    )
    report = preflight(stack, options)
    emit(render_preflight(report, args.format), args.output, report.summary_line())
    return EXIT_FINDINGS if report.failed else EXIT_OK
