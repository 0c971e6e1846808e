"""`accelplane migrate parity --stack NAME`: the migration's golden set recorded on the source end
(`--record`), or replayed on every backend serving the target end, with a report for each where
`migrate advance` reads it (accelplane/migration/parity_command.py). Exit 0 on a pass (or a recording),
1 when a backend fails, 2 on bad input (an end that cannot be reached names the option to give)."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path

from accelplane.cli.connection_args import add_connection_arguments, connections_of
from accelplane.cli.instant_arg import instant
from accelplane.cli.migration_args import clouds_of, migration_of
from accelplane.cli.stack_args import add_stack_arguments
from accelplane.errors import EXIT_FINDINGS, EXIT_OK, InputError
from accelplane.urls import url_problem

_URL_HINT = "expected an http:// or https:// URL of the model server, e.g. http://127.0.0.1:8000"


def _url(text: str) -> str:
    problem = url_problem(text, _URL_HINT, server_only=True)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def _backend_url(text: str) -> tuple[str, str]:
    """BACKEND=URL, or a bare URL for the target's only serving backend ("" until it is known)."""
    name, sep, url = text.partition("=")
    if not sep or "://" in name:
        return "", _url(text)
    return name, _url(url)


def register(actions: argparse._SubParsersAction) -> None:
    description = ("record the golden set on the source end (--record), or replay it on every backend serving the "
                   "target end and write a parity report for each")
    sub = actions.add_parser("parity", help=description, description=description)
    add_stack_arguments(sub)
    sub.add_argument("--record", action="store_true",
                     help="record the golden set on the source and pin its SHA-256 in the migration stack file")
    sub.add_argument("--requests", type=Path, metavar="FILE",
                     help="with --record: the requests (JSONL, {\"id\", \"request\"} per line); default: the golden "
                     "set's own")
    sub.add_argument("--source-url", type=_url, metavar="URL",
                     help="with --record: reach the source's main backend here (e.g. after kubectl port-forward) "
                     "instead of its Service through the source's cluster")
    sub.add_argument("--target-url", type=_backend_url, action="append", default=[], metavar="[BACKEND=]URL",
                     help="reach this target backend here instead of through the target's cluster; repeat per "
                     "serving backend (a bare URL: the only one)")
    sub.add_argument("--timeout", type=float, default=30.0, help="seconds per request (default: 30)")
    add_connection_arguments(sub)
    sub.add_argument("--format", choices=("text", "json", "markdown"), default="text",
                     help="report format (default: text; markdown for a pull-request comment)")
    sub.add_argument("--now", type=instant, help=argparse.SUPPRESS)  # the reports' time, for tests and reruns
    sub.set_defaults(handler=_run, migrate_command="parity")


def _target_urls(pairs: list[tuple[str, str]], serving: list[str]) -> dict[str, str]:
    urls: dict[str, str] = {}
    for name, url in pairs:
        if not name:
            if len(serving) != 1:
                raise InputError.single(f"the target has {len(serving)} serving backends ({', '.join(serving)}): give "
                                        "--target-url BACKEND=URL for each", file="accelplane migrate parity",
                                        field="--target-url")
            name = serving[0]
        urls[name] = url
    return urls


def _run(args: argparse.Namespace) -> int:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.migration.checks import end_service
    from accelplane.migration.parity_command import MigrationParityOptions, check, record
    from accelplane.rollout.parity import parity_report

    stack = migration_of(args)
    now = args.now or datetime.now(UTC)
    target = end_service(stack.target, stack.migration.target.service)
    assert target is not None  # the loader's checks
    serving = [backend.name for backend in target.serving_backends if backend.weight > 0]
    options = MigrationParityOptions(connections=connections_of(args, clouds_of(stack), "migrate parity"),
                                     source_url=args.source_url, target_urls=_target_urls(args.target_url, serving),
                                     requests_file=args.requests, timeout=args.timeout)
    if args.record:
        done = record(stack, options, now)
        print(f"recorded {done['requests']} requests on {done['stack']}'s {done['backend']!r} ({done['where']}) into "
              f"{done['golden']}; pinned sha256 {done['sha256']} in {done['stack_file']} (line "
              f"{', '.join(map(str, done['lines']))})")
        return EXIT_OK
    results = check(stack, options, now)
    if args.format == "json":
        print(json.dumps({"migration": stack.stack, "reports": results}, indent=2, sort_keys=True))
    else:
        print("\n".join(parity_report.FORMATS[args.format](result).rstrip("\n") for result in results))
    return EXIT_OK if all(result["verdict"] == "pass" for result in results) else EXIT_FINDINGS
