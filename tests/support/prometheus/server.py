"""A real Prometheus (Debian's `prometheus` package) on 127.0.0.1.

Started on a free port with a temporary configuration and TSDB directory (`backfilled` fills
that TSDB with recorded series first), scrape and evaluation intervals of one second, and
`honor_labels` so a target's `service` and `backend` labels are kept as the PodMonitor's
relabelling would set them. `find_binary()` is None when the package is not installed (the test
then fails naming it; tests/support/ansible/install_prereqs.sh installs it).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

CANDIDATES = ("/usr/bin/prometheus", "/usr/local/bin/prometheus")


def find_binary() -> str | None:
    found = shutil.which("prometheus")
    return found or next((path for path in CANDIDATES if os.access(path, os.X_OK)), None)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Prometheus:
    def __init__(self, binary: str, workdir: Path, targets: list[str]) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = workdir / "prometheus.yml"
        scrape = {"job_name": "model-servers", "scrape_interval": "1s", "scrape_timeout": "1s",
                  "honor_labels": True, "static_configs": [{"targets": targets}]}
        config.write_text(json.dumps({"global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
                                      "scrape_configs": [scrape]}))  # JSON is YAML
        self.log = workdir / "prometheus.log"
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [binary, f"--config.file={config}", f"--storage.tsdb.path={workdir / 'tsdb'}",
                 f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn"],
                stdout=log, stderr=subprocess.STDOUT, cwd=workdir,
            )
        self._wait_ready()

    def _wait_ready(self, seconds: float = 30) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"prometheus exited {self.process.returncode}: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/-/ready", timeout=1) as answer:
                    if answer.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.05)
        self.close()
        raise RuntimeError(f"prometheus not ready after {seconds}s: {self.log.read_text()[-2000:]}")

    def query(self, promql: str, at: float | None = None) -> list[dict[str, object]]:
        """An instant query, at `at` (Unix seconds) where given, else at the server's now."""
        parameters = {"query": promql} if at is None else {"query": promql, "time": f"{at:.3f}"}
        url = f"{self.url}/api/v1/query?" + urllib.parse.urlencode(parameters)
        with urllib.request.urlopen(url, timeout=5) as answer:
            return json.loads(answer.read())["data"]["result"]

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@contextlib.contextmanager
def backfilled(workdir: Path, openmetrics: str) -> Iterator[Prometheus]:
    """A Prometheus over recorded series: `openmetrics` (OpenMetrics text ending in `# EOF`) is
    backfilled with `promtool tsdb create-blocks-from openmetrics` into the TSDB the server then
    opens, with nothing to scrape. Queries name their instant (`time=`): no test waits for a scrape."""
    from tests.support.prerequisites import missing

    binary, promtool = find_binary(), shutil.which("promtool")
    if binary is None or promtool is None:
        missing("the prometheus package (prometheus, promtool) is not installed")
    recorded = workdir / "recorded.om"
    recorded.write_text(openmetrics)
    subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics", str(recorded), str(workdir / "tsdb")],
                   check=True, capture_output=True)
    server = Prometheus(binary, workdir, [])
    try:
        yield server
    finally:
        server.close()
