"""What the working tree changes in a stack against a git revision, offline: resources created,
updated (with the changed inputs) and deleted by component, findings introduced and resolved, and
software versions per node pool with the matrix verdict of the new set.

With the stack's bundle lock in both revisions (`--lock`, default `bundle.lock.json` at the project
root), an "artifacts" section lists what the lock adds, removes and changes (docs/bundle.md).

`accelplane diff --stack NAME --base GIT_REF [--lock FILE] [--format table|json|markdown] [--output FILE]`; how
it works and why the base runs its own code: `accelplane.diff`.

Exit codes: 0 when the change introduces no unwaived mandatory finding, 1 when it does, 2 on bad
input (unknown revision, a stack that does not load, a revision whose preview fails).
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from accelplane.cli.stack_args import add_stack_arguments
from accelplane.errors import EXIT_FINDINGS, EXIT_OK, InputError
from accelplane.input_files import is_dir
from accelplane.option_types import iso_date
from accelplane.report.output import to_stdout, write_file

if TYPE_CHECKING:  # annotations only: the loaders load when the command runs
    from accelplane.config.project import Project
    from accelplane.migration.stack import MigrationStack


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "diff", help="what a change does to a stack: resources, findings, versions (offline, against a git revision)",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    add_stack_arguments(parser)
    parser.add_argument("--base", required=True, metavar="GIT_REF",
                        help="revision to compare the working tree with, e.g. origin/main, HEAD~1, a tag or a sha")
    parser.add_argument("--format", choices=("table", "json", "markdown"), default="table",
                        help="output format (default: table; markdown is a pull-request comment)")
    parser.add_argument("--output", type=Path, help="write the result here instead of standard output")
    parser.add_argument("--as-of", type=iso_date,
                        help="judge waiver expiry and lifecycle facts at this date (YYYY-MM-DD)")
    parser.add_argument("--policy-config", type=Path,
                        help="enforcement levels for both revisions, as for `pulumi preview --policy-pack-config`")
    parser.add_argument("--lock", type=Path, default=None,
                        help="the stack's bundle lock: artifacts added, removed and changed against the same file at "
                             "--base (default: bundle.lock.json at the project root, when it is this stack's)")
    parser.add_argument("--project-dir", type=Path, default=None,
                        help="the project (the directory holding Pulumi.yaml) inside a git repository "
                             "(default: found from the current directory, or the stack file's, upwards)")
    parser.set_defaults(handler=run)



def run(args: argparse.Namespace) -> int:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.config.loader import MigrationStackError, load_stack, load_stack_file
    from accelplane.config.project import find_project
    from accelplane.diff import diff_stack, render
    from accelplane.diff.plan_diff import plan_counts
    from accelplane.migration.loader import from_stack_file
    from accelplane.report.document import counted
    from accelplane.rules.judgement import Policy, load_policy_config

    if args.project_dir is not None and not is_dir(args.project_dir):
        raise InputError.single("not a directory", file=str(args.project_dir), field="--project-dir")
    start = args.project_dir or (args.stack_file.parent if args.stack_file else None)
    project = find_project(start, fallback=start is None)
    try:
        stack = (load_stack_file(args.stack_file, project=project.name) if args.stack_file
                 else load_stack(args.stack, project))
    except MigrationStackError as found:
        return _migration(args, from_stack_file(found), project)
    if args.lock is not None and not args.lock.is_file():
        raise InputError.single("no such lock file (`accelplane bundle lock` writes it)", file=str(args.lock),
                                field="--lock")
    config = load_policy_config(args.policy_config) if args.policy_config else None
    levels = Policy.of(config=config, config_source=str(args.policy_config or "<policy config>")).levels
    with _terminate_cleanly():
        diff = diff_stack(stack, args.base, project=project, as_of=args.as_of, levels=levels, lock=args.lock)
    text = render(diff, args.format)
    if not to_stdout(args.output):
        write_file(text, args.output, "--output")
        summary = diff.summary()
        print(f"{'PASSED' if diff.passed else 'FAILED'}: {plan_counts(summary)}, "
              f"{counted(summary['findings_introduced'], 'finding')} introduced "
              f"({summary['blocking']} blocking); wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return EXIT_OK if diff.passed else EXIT_FINDINGS


def _migration(args: argparse.Namespace, stack: MigrationStack, project: Project) -> int:
    """A migration stack's diff: its records, the weights before → after (one step or none) and the cost
    change (accelplane/diff/migration_diff.py)."""
    # Start-up time: only a migration's diff loads these.
    from accelplane.cli.cost import stack_estimate
    from accelplane.diff.migration_diff import diff_migration
    from accelplane.diff.migration_output import FORMATS

    with _terminate_cleanly():
        diff = diff_migration(stack, args.base, project=project, estimate_of=lambda end: stack_estimate(end)[0])
    text = FORMATS[args.format](diff)
    if not to_stdout(args.output):
        write_file(text, args.output, "--output")
        print(f"{'PASSED' if diff.passed else 'FAILED'}: migration {stack.stack}; wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return EXIT_OK if diff.passed else EXIT_FINDINGS


@contextlib.contextmanager
def _terminate_cleanly() -> Iterator[None]:
    """A cancelled CI job sends SIGTERM: unwind (stop the engine runs, remove the temporary copy) first."""

    def stop(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
