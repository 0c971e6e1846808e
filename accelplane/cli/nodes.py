"""`accelplane nodes apply|validate|upgrade`: Ansible on the stack's bare-metal hosts.

Runs playbooks/site.yml, validate.yml or upgrade.yml through ansible-runner with the stack file as
the inventory, shows progress per host and a summary with each node's validation report. A host
the run stopped before (the batches after a failed canary, every host after a failed preflight) is
"not run". When the run's temporary directory stays (a failed run's Ansible output, validation
reports written without --report-dir; accelplane/nodes/runner.py), the line under the summary says
where; otherwise nothing of the run is left behind. Exit codes: 0 every host ok, 1 a host failed
(drift, failed validation, a rolled-back upgrade, unreachable), 2 bad input (stack, limit), before
anything runs.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from accelplane.cli.stack_args import add_stack_arguments, require_stack
from accelplane.errors import EXIT_FINDINGS, EXIT_OK, InputError
from accelplane.option_types import at_least

if TYPE_CHECKING:
    from accelplane.config.loader import StackConfig
    from accelplane.nodes.inventory import NodeInventory

_ACTIONS = {
    "apply": "install every component at the profile's versions, reboot if a driver changed, validate",
    "validate": "read-only audit: compare nodes with their profiles, exercise the devices; exit 1 on drift",
    "upgrade": "rolling upgrade to the stack's profile: canary, batches, rollback and stop on failure",
}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("nodes", help="Ansible on the stack's bare-metal accelerator hosts")
    actions = parser.add_subparsers(dest="nodes_action", required=True, parser_class=type(parser))
    for action, description in _ACTIONS.items():
        sub = actions.add_parser(action, help=description, description=description)
        add_stack_arguments(sub)
        sub.add_argument("--limit", help="Ansible host pattern: hosts or host groups to run on")
        sub.add_argument("--check", action="store_true", help="show what would change, change nothing")
        sub.add_argument("--skip-reboot", action="store_true", help="leave a needed reboot pending")
        sub.add_argument(
            "--report-dir",
            type=Path,
            help="where per-node validation reports go (default: the run's temporary directory, kept and named)",
        )
        sub.add_argument("--forks", type=int, help="hosts in parallel (default: ansible.cfg)")
        sub.add_argument(
            "--shards", type=at_least(1), default=1,
            help="split the hosts over N Ansible processes that run at once, one merged report; upgrade checks "
            "every host first and runs the canary alone before any shard (accelplane/nodes/shards.py)",
        )
        # A shard's process (accelplane/nodes/shards.py): hand the progress to the parent instead of a
        # summary; for upgrade's first phase, the checks only.
        sub.add_argument("--progress-json", type=Path, help=argparse.SUPPRESS)
        sub.add_argument("--fleet-check-only", action="store_true", help=argparse.SUPPRESS)
        sub.set_defaults(handler=_run, nodes_playbook=action)


def _run(args: argparse.Namespace) -> int:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.nodes.inventory import build_inventory
    from accelplane.nodes.progress import ProgressView
    from accelplane.nodes.runner import PLAYBOOKS, run_playbook, stdout_of

    stack = require_stack(args)
    inventory = build_inventory(stack)  # bad input exits 2 here, before Ansible starts
    if args.limit:
        check_limit(args.limit, inventory, stack.path)
    hosts = limited_hosts(args.limit, inventory) if args.limit else set(inventory.hosts)
    view = ProgressView(check=args.check)
    # The header repeats what was typed: a stack file is named as one (it said `--stack <its name>`).
    chosen = f"--stack-file {args.stack_file}" if getattr(args, "stack_file", None) else f"--stack {stack.stack}"
    print(
        f"accelplane nodes {args.nodes_playbook} {chosen}: {len(hosts)} "
        + ("host" if len(hosts) == 1 else "hosts") + (f" (--limit {args.limit})" if args.limit else "")
        + (" (check mode: nothing is changed)" if args.check else ""),
        flush=True,
    )
    if args.shards > 1:
        return _run_sharded(args, stack, inventory, hosts)
    extravars: dict[str, object] = {"node_reboot_skip": True} if args.skip_reboot else {}
    if args.fleet_check_only:
        from accelplane.nodes.shards import CHECK_ONLY  # start-up time: as above

        extravars[CHECK_ONLY] = True
    result = run_playbook(
        PLAYBOOKS[args.nodes_playbook],
        stack.path,
        limit=args.limit,
        check=args.check,
        extravars=extravars or None,
        report_dir=args.report_dir,
        forks=args.forks,
        view=view,
    )
    code = EXIT_OK if result.rc == 0 else EXIT_FINDINGS
    if args.progress_json:
        from accelplane.nodes.shards import progress_document  # start-up time: as above

        args.progress_json.write_text(json.dumps(progress_document(view, result.reports(), result.kept)))
        return code  # the sharded run's parent prints one summary for every shard
    print()
    print(view.summary(result.reports()))
    if result.kept:
        print(kept_line(result.kept))
    if result.rc != 0 and not any(h.failed or h.unreachable for h in view.hosts.values()):
        # Ansible stopped before any host result (a parse or configuration error): show its words.
        print("\n".join(stdout_of(result).strip().splitlines()[-15:]), file=sys.stderr)
    return code


def _run_sharded(args: argparse.Namespace, stack: StackConfig, inventory: NodeInventory, hosts: set[str]) -> int:
    from accelplane.nodes.shards import plan, run_sharded, shard_process  # start-up time: as _run

    ordered = [host for host in ansible_order(inventory) if host in hosts]
    assert stack.platform.bare_metal is not None  # build_inventory refused a stack without one
    phases = plan(args.nodes_playbook, ordered, args.shards, stack.platform.bare_metal.rollout.canary)
    print(f"in {', '.join(f'{len(runs)} {runs[0].phase} run(s)' for runs in phases)}, one phase after the other",
          flush=True)
    # One report directory for every shard, so the summary finds each host's report in one place.
    shared = args.report_dir or Path(tempfile.mkdtemp(prefix="accelplane-nodes-reports-"))
    work = Path(tempfile.mkdtemp(prefix="accelplane-nodes-shards-"))
    command = [sys.executable, "-m", "accelplane", "nodes", args.nodes_playbook, "--stack-file", str(stack.path),
               "--report-dir", str(shared), *(["--check"] if args.check else []),
               *(["--skip-reboot"] if args.skip_reboot else []),
               *(["--forks", str(args.forks)] if args.forks else [])]
    try:
        result = run_sharded(phases, shard_process(command, sys.stdout, args.check, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print()
    print(result.view(check=args.check).summary(result.reports()))
    print("runs (phase by phase; which hosts each ran):")
    print("\n".join(result.lines()))
    for outcome in result.outcomes:
        if outcome.kept:
            print(f"{outcome.run.label}: {kept_line(Path(outcome.kept))}")
    if args.report_dir is None:
        if any(shared.glob("*.json")):
            print(f"validation reports in {shared}; remove it when done")
        else:
            shared.rmdir()
    return EXIT_OK if result.rc == 0 else EXIT_FINDINGS


def ansible_order(inventory: NodeInventory) -> list[str]:
    """The hosts of `accelerator_nodes` in the order Ansible takes them (each child group's hosts, the
    groups in order): the first ones are upgrade.yml's canary."""
    from accelplane.nodes.inventory import ROOT_GROUP  # start-up time: as _run

    order: list[str] = []
    for child in inventory.groups.get(ROOT_GROUP, {}).get("children", []):
        order.extend(host for host in inventory.groups[child].get("hosts", []) if host not in order)
    return order


def kept_line(kept: Path) -> str:
    """Where the run's directory stays and what it holds (accelplane/nodes/runner.py settle_run_dir)."""
    held = []
    if (kept / "artifacts").is_dir():
        held.append("Ansible's output and events in artifacts/")
    if (kept / "reports").is_dir():
        held.append("validation reports in reports/")
    return f"kept {kept}: " + ", ".join(held) + "; remove it when done"


def check_limit(limit: str, inventory: NodeInventory, path: Path) -> None:
    """Refuse a --limit that names no host or group of the stack (Ansible would silently do nothing)."""
    names = set(inventory.hosts) | set(inventory.groups)
    names |= {name.replace("_", "-") for name in inventory.groups}
    for term in limit.replace(",", ":").split(":"):
        term = term.lstrip("!&")
        if not term or term.startswith("~") or term in ("all", "*"):
            continue
        if not any(fnmatch.fnmatchcase(name, term) for name in names):
            raise InputError.single(
                f"--limit {term!r} matches no host or group of the stack; hosts: " + ", ".join(sorted(inventory.hosts)),
                file=str(path),
                field="accelplane:platform.bare_metal",
            )


def _hosts_of(term: str, inventory: NodeInventory) -> set[str]:
    """Hosts one --limit term names: a host or group (glob), `~regex`, `all` or `*`."""
    if term in ("all", "*"):
        return set(inventory.hosts)
    if term.startswith("~"):
        pattern = re.compile(term[1:])
        return {host for host in inventory.hosts if pattern.search(host)}
    found = {host for host in inventory.hosts if fnmatch.fnmatchcase(host, term)}
    for name, group in inventory.groups.items():
        if fnmatch.fnmatchcase(name, term) or fnmatch.fnmatchcase(name.replace("_", "-"), term):
            found |= set(group.get("hosts", []))
            for child in group.get("children", []):
                found |= _hosts_of(child, inventory)
    return found


def limited_hosts(limit: str, inventory: NodeInventory) -> set[str]:
    """The hosts a --limit selects, as Ansible reads the pattern: the plain terms' union, then `&term`
    intersected, then `!term` removed."""
    terms = [term for term in limit.replace(",", ":").split(":") if term]
    plain = [t for t in terms if not t.startswith(("!", "&"))]
    selected = set().union(*(_hosts_of(t, inventory) for t in plain)) if plain else set(inventory.hosts)
    for term in (t for t in terms if t.startswith("&")):
        selected &= _hosts_of(term[1:], inventory)
    for term in (t for t in terms if t.startswith("!")):
        selected -= _hosts_of(term[1:], inventory)
    return selected
