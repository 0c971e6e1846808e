"""`accelplane schema [--output FILE]`: the JSON Schema of stack files (stdout by default)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from accelplane.errors import EXIT_OK, InputError
from accelplane.report.output import to_stdout, write_file


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("schema", help="JSON Schema of stacks/Pulumi.<stack>.yaml")
    parser.add_argument("--output", type=Path, help="write it to this file instead of stdout")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # Start-up time: the declaration model loads only for this command (every parser is built at start).
    from accelplane.config.json_schema import render

    text = render()
    if to_stdout(args.output):
        sys.stdout.write(text)
        return EXIT_OK
    try:
        args.output.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError.single(f"cannot write: {error.strerror or error}", file=str(args.output),
                                field="--output") from None
    write_file(text, args.output, "--output")
    return EXIT_OK
