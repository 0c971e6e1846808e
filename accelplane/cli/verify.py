"""`accelplane verify --stack NAME`: check the running platform against its declaration, read-only.

Every declared cloud resource must exist live with the declared settings and nothing undeclared may
carry the platform's identity (drift); node groups, targets, keys and secrets must be in a usable
state; the policy rules of `accelplane check` must hold on what is live; the inference endpoint
must answer its health path over verified TLS; the newest checkpoint must read back intact.

Exit codes: 0 when nothing failed (warnings do not fail), 1 on drift, a failed check, a failed
read or a stack not deployed in the account and region; 2 on bad input (a malformed option is
named with what it expects), missing credentials, an endpoint that cannot be reached or is not
the cloud's API, or a cloud without live verification yet. Read-only: only read calls are made
(on AWS Describe/List/Get/Head), and secret values are never read. The report names the account,
region and endpoint it checked.
"""

from __future__ import annotations

import argparse
from datetime import timedelta
from pathlib import Path

from accelplane.cli.connection_args import add_connection_arguments, connection_of
from accelplane.cli.stack_args import add_stack_arguments, at_cloud_line, require_stack
from accelplane.errors import EXIT_FINDINGS, EXIT_OK, InputError
from accelplane.input_files import is_file
from accelplane.option_types import at_least
from accelplane.report import FORMATS
from accelplane.verify.checkpoint import DRILL_MODES


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, e.g. 5 or 2.5 (got {text!r})") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected more than 0 seconds (got {value:g})")
    return value


def _probe_http_url(text: str) -> str:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.verify.endpoint_policy import http_url_problem

    problem = http_url_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def _probe_url(text: str) -> str:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.verify.probe import probe_url_problem

    problem = probe_url_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def _duration(text: str) -> timedelta:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.verify.checkpoint import parse_duration

    try:
        return parse_duration(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="check the live platform against the declaration (read-only)",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    add_stack_arguments(parser)
    parser.add_argument("--policy-config", type=Path,
                        help="enforcement levels of the rules on live state (the --policy-pack-config format)")
    add_connection_arguments(parser)
    parser.add_argument("--format", choices=sorted(FORMATS), default="table", help="output format (default: table)")
    parser.add_argument("--output", type=Path, help="write the report here instead of standard output")
    parser.add_argument(
        "--probes",
        type=at_least(0),
        default=5,
        help="HTTPS probes of the endpoint's health path (default 5; 0 skips the probe)",
    )
    parser.add_argument(
        "--timeout", type=_seconds, help="seconds per probe (default: the declared health check timeout)"
    )
    parser.add_argument(
        "--probe-url",
        type=_probe_url,
        metavar="URL",
        help="URL to probe (default: https://<ALB DNS name><health check path>; "
        "give the host clients use when the certificate names it)",
    )
    parser.add_argument(
        "--probe-http-url",
        type=_probe_http_url,
        metavar="URL",
        help="plain-HTTP URL that must only redirect to HTTPS, where the endpoint declares http_redirect "
        "(default: the probe URL's host and path on port 80)",
    )
    parser.add_argument("--ca-bundle", help="PEM file of CAs to verify the endpoint with (default: system store)")
    parser.add_argument(
        "--probe-token-file",
        metavar="FILE",
        help="where the endpoint authenticates clients (client_auth): a file holding an ID token the health "
        "probes send as a bearer token (e.g. `gcloud auth print-identity-token --audiences=<audience> > FILE`); "
        "never printed",
    )
    parser.add_argument("--probe-client-cert", metavar="PEM",
                        help="a client certificate (and its key, unless --probe-client-key) the probes present "
                        "where the endpoint declares mutual TLS")
    parser.add_argument("--probe-client-key", metavar="PEM", help="the key of --probe-client-cert")
    parser.add_argument(
        "--checkpoint-max-age",
        type=_duration,
        metavar="DURATION",
        help="the newest checkpoint must be younger than this (e.g. 90m, 6h, 1d)",
    )
    parser.add_argument(
        "--checkpoint-drill",
        choices=DRILL_MODES,
        default="download",
        help="how to check checkpoint integrity: stream and hash every file (default), trust the store's "
        "stored SHA-256 where present, also write, restore and delete a scratch checkpoint (restore: "
        "needs write access to the workload's prefix; Cloud Storage), or skip the drill",
    )
    parser.add_argument("--concurrency", type=at_least(0), default=8, help="parallel API calls (default 8)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.program import offline_graph
    from accelplane.report.output import emit
    from accelplane.rules.judgement import Policy, load_policy_config
    from accelplane.verify.probe import ca_bundle_problem
    from accelplane.verify.reader import live_reader
    from accelplane.verify.verification import VerifyOptions, verify
    from accelplane.verify.verify_output import render_verify

    if args.ca_bundle and not is_file(Path(args.ca_bundle)):
        raise InputError.single("no such file", file=args.ca_bundle, field="--ca-bundle")
    if args.ca_bundle and (problem := ca_bundle_problem(args.ca_bundle)):
        raise InputError.single(problem, file=args.ca_bundle, field="--ca-bundle")
    config = load_policy_config(args.policy_config) if args.policy_config else None
    levels = Policy.of(config=config, config_source=str(args.policy_config or "<policy config>")).levels
    stack = require_stack(args)
    reader = at_cloud_line(stack, live_reader)
    options = VerifyOptions(
        policy_levels=levels,
        connection=connection_of(args, stack.platform.cloud, "verify"),
        probes=args.probes,
        timeout=args.timeout,
        probe_url=args.probe_url,
        probe_http_url=args.probe_http_url,
        ca_bundle=args.ca_bundle,
        probe_token_file=args.probe_token_file,
        probe_client_cert=args.probe_client_cert,
        probe_client_key=args.probe_client_key,
        checkpoint_max_age=args.checkpoint_max_age,
        checkpoint_drill=args.checkpoint_drill,
        concurrency=max(1, args.concurrency),
    )
    report = verify(stack, options, reader=reader, graph=offline_graph(stack))
    emit(render_verify(report, args.format), args.output, report.summary_line())
    return EXIT_FINDINGS if report.failed else EXIT_OK
