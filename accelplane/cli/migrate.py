"""`accelplane migrate status|advance|abort --stack NAME`: move a migration stack's clients from its
source end to its target end, step by step, behind the weighted DNS records.

- status: the declared and live weights (from the DNS service's API), both ends' traffic and the gates
  (with both ends' Prometheus), what `advance` would do, and how fast clients follow an abort. Exit 0.
- advance: the next step's `weight` (and `since`) into the stack file when the live weights are the
  declared ones, parity vouches for the target past the first step, the step has baked and every gate
  holds on the target against the source (exit 0); weight 0 when a gate fails (exit 1); "holding" with
  the reason, nothing written (exit 0); live weights that differ, or no passing parity: refused, nothing
  written (exit 1).
- abort: weight 0, every client back on the source, in one DNS change with `--apply` (exit 0).
- parity: the migration's golden set recorded on the source (`--record`) or replayed on the target's
  serving backends, a report for each where advance reads it (`cli/migrate_parity.py`).
`--apply` also sets the live weights at once (one change of both records); `pulumi up` then finds
nothing to do. Exit 2 on bad input: a stack that is not a migration, a DNS or an end's Prometheus that
cannot be read (naming which), with nothing written. See docs/migration.md.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from accelplane.cli import migrate_artifacts, migrate_parity
from accelplane.cli.connection_args import add_connection_arguments, connections_of
from accelplane.cli.instant_arg import instant
from accelplane.cli.migration_args import clouds_of, migration_of
from accelplane.cli.stack_args import add_stack_arguments
from accelplane.errors import InputError

if TYPE_CHECKING:  # annotations only: the migration modules load when the command runs
    from accelplane.cloud_support import Connection
    from accelplane.migration.moves import Decision, Situation

_ACTIONS = {
    "status": "show the declared and live weights, both ends' traffic, the gates and what advance would do",
    "advance": "write the next step's weight when the live weights agree, parity passed, the step baked and the "
    "gates hold; weight 0 on a failed gate",
    "abort": "write weight 0: every client back on the source (with --apply, in one DNS change now)",
}


def _url(text: str) -> str:
    from accelplane.prometheus_api import prometheus_url_problem  # start-up time: this command only

    problem = prometheus_url_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("migrate", help="move a migration stack's clients to its target end, gated",
                                   description=__doc__.split("\n\n")[0] if __doc__ else None)
    actions = parser.add_subparsers(dest="migrate_action", required=True, parser_class=type(parser))
    for action, description in _ACTIONS.items():
        sub = actions.add_parser(action, help=description, description=description)
        add_stack_arguments(sub)
        for role in ("source", "target"):
            sub.add_argument(f"--{role}-prometheus-url", type=_url, metavar="URL",
                             help=f"the {role} end's Prometheus (its cluster's), for the gates")
        add_connection_arguments(sub)
        sub.add_argument("--format", choices=("text", "json", "markdown"), default="text",
                         help="output format (default: text; markdown for a pull-request comment)")
        if action != "status":
            sub.add_argument("--apply", action="store_true",
                             help="also set the live weights now, both records in one DNS change")
        # For tests and reruns: judge the bake time and the gate window as of this instant.
        sub.add_argument("--now", type=instant, help=argparse.SUPPRESS)
        sub.set_defaults(handler=_run, migrate_command=action)
    migrate_parity.register(actions)
    migrate_artifacts.register(actions)


def _run(args: argparse.Namespace) -> int:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.migration.facets import dns_services
    from accelplane.migration.moves import MoveAction, Situation, decide_abort, read_live, weights_for
    from accelplane.migration.rollback import rollback_figure

    stack = migration_of(args)
    dns = dns_services()[stack.migration.dns.service]
    connections = connections_of(args, clouds_of(stack), "migrate")
    connection = connections[dns.cloud]
    found = Situation(stack=stack, now=args.now or datetime.now(UTC),
                      declared=weights_for(stack, stack.migration.weight))
    read_live(found, connection)  # before any metric: weights moved by hand stop an advance first
    command = args.migrate_command
    decision = decide_abort(found) if command == "abort" else _judge(args, found, connections)
    written = applied = None
    moves = (MoveAction.start, MoveAction.advance, MoveAction.rollback, MoveAction.abort)
    if command != "status" and decision is not None and decision.action in moves:
        written, applied = _write(args, found, decision, connection)
    print(_render(args.format, found, decision, written, applied, rollback_figure(stack).sentence()))
    return decision.exit_code if decision is not None and command != "status" else 0


def _judge(args: argparse.Namespace, found: Situation, connections: dict[str, Connection]) -> Decision | None:
    """What advance decides (for status: would decide); None for a status that cannot say without metrics."""
    # Start-up time: as in _run.
    from accelplane.migration.moves import decide_advance, end_metrics, live_disagreement, read_traffic
    from accelplane.migration.parity_gate import target_parity

    stack, advancing = found.stack, args.migrate_command == "advance"
    if live_disagreement(found):
        return decide_advance(found, None)
    judging = 0 < found.weight < 100
    parity = target_parity(stack, connections) if judging else None
    found.parity_note = parity[1] if parity else None
    if judging and (parity is None or parity[0]):
        urls = {role: getattr(args, f"{role}_prometheus_url") for role in ("source", "target")}
        ends = end_metrics(stack, urls, connections)
        if ends is not None:
            read_traffic(found, ends)
        elif advancing:
            missing = [f"--{role}-prometheus-url" for role, url in urls.items() if not url]
            raise InputError.single(f"the gates read both ends' traffic: give {' and '.join(missing)}",
                                    file="accelplane migrate", field=missing[0])
        else:
            return None
    return decide_advance(found, parity, _artifacts_proven(found, connections))


def _artifacts_proven(found: Situation, connections: dict[str, Connection]) -> tuple[bool, str] | None:
    """Before the first step, whether the restore drill proves the declared copy; None when not asked."""
    # Start-up time: as in _run.
    from accelplane.migration.artifacts_drill import report_uri, vouches
    from accelplane.migration.parity_command import read_file

    stack = found.stack
    if stack.migration.artifacts is None or found.weight != 0:
        return None
    proven = vouches(stack, read_file(stack, report_uri(stack), connections))
    found.parity_note = (found.parity_note + "; " if found.parity_note else "") + proven[1]
    return proven


def _write(args: argparse.Namespace, found: Situation, decision: Decision,
           connection: Connection) -> tuple[str, str | None]:
    """The new weight into the stack file and, with --apply, into the DNS: the file's new text is made
    first (a file that cannot be edited stops everything), the DNS change goes next, and the file is
    written only once the DNS took the change, so a refused change leaves both as they were."""
    # Start-up time: as in _run.
    from accelplane.migration.facets import LiveDnsError, dns_services
    from accelplane.migration.moves import live_records, weights_for
    from accelplane.migration.stack_file import replace, rewritten

    stack = found.stack
    since = found.now.strftime("%Y-%m-%dT%H:%M:%SZ")
    text = rewritten(stack, decision.weight, since)
    applied = None
    if getattr(args, "apply", False):
        dns = dns_services()[stack.migration.dns.service]
        if dns.write_weights is None:
            raise InputError.single(f"{dns.title}'s live weights cannot be set yet: run `pulumi up --stack "
                                    f"{stack.stack}` after writing the weight without --apply", file=str(stack.path),
                                    field="--apply")
        try:
            change = dns.write_weights(live_records(stack, connection), weights_for(stack, decision.weight))
        except LiveDnsError as error:
            raise InputError.single(f"the DNS ({dns.title}) did not take the change, and the stack file is left as "
                                    f"it was: {error}", file=str(stack.path), line=stack.line_of("dns"),
                                    field="accelplane:migration.dns") from None
        applied = f"{dns.title} change {change}"
    replace(stack.path, text)
    written = f"{stack.path}: weight {stack.migration.weight} -> {decision.weight}, since {since}"
    return written, applied


def _render(form: str, found: Situation, decision: Decision | None, written: str | None, applied: str | None,
            rollback: str) -> str:
    data = _data(found, decision, written, applied, rollback)
    if form == "json":
        return json.dumps(data, indent=2, sort_keys=True)
    if form == "markdown":
        return _markdown(found, data)
    lines = [f"migration {found.stack.stack}: {found.stack.migration.hostname}"]
    for label, weight in found.declared.items():
        live = found.live.get(label) if found.live is not None else None
        lines.append(f"  {label}: declared {weight}%" + (f", live {live}%" if live is not None else ""))
    if found.live_note:
        lines.append(f"  live weights {found.live_note}")
    for role, traffic in found.traffic.items():
        p99 = f"{traffic.p99_seconds:.3f} s" if traffic.p99_seconds is not None else "-"
        rate = f"{traffic.error_rate:.2%}" if traffic.error_rate is not None else "-"
        lines.append(f"  {role}: {traffic.requests:.0f} requests, 5xx {rate}, p99 {p99}")
    if found.judgement is not None:
        lines += [f"  gate {gate.name}: {gate.state.value} ({gate.detail})" for gate in found.judgement.gates]
    if found.parity_note:
        lines.append(f"  parity: {found.parity_note}")
    if decision is not None:
        lines.append(f"{decision.action.value}: {decision.reason}")
    lines += [f"wrote {written}"] if written else []
    lines += [f"applied {applied}"] if applied else []
    lines.append(rollback)
    return "\n".join(lines)


def _markdown(found: Situation, data: dict[str, Any]) -> str:
    """A pull-request comment: the ends' weights and traffic in one table, the gates, the decision."""
    lines = [f"### Migration `{data['stack']}`: {data['hostname']}", "",
             "| end | stack | declared | live | requests | 5xx | p99 |", "|---|---|---:|---:|---:|---:|---:|"]
    for role, label in zip(("source", "target"), found.declared, strict=True):
        live = (data["live"] or {}).get(label)
        traffic = data["traffic"].get(role)
        shown = ["-", "-", "-"]
        if traffic:
            rate = f"{traffic['errors'] / traffic['requests']:.2%}" if traffic["requests"] else "-"
            p99 = f"{traffic['p99_seconds']:.3f} s" if traffic["p99_seconds"] is not None else "-"
            shown = [f"{traffic['requests']:.0f}", rate, p99]
        lines.append(f"| {role} | {label} | {data['declared'][label]}% | {'-' if live is None else f'{live}%'} | "
                     + " | ".join(shown) + " |")
    lines.append("")
    lines += [f"- gate `{gate['gate']}`: **{gate['state']}** ({gate['detail']})" for gate in data["gates"]]
    if data["parity"]:
        lines.append(f"- parity: {data['parity']}")
    if data["decision"]:
        lines += ["", f"**{data['decision']['action']}**: {data['decision']['reason']}"]
    lines += [f"- wrote {data['written']}"] if data["written"] else []
    lines += [f"- applied {data['applied']}"] if data["applied"] else []
    lines += ["", f"_{data['rollback']}_"]
    return "\n".join(lines)


def _data(found: Situation, decision: Decision | None, written: str | None, applied: str | None,
          rollback: str) -> dict[str, Any]:
    return {
        "stack": found.stack.stack, "hostname": found.stack.migration.hostname,
        "declared": found.declared, "live": found.live,
        "traffic": {role: {"requests": t.requests, "errors": t.errors, "throttled": t.throttled,
                           "p50_seconds": t.p50_seconds, "p99_seconds": t.p99_seconds}
                    for role, t in found.traffic.items()},
        "gates": [gate.to_json() for gate in found.judgement.gates] if found.judgement else [],
        "parity": found.parity_note,
        "decision": {"action": decision.action.value, "weight": decision.weight, "reason": decision.reason}
        if decision else None,
        "written": written, "applied": applied, "rollback": rollback,
    }
