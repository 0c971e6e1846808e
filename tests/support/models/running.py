"""Model server processes on 127.0.0.1 (tests/support/models/server.py, onnxruntime on CPU), one per
model variant, for the parity tests of `rollout` and `migrate`."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

from tests.support.mirror.servers import _served, free_port

ROOT = Path(__file__).resolve().parents[3]


def model_servers(work: Path, build_model: Callable[[str, Path], Path],
                  variants: dict[str, str]) -> Iterator[dict[str, str]]:
    """One model server process per variant (name -> base URL), stopped afterwards."""
    urls: dict[str, str] = {}
    with ExitStack() as running:
        for name, variant in variants.items():
            model = build_model(variant, work / f"{name}.onnx")
            port = free_port()
            argv = [sys.executable, "-m", "tests.support.models.server", str(model), str(port)]
            running.enter_context(_served(argv, f"http://127.0.0.1:{port}/v2/health/ready", work / f"{name}.log",
                                          cwd=ROOT))
            urls[name] = f"http://127.0.0.1:{port}"
        yield urls
