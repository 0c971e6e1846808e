"""`accelplane rollout status|advance|abort --stack NAME --service NAME`: move an inference service's
traffic from its baseline backend to its canary step by step, gated on live metrics.

- status: per backend the declared (and, on AWS, live) weight, requests, 5xx rate and p50/p99 over
  the gate window, each gate, and what `advance` would do. Exit 0.
- advance: the next step's weights (and `since`) into the stack file when every gate holds and the
  step has baked (exit 0); the rollback when a gate fails (exit 1); "holding" with the reason and
  nothing written on too little traffic or while baking (exit 0); "complete" at 100% (exit 0).
- abort: every backend but the baseline to 0 (exit 0).
Exit 2 on bad input (unknown service, no rollout, a stack file that does not validate, a metrics
endpoint that cannot be read), with nothing written. `--apply-now` also sets the live ALB weights
(ModifyListener/ModifyRule); `pulumi up` must follow. See docs/rollout.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from accelplane.cli.connection_args import add_connection_arguments, connection_of
from accelplane.cli.instant_arg import instant
from accelplane.cli.stack_args import add_stack_arguments, require_stack
from accelplane.errors import EXIT_FINDINGS, EXIT_OK
from accelplane.urls import url_problem

if TYPE_CHECKING:  # annotations only: the rollout modules load when the command runs
    from accelplane.config.loader import StackConfig
    from accelplane.rollout.rollout_commands import Options

_ACTIONS = {
    "status": "show each backend's weight and traffic, the gates and what advance would do",
    "advance": "write the next step's weights when the gates hold and the step has baked; roll back on a failed gate",
    "abort": "write weight 0 for every backend but the baseline",
    "parity": "replay the golden set against the canary backend and compare outputs and speed with the baseline's "
    "(--record: record the golden set on the baseline)",
}


def _url(text: str) -> str:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.prometheus_api import prometheus_url_problem

    problem = prometheus_url_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def _backend_url(text: str) -> str:
    problem = url_problem(text, "expected an http:// or https:// URL of the model server, e.g. http://127.0.0.1:8000",
                          server_only=True)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, e.g. 10 or 2.5 (got {text!r})") from None
    if not 0 < value <= 600:
        raise argparse.ArgumentTypeError(f"expected more than 0 and at most 600 seconds (got {text!r})")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("rollout",
                                   help="move an inference service's traffic to its canary, gated on metrics",
                                   description=__doc__.split("\n\n")[0] if __doc__ else None)
    actions = parser.add_subparsers(dest="rollout_action", required=True, parser_class=type(parser))
    for action, description in _ACTIONS.items():
        sub = actions.add_parser(action, help=description, description=description)
        add_stack_arguments(sub)
        sub.add_argument("--service", required=True, metavar="NAME", help="the inference service (kubernetes."
                         "inference_services[].name)")
        sub.add_argument("--prometheus-url", type=_url, metavar="URL",
                         default=os.environ.get("ACCELPLANE_PROMETHEUS_URL") or None,
                         help="Prometheus' base URL, for rollouts reading prometheus metrics "
                         "(default: $ACCELPLANE_PROMETHEUS_URL)")
        add_connection_arguments(sub)
        sub.add_argument("--context", metavar="NAME", help="GKE: reach the cluster through this kubeconfig context "
                         "(a token or client certificate; default: the cluster's endpoint with Google credentials)")
        sub.add_argument("--timeout", type=_seconds, default=10.0, help="seconds per Prometheus query (default 10)")
        # For tests and reruns: judge the bake time and the window as of this instant.
        sub.add_argument("--now", type=instant, help=argparse.SUPPRESS)
        if action == "parity":
            _parity_arguments(sub)
        elif action == "status":
            sub.add_argument("--format", choices=("table", "json", "markdown"), default="table",
                             help="output format (default: table; markdown for a PR comment)")
            sub.add_argument("--output", type=Path, help="write the report here instead of standard output")
            sub.add_argument("--no-live", action="store_true",
                             help="read nothing live (no weights, no metrics): the declared weights, the next step, "
                             "the gates' definitions and the decision history, offline")
        elif action in ("advance", "abort"):
            sub.add_argument("--format", choices=("text", "json"), default="text",
                             help="output format (default: text; json: one object with the decision, weights, "
                             "gates, what was written and applied)")
            sub.add_argument("--apply-now", action="store_true",
                             help="also set the live weights now (AWS: the ALB listener/rule; GKE: the "
                             "HTTPRoute's backendRefs); `pulumi up` must follow")
        if action == "advance":
            sub.add_argument("--start", action="store_true",
                             help="start a rollout whose canary takes 0%%: give it the first step without judging")
        sub.set_defaults(handler=_run, rollout_command=action)


def _run(args: argparse.Namespace) -> int:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.rollout.rollout_commands import (
        Action,
        Options,
        advance_situation,
        apply_live,
        changes,
        decide_abort,
        decide_advance,
        prepare,
        situation,
    )

    stack = require_stack(args)
    options = Options(
        service=args.service, now=args.now or datetime.now(UTC), prometheus_url=args.prometheus_url,
        connection=connection_of(args, stack.platform.cloud, "rollout"), kube_context=args.context,
        timeout=args.timeout,
        live=not getattr(args, "no_live", False), start=getattr(args, "start", False),
    )
    command = args.rollout_command
    if command == "status":
        return _status(args, stack, options)
    if command == "parity":
        return _parity(args, stack, options)
    said = _Outcome(as_json=getattr(args, "format", "text") == "json", command=command, stack=stack.stack,
                    service=args.service)
    if command == "abort":
        found = situation(stack, options, metrics=False, live=False)
        decision = decide_abort(found)
    else:
        found, refusal = advance_situation(stack, options)
        if refusal is not None:
            print(f"refused: {refusal}; nothing written", file=sys.stderr)
            said.record(action="refused", reason=refusal, declared=found.declared, live=found.live, written=False)
            return said.done(EXIT_FINDINGS)
        decision = decide_advance(found, start=options.start)
    found.decision = decision
    here = found.position
    said.line(f"accelplane rollout {command}: stack {stack.stack}, service {found.service.name!r} "
              f"(baseline {here.baseline!r}, canary {here.canary!r} at {here.canary_weight}%)")
    said.record(action=decision.action.value, reason=decision.reason, baseline=here.baseline, canary=here.canary,
                declared=found.declared, live=found.live, written=False, applied_live=None)
    if found.judgement is not None:
        said.record(gates=[{"name": g.name, "state": g.state.value, "observed": g.observed, "detail": g.detail}
                           for g in found.judgement.gates])
        for gate in found.judgement.gates:
            said.line(f"  {gate.state.value:<10}  {gate.name:<15}  {gate.detail}")
    if decision.action in (Action.hold, Action.complete):
        word = "holding" if decision.action is Action.hold else "complete"
        said.line(f"{word}: {decision.reason}; nothing written")
        return said.done(EXIT_OK)
    assert decision.weights is not None
    pending = prepare(found, decision)  # checked before anything changes; exit 2 if it would not validate
    applied = apply_live(found, options, decision.weights) if args.apply_now else None
    moved = changes(found.declared, decision.weights)
    said.record(weights=decision.weights, changes=moved)
    if pending is None:
        said.line(f"{decision.action.value}: the stack file already declares these weights ({moved}); nothing written")
    else:
        pending.commit()
        lines = ", ".join(map(str, pending.changed_lines))
        since = options.now.strftime('%Y-%m-%dT%H:%M:%SZ')
        said.record(written=True, file=str(stack.path), lines=list(pending.changed_lines), since=since)
        said.line(f"{'ROLLED BACK' if decision.action is Action.rollback else decision.action.value}: "
                  f"{decision.reason}")
        said.line(f"wrote {stack.path} (lines {lines}): {moved}; since {since}")
    if applied is not None:
        said.record(applied_live=applied)
        said.line(f"applied live: {applied} now forwards {decision.weights}")
        print(f"warning: the live weights now differ from the deployed Pulumi state: run `pulumi up` for stack "
              f"{stack.stack} (until then `accelplane verify` reports the rollout's weights as drift)", file=sys.stderr)
    return said.done(EXIT_FINDINGS if decision.action is Action.rollback else EXIT_OK)


def _parity_arguments(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--record", action="store_true",
                     help="record the golden set on the baseline backend and pin its SHA-256 in the stack file")
    sub.add_argument("--requests", type=Path, metavar="FILE",
                     help="with --record: the requests (JSONL, {\"id\", \"request\"} per line); default: the "
                     "golden set's own")
    sub.add_argument("--baseline-url", type=_backend_url, metavar="URL",
                     help="reach the baseline here (e.g. after kubectl port-forward) instead of its Service "
                     "through the Kubernetes API")
    sub.add_argument("--canary-url", type=_backend_url, metavar="URL", help="reach the canary here, likewise")
    sub.add_argument("--format", choices=("text", "json", "markdown"), default="text",
                     help="report format (default: text; markdown for a PR comment)")
    sub.add_argument("--output", type=Path, help="write the report here instead of standard output")


def _parity(args: argparse.Namespace, stack: StackConfig, options: Options) -> int:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.report.output import emit
    from accelplane.rollout.parity import parity_report
    from accelplane.rollout.parity.parity_command import ParityOptions, check, record
    from accelplane.rollout.rollout_commands import find_service

    service = find_service(stack, args.service)
    settings = ParityOptions(baseline_url=args.baseline_url, canary_url=args.canary_url,
                             requests_file=args.requests, timeout=max(args.timeout, 30.0),
                             connection=options.connection, kube_context=options.kube_context)
    if args.record:
        recorded = record(stack, service, settings, options.now)
        print(f"recorded {recorded['requests']} requests on {recorded['backend']!r} ({recorded['where']}) into "
              f"{recorded['golden']}; pinned sha256 {recorded['sha256']} in {recorded['stack_file']} (line "
              f"{', '.join(map(str, recorded['lines']))})")
        return EXIT_OK
    result = check(stack, service, settings, options.now)
    emit(parity_report.FORMATS[args.format](result), args.output, f"parity {result['verdict']}: {result['uri']}")
    return EXIT_OK if result["verdict"] == "pass" else EXIT_FINDINGS


def _status(args: argparse.Namespace, stack: StackConfig, options: Options) -> int:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.report.output import emit
    from accelplane.rollout import status_output
    from accelplane.rollout.rollout_commands import (
        Action,
        Decision,
        decide_advance,
        decide_offline,
        parity_refusal,
        situation,
    )

    # --no-live: nothing read from the cloud or Prometheus; the declaration alone, so it works offline.
    found = situation(stack, options, metrics=options.live, live=options.live)
    refusal = parity_refusal(found, options) if options.live else None
    if refusal is not None:
        found.decision = Decision(Action.hold, f"advance would refuse: {refusal}")
    else:
        found.decision = decide_advance(found, start=False) if options.live else decide_offline(found)
    if not options.live:
        found.live_note = "--no-live"
    decision = f"{found.decision.action.value}: {found.decision.reason}"
    emit(status_output.FORMATS[args.format](found), args.output, decision)
    return EXIT_OK


class _Outcome:
    """What advance and abort say: lines for a terminal, or one JSON object (`--format json`) with
    the same facts, printed once the command has decided (and written) everything."""

    def __init__(self, *, as_json: bool, **facts: object) -> None:
        self.as_json = as_json
        self.facts: dict[str, object] = dict(facts)

    def line(self, text: str) -> None:
        if not self.as_json:
            print(text)

    def record(self, **facts: object) -> None:
        self.facts.update(facts)

    def done(self, code: int) -> int:
        if self.as_json:
            print(json.dumps({**self.facts, "exit_code": code}, indent=2))
        return code
