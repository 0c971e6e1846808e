"""`accelplane` run inside the test's own process, answered as `subprocess.run` answers: exit code, stdout and
stderr as text.

A fresh `python -m accelplane` costs 2 to 4 CPU-seconds before it does anything (importing the providers'
SDKs); tests that look at what a command says and exits with run it here, where those modules are loaded
once. The environment and working directory a test gives are set for the call and restored after it.
Tests of the process itself (start-up, signals, stdout's encoding, a missing credential in a clean
environment) keep spawning it.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path


def run_accelplane(argv: Sequence[str | Path], *, env: Mapping[str, str] | None = None,
                   cwd: Path | str | None = None) -> subprocess.CompletedProcess[str]:
    from accelplane.cli import main

    args = [str(arg) for arg in argv]
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    out, err = io.StringIO(), io.StringIO()
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(args)
            except SystemExit as exit_:  # argparse's own exits (--help, a usage error)
                code = exit_.code if isinstance(exit_.code, int) else 2
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(["accelplane", *args], code, out.getvalue(), err.getvalue())
