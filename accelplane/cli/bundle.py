"""`accelplane bundle lock|fetch|verify|export`: air-gapped platforms (docs/bundle.md).

- `lock --stack NAME [--output FILE]`: every artifact the stack fetches, hashed, with provenance;
  the only step that reads the network; refuses a floating reference.
- `fetch --lock FILE --into DIR`: a mirror the field's tools serve (apt repository with a signed
  Release, PEP 503 index, Helm chart repository, OCI image layout), resumable.
- `verify --lock FILE --mirror DIR`: offline; exit 1 naming each missing or altered artifact.
- `export --lock FILE --format F [--output FILE]`: requirements with hashes, skopeo sync YAML,
  file and image lists, CycloneDX SBOM.
- `diff --lock FILE --base GIT_REF | --base-lock FILE`: artifacts added, removed and changed.

Exit codes: 0 ok; 1 an artifact is missing, altered, or not where the lock says; 2 bad input.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from accelplane.cli.stack_args import add_stack_arguments, require_stack
from accelplane.errors import EXIT_FINDINGS, EXIT_OK, InputError
from accelplane.report.output import to_stdout

if TYPE_CHECKING:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.config.loader import StackConfig

EXPORT_FORMATS = ("requirements", "skopeo-sync", "files", "images", "cyclonedx")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("bundle", help="lock, fetch, verify and export an air-gapped artifact bundle")
    commands = parser.add_subparsers(dest="bundle_command", required=True, parser_class=type(parser))

    lock = commands.add_parser("lock", help="resolve and hash every artifact the stack fetches")
    add_stack_arguments(lock)
    lock.add_argument("--output", type=Path, default=Path("bundle.lock.json"), help="default: bundle.lock.json")
    lock.add_argument("--architecture", default="amd64", choices=("amd64", "arm64"), help="node CPU (default amd64)")
    lock.set_defaults(handler=run_lock)

    fetch = commands.add_parser("fetch", help="download the locked artifacts into a mirror directory")
    fetch.add_argument("--lock", type=Path, required=True, help="bundle.lock.json")
    fetch.add_argument("--into", type=Path, required=True, metavar="DIR", help="the mirror directory")
    fetch.add_argument("--sign-with", metavar="KEYID", help="gpg key that signs the apt Release (from GNUPGHOME)")
    fetch.set_defaults(handler=run_fetch)

    verify = commands.add_parser("verify", help="offline: every locked artifact is in the mirror, unaltered")
    verify.add_argument("--lock", type=Path, required=True, help="bundle.lock.json")
    verify.add_argument("--mirror", type=Path, required=True, metavar="DIR", help="the mirror directory")
    verify.set_defaults(handler=run_verify)

    export = commands.add_parser("export", help="the lock as requirements, skopeo sync, lists or a CycloneDX SBOM")
    export.add_argument("--lock", type=Path, required=True, help="bundle.lock.json")
    export.add_argument("--format", required=True, choices=EXPORT_FORMATS)
    export.add_argument("--output", type=Path, help="write here instead of stdout")
    export.add_argument("--registry", help="skopeo-sync: the mirror registry the images go to (host[:port])")
    export.set_defaults(handler=run_export)

    diff = commands.add_parser("diff", help="artifacts added, removed and changed between a base lock and this one")
    diff.add_argument("--lock", type=Path, required=True, help="the head lock (bundle.lock.json)")
    base = diff.add_mutually_exclusive_group(required=True)
    base.add_argument("--base", metavar="GIT_REF", help="the same lock file as it is in this git revision")
    base.add_argument("--base-lock", type=Path, metavar="FILE", help="a base lock file")
    diff.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    diff.add_argument("--output", type=Path, help="write here instead of stdout")
    diff.set_defaults(handler=run_diff)


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_lock(args: argparse.Namespace) -> int:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.bundle.locker import lock_stack
    from accelplane.bundle.lockfile import ArtifactError

    stack = require_stack(args)
    to_standard_output = to_stdout(args.output)
    if not to_standard_output and args.output.exists() and args.output.is_dir():
        raise InputError.single("is a directory", file=str(args.output), field="--output")
    try:
        lock = lock_stack(stack, architecture=args.architecture, progress=_say)
    except ArtifactError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_FINDINGS
    except InputError as error:
        # A problem raised without a file is about the stack: a field of it, or a source it declares.
        raise InputError(
            [
                replace(p, file=str(stack.path), line=p.line or _line(stack, p.field)) if p.file is None else p
                for p in error.problems
            ]
        ) from None
    if to_standard_output:
        sys.stdout.write(lock.text())
    else:
        try:
            lock.write(args.output)
        except OSError as error:
            raise InputError.single(f"cannot write: {error}", file=str(args.output), field="--output") from None
    for item in lock.outside:
        _say(f"outside the declared sources: {item['name']} ({item['needed_by']}): {item['reason']}")
    # With the lock on standard output, the summary goes to standard error.
    print(f"locked {len(lock.artifacts)} artifacts of stack {stack.stack} into "
          f"{'standard output' if to_standard_output else args.output}",
          file=sys.stderr if to_standard_output else sys.stdout)
    return EXIT_OK


def _line(stack: StackConfig, field: str | None) -> int | None:
    """Line of a declaration field path such as `bare_metal.repositories[0].uri`."""
    if not field:
        return None
    parts: list[str | int] = []
    for name, index in re.findall(r"([^.\[\]]+)|\[(\d+)\]", field):
        parts.append(int(index) if index else name)
    return stack.line_of(*parts)


def run_verify(args: argparse.Namespace) -> int:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.bundle.lockfile import load_lock
    from accelplane.bundle.verify import verify_mirror

    lock = load_lock(args.lock)
    if not args.mirror.is_dir():
        raise InputError.single("is not a directory", file=str(args.mirror), field="--mirror")
    problems = verify_mirror(lock, args.mirror)
    for problem in problems:
        print(problem)
    checked = sum(1 for a in lock.artifacts if a.path is not None)
    print(f"{checked - len(problems)} of {checked} artifacts present and intact in {args.mirror}")
    return EXIT_FINDINGS if problems else EXIT_OK


def run_fetch(args: argparse.Namespace) -> int:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.bundle.lockfile import ArtifactError, load_lock
    from accelplane.bundle.mirror import fetch_mirror

    lock = load_lock(args.lock)
    if args.into.exists() and not args.into.is_dir():
        raise InputError.single("is not a directory", file=str(args.into), field="--into")
    try:
        fetch_mirror(lock, args.into, sign_with=args.sign_with, progress=_say)
    except ArtifactError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_FINDINGS
    print(f"fetched {len(lock.artifacts)} artifacts into {args.into}")
    return EXIT_OK


def run_export(args: argparse.Namespace) -> int:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.bundle.export import render
    from accelplane.bundle.lockfile import load_lock
    from accelplane.report.output import emit

    lock = load_lock(args.lock)
    emit(render(lock, args.format, registry=args.registry), args.output, f"exported {args.format}")
    return EXIT_OK


def run_diff(args: argparse.Namespace) -> int:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.bundle.lockfile import load_lock
    from accelplane.diff.bundle_lock import base_lock_from_git, diff_locks, render
    from accelplane.report.output import emit

    head = load_lock(args.lock)
    if args.base_lock is not None:
        base, base_name = load_lock(args.base_lock), str(args.base_lock)
    else:
        base, base_name = base_lock_from_git(args.lock, args.base), f"{args.base}:{args.lock.name}"
    emit(render(diff_locks(base, head), args.format, base=base_name, head=str(args.lock)), args.output,
         f"compared {base_name} with {args.lock}")
    return EXIT_OK
