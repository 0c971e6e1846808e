"""`accelplane matrix check|resolve|show`: the version matrix from the command line.

- `matrix check FILE [--strict] [--as-of YYYY-MM-DD] [--json]` judges one software stack given as a
  flat YAML/JSON mapping of the matrix keys (docs/design.md). Exit codes: 0 when the verdict is
  compatible, warn or conditional; 1 when it is incompatible (with `--strict`, conditional and
  "not in the matrix" findings count as incompatible); 2 on bad input - the message names the
  file, the line and the key.
- `matrix resolve --accelerator X [--framework torch|jax] [--os ...] [--python ...] [--as-of ...]`
  prints the newest profile the matrix proves fully compatible, as YAML ready to paste into a
  software profile. Exit 1 when nothing in the data fits, 2 on bad input.
- A cloud adds the subjects and sources only it has (its `accelplane.matrix_cli` facet,
  `accelplane.cloud_commands`; `--help` lists them). `matrix refresh pypi --json F` proposes release
  lists and torch wheel pins from PyPI JSON documents (`matrix_pypi`).
- `matrix show --accelerator X [--as-of ...]` prints what the matrix knows for that accelerator.

The date for lifecycle rules: `--as-of`, else the file's `as_of` key, else today.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from accelplane.cloud_commands import installed_matrix_commands
from accelplane.errors import EXIT_BAD_INPUT, EXIT_FINDINGS, EXIT_OK, InputError, Problem
from accelplane.matrix.frameworks import FRAMEWORKS
from accelplane.option_types import iso_date

if TYPE_CHECKING:
    from accelplane.matrix.findings import MatrixReport
    from accelplane.matrix.show import Table


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "matrix", help="version matrix: check a stack, resolve a profile, show facts"
    )
    commands = parser.add_subparsers(dest="matrix_command", required=True, parser_class=type(parser))

    check_parser = commands.add_parser("check", help="judge one software stack (flat YAML/JSON mapping)")
    check_parser.add_argument("file", type=Path, help="YAML or JSON file with the matrix keys")
    check_parser.add_argument(
        "--strict", action="store_true", help="conditional and unverified count as incompatible"
    )
    check_parser.add_argument(
        "--as-of", type=iso_date, help="date for lifecycle rules (default: file's as_of, else today)"
    )
    check_parser.add_argument("--json", action="store_true", help="print the JSON report")
    check_parser.set_defaults(handler=run_check)

    resolve_parser = commands.add_parser(
        "resolve", help="newest fully compatible profile for an accelerator, or the EKS AMI release for a driver")
    subject = resolve_parser.add_mutually_exclusive_group(required=True)
    subject.add_argument("--accelerator", help="e.g. nvidia-h100, amd-mi300x")
    for facet in installed_matrix_commands():  # the subjects only a cloud has
        facet.add_resolve_options(subject, resolve_parser)
    resolve_parser.add_argument("--framework", choices=FRAMEWORKS, help="default: torch (jax on TPU)")
    resolve_parser.add_argument("--os", help="e.g. ubuntu-22.04")
    resolve_parser.add_argument("--python", help="e.g. 3.11")
    resolve_parser.add_argument("--as-of", type=iso_date, help="date for lifecycle rules (default today)")
    resolve_parser.set_defaults(handler=run_resolve)

    refresh_parser = commands.add_parser("refresh", help="propose data changes from a vendor's published file")
    sources = refresh_parser.add_subparsers(dest="refresh_source", required=True, parser_class=type(parser))
    for facet in installed_matrix_commands():  # the sources only a cloud has
        facet.add_refresh_sources(sources)
    pypi = sources.add_parser("pypi", help="release lists and torch wheel pins from PyPI JSON API documents")
    pypi.add_argument("--json", type=Path, action="append", required=True,
                      help="a downloaded https://pypi.org/pypi/<project>/json or .../torch/<version>/json (repeat)")
    pypi.add_argument("--output", type=Path, help="write the proposed YAML here (default: only report)")
    pypi.set_defaults(handler=_refresh_pypi)

    show_parser = commands.add_parser("show", help="what the matrix knows for an accelerator, or a package's releases")
    what = show_parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--accelerator", help="e.g. nvidia-h100")
    what.add_argument("--package", help="a package whose releases the data lists, e.g. torchaudio")
    show_parser.add_argument("--as-of", type=iso_date, help="date for lifecycle columns (default today)")
    show_parser.set_defaults(handler=run_show)



# ---- check ---------------------------------------------------------------------------------------
def read_stack_file(path: Path) -> tuple[dict[str, Any], dict[str, int]]:
    """The mapping in `path` and the line of each key (1-based), from the YAML node tree.
    JSON is read by the same parser (YAML 1.1 accepts it); reading is bounded like every input."""
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.config.yaml_source import read_yaml

    origin = str(path)
    document = read_yaml(path)
    node = document.root
    if node is None:
        raise InputError.single(
            "empty file: expected a mapping of matrix keys (accelerator: ...)", file=origin
        )
    if not isinstance(node, yaml.MappingNode):
        raise InputError.single(
            "expected a flat mapping of matrix keys at the top level",
            file=origin,
            line=node.start_mark.line + 1,
        )
    lines: dict[str, int] = {}
    problems: list[Problem] = []
    for key_node, value_node in node.value:
        lines[str(key_node.value)] = key_node.start_mark.line + 1
        if isinstance(value_node, (yaml.MappingNode, yaml.SequenceNode)):
            problems.append(
                Problem(
                    origin,
                    value_node.start_mark.line + 1,
                    str(key_node.value),
                    "expected a single value (the matrix takes a flat mapping)",
                )
            )
    if problems:
        raise InputError(problems)
    return document.data, lines


def run_check(args: argparse.Namespace) -> int:
    stack, lines = read_stack_file(args.file)
    # Start-up time: the checks load only for this command (every parser is built at start).
    from accelplane.matrix import check

    report = check(stack, as_of=args.as_of, strict=args.strict, origin=str(args.file), lines=lines)
    if args.json:
        sys.stdout.write(report.to_json_text() + "\n")
    else:
        sys.stdout.write(render_report(report))
    return EXIT_FINDINGS if report.blocking else EXIT_OK


def render_report(report: MatrixReport) -> str:
    mode = ", strict" if report.strict else ""
    out = [f"{report.origin}: {report.verdict.value.upper()} (as of {report.as_of}{mode})"]
    if not report.findings:
        out.append("  no rule applies to this stack (declare more keys to check more)")
    width = max((len(f.rule) for f in report.findings), default=0)
    for finding in report.findings:
        head = f"  {finding.verdict.value:<12} {finding.rule:<{width}}  "
        body = textwrap.wrap(finding.message, width=max(40, 110 - len(head)), break_on_hyphens=False)
        out.append(head + body[0])
        out.extend(" " * len(head) + line for line in body[1:])
        out.append(" " * len(head) + f"source: {finding.source}")
    counts = {}
    for finding in report.findings:
        counts[finding.verdict.value] = counts.get(finding.verdict.value, 0) + 1
    out.append("  " + ", ".join(f"{n} {v}" for v, n in counts.items()) if counts else "")
    return "\n".join(out) + "\n"


# ---- resolve -------------------------------------------------------------------------------------
def _refresh_pypi(args: argparse.Namespace) -> int:
    # Start-up time: the PyPI document reader loads only for this command.
    from accelplane.cli.matrix_pypi import run_refresh_pypi

    return run_refresh_pypi(args)


def run_resolve(args: argparse.Namespace) -> int:
    for facet in installed_matrix_commands():
        answered = facet.resolve(args)
        if answered is not None:
            return answered
    # Start-up time: the checks load only for this command (every parser is built at start).
    from accelplane.matrix.resolver import NoProfileFoundError, resolve

    as_of = args.as_of or dt.date.today()
    try:
        profile = resolve(
            args.accelerator, framework=args.framework, os=args.os, python=args.python, as_of=as_of
        )
    except NoProfileFoundError as missing:
        print(f"error: {missing}", file=sys.stderr)
        return EXIT_FINDINGS
    except InputError as error:
        raise InputError(
            [
                Problem("matrix resolve", None, f"--{p.field}" if p.field else None, p.message)
                for p in error.problems
            ]
        ) from None
    wanted = " ".join(
        f"--{k} {v}"
        for k, v in (("framework", args.framework), ("os", args.os), ("python", args.python))
        if v
    )
    sys.stdout.write(f"# accelplane matrix resolve --accelerator {args.accelerator} {wanted}".rstrip() + "\n")
    sys.stdout.write(f"# newest profile the version matrix proves fully compatible (as of {as_of});\n")
    sys.stdout.write("# `accelplane matrix check` accepts this file as is.\n")
    for key, value in profile.items():
        sys.stdout.write(f"{key}: {_yaml_string(value)}\n")
    return EXIT_OK


def _yaml_string(value: str) -> str:
    return yaml.safe_dump(str(value), default_style='"').strip().removesuffix("\n...")


# ---- show ----------------------------------------------------------------------------------------
def run_show(args: argparse.Namespace) -> int:
    # Start-up time: the matrix data and tables load only for this command (every parser is built at start).
    from accelplane.matrix import accelerators
    from accelplane.matrix.show import package_names, package_releases, tables

    if args.package is not None:
        table = package_releases(args.package)
        if table is None:
            raise InputError.single(f"no release list for {args.package!r} (known: {', '.join(package_names())})",
                                    file="matrix show", field="--package")
        sys.stdout.write(render_table(table) + "\n")
        return EXIT_OK
    acc = accelerators().get(args.accelerator)
    if acc is None:
        raise InputError.single(
            f"unknown accelerator {args.accelerator!r} (known: {', '.join(sorted(accelerators()))})",
            file="matrix show",
            field="--accelerator",
        )
    for table in tables(acc, args.as_of):
        sys.stdout.write(render_table(table) + "\n")
    return EXIT_OK


def render_table(table: Table) -> str:
    widths = [len(h) for h in table.header]
    for row in table.rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]
    widths = [min(w, 70) for w in widths]

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(
            cell.ljust(w) if len(cell) <= w else cell for cell, w in zip(cells, widths, strict=True)
        ).rstrip()

    out = [table.title, "-" * min(len(table.title), 110), line(table.header)]
    out.extend(line(row) for row in table.rows)
    if not table.rows:
        out.append("(nothing in the matrix)")
    return "\n".join(out) + "\n"


__all__ = ["EXIT_BAD_INPUT", "read_stack_file", "register", "render_report"]
