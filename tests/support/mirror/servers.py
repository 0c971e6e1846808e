"""Loopback servers: `python -m http.server` over a directory and Debian's `docker-registry`."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.prerequisites import missing


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{url}: the server exited: {log.read_text()[-2000:]}")
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{url} did not answer in 30 s: {log.read_text()[-2000:]}")


@contextmanager
def _served(argv: list[str], ready_url: str, log: Path, cwd: Path | None = None) -> Iterator[None]:
    """Run a server process with its output in `log` until it answers `ready_url`; stop it afterwards."""
    with log.open("wb") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, cwd=cwd)
    try:
        _wait(ready_url, process, log)
        yield
    finally:
        process.terminate()
        process.wait(timeout=10)


@contextmanager
def http_server(directory: Path) -> Iterator[str]:
    """`python -m http.server` serving `directory` on 127.0.0.1; yields its base URL."""
    port = free_port()
    argv = [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", "--directory", str(directory), str(port)]
    with _served(argv, f"http://127.0.0.1:{port}/", directory.parent / f"http-{port}.log"):
        yield f"http://127.0.0.1:{port}"


@contextmanager
def range_server(directory: Path, log: Path) -> Iterator[str]:
    """`range_server` (http.server with byte ranges) serving `directory` on 127.0.0.1; requests go to `log`."""
    port = free_port()
    argv = [sys.executable, "-m", "tests.support.mirror.range_server", str(directory), str(port), str(log)]
    root = Path(__file__).resolve().parents[3]
    with _served(argv, f"http://127.0.0.1:{port}/", directory.parent / f"range-{port}.log", cwd=root):
        yield f"http://127.0.0.1:{port}"


def require_registry_tools() -> None:
    for tool in ("docker-registry", "skopeo"):
        if shutil.which(tool) is None:
            missing(f"{tool} is not installed (run tests/support/ansible/install_prereqs.sh)")


@contextmanager
def registry(work: Path) -> Iterator[str]:
    """Debian's docker-registry (distribution) on 127.0.0.1 with its storage under `work`; yields host:port."""
    require_registry_tools()
    port = free_port()
    storage = work / "registry-storage"
    storage.mkdir(parents=True, exist_ok=True)
    config = work / "registry.yml"
    config.write_text(
        "version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n"
        f"    rootdirectory: {storage}\n  delete:\n    enabled: true\n"
        f"http:\n  addr: 127.0.0.1:{port}\n"
    )
    with _served(["docker-registry", "serve", str(config)], f"http://127.0.0.1:{port}/v2/", work / "registry.log"):
        yield f"127.0.0.1:{port}"


def skopeo(*argv: str) -> str:
    result = subprocess.run(["skopeo", *argv], capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise RuntimeError(f"skopeo {' '.join(argv)}: {result.stderr}")
    return result.stdout


def digest_line(text: str) -> str:
    match = re.search(r"sha256:[0-9a-f]{64}", text)
    assert match, text
    return match.group(0)
