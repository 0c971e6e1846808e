"""The `accelplane` command line.

Each sub-command lives in its own module exposing `register(subparsers)`; the module adds its
parser and sets `handler=<function(args) -> int>`. Exit codes everywhere: 0 ok, 1 blocking
findings, 2 bad input or usage (message names file, line and field; no traceback).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import io
import logging
import os
import signal
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from accelplane.errors import EXIT_BAD_INPUT, InputError
from accelplane.tool import version

# Sub-command modules, in the order `--help` lists them.
_COMMAND_MODULES = (
    "accelplane.cli.preview",
    "accelplane.cli.schema",
    "accelplane.cli.matrix",
    "accelplane.cli.check",
    "accelplane.cli.rules",
    "accelplane.cli.nodes",
    "accelplane.cli.preflight",
    "accelplane.cli.capacity",
    "accelplane.cli.cost",
    "accelplane.cli.prices",
    "accelplane.cli.verify",
    "accelplane.cli.diff",
    "accelplane.cli.rollout",
    "accelplane.cli.migrate",
    "accelplane.cli.bundle",
)


class _ArgumentParser(argparse.ArgumentParser):
    """argparse exits 2 on usage errors already; keep its message but drop the usage dump noise."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        raise InputError.single(message, file=self.prog)

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> Any:
        # `--base=--` gives the option the value "--"; argparse before Python 3.12.3 strips it and
        # stores [] (python/cpython#109475), which then reaches code expecting a string (a
        # traceback). Keep the value, so the option's own type, choices and checks judge it.
        if action.option_strings and action.nargs in (None, argparse.OPTIONAL) and arg_strings == ["--"]:
            value = self._get_value(action, "--")
            self._check_value(action, value)
            return value
        return super()._get_values(action, arg_strings)


def build_parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(prog="accelplane", description="Accelerator platforms from one declaration per stack.")
    parser.add_argument("--version", action="version", version=f"accelplane {version()}")
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=_ArgumentParser)
    for module_name in _COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # A short-lived command: the cyclic collector would re-scan the provider SDKs' type objects
    # again and again (about a third of a preview's time); reference counting frees the rest.
    collecting = gc.isenabled()
    gc.disable()
    args: argparse.Namespace | None = None
    try:
        args = build_parser().parse_args(argv)
        return int(args.handler(args))
    except InputError as error:
        print(str(error), file=sys.stderr)
        if args is not None:
            _report_input_error(args, error)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    finally:
        if collecting:  # in-process callers (tests) get their collector back
            gc.enable()


def _report_input_error(args: argparse.Namespace, error: InputError) -> None:
    """With `--output FILE` in a report format, the file is written even on bad input: the error is its
    result (a CI step uploading it then shows why the run failed)."""
    output, fmt = getattr(args, "output", None), getattr(args, "format", None)
    if output is None or fmt is None:
        return
    # Start-up time: the report formats load only when a report is written.
    from accelplane.report import FORMATS, render
    from accelplane.report.input_error import input_error_report

    if fmt not in FORMATS:
        return
    # The error itself was printed; an unwritable --output is the user's to see there.
    with contextlib.suppress(OSError):
        output.write_text(render(input_error_report(error, f"accelplane {args.command}"), fmt), encoding="utf-8")


def run() -> NoReturn:
    """Console-script entry: `main()`, then leave without tearing down every imported module.

    After the provider SDKs are loaded, interpreter shutdown (freeing their type objects one by
    one) takes about a second, a third of a prod preview. All output is written and flushed by
    then, so the process ends at once.
    """
    # A reader that stops early (`accelplane preview --stack prod | head -2`) closes the pipe: end
    # quietly, as command-line tools do, not with a BrokenPipeError traceback.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    # A report may name a file whose name is not UTF-8 (lone surrogates after os.fsdecode): write
    # its bytes back as they were, as Python does under the C locale, not a UnicodeEncodeError.
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="surrogateescape")
    # The process ends with os._exit: the collector stays off to the end. Turned back on, its first
    # pass would scan every object the run made while it was off (0.2 s of a prod preview, measured
    # with gc.callbacks), for nothing.
    gc.disable()
    code = main()
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
