"""A stand-in for the model servers' /metrics: per-backend request histograms in the Prometheus text
format, driven by the test.

Every series carries `service` and `backend` labels, as the cluster's PodMonitor relabelling gives
the real servers' series, plus the status-code label (`code`). The test sets a traffic profile per
(service, backend) — requests per second, latency, share of 5xx — and a ticker thread turns it into
counter increments ten times a second, so Prometheus scraping every second sees counters grow as
under real load. `observe` adds requests at once.
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections import defaultdict
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HISTOGRAM = "http_request_duration_seconds"
BUCKETS = (0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)  # le bounds; +Inf is implied


@dataclass
class Profile:
    per_second: float
    latency_seconds: float
    error_share: float = 0.0
    throttle_share: float = 0.0  # answered 429 at once (a server shedding load)


@dataclass
class _Series:
    buckets: list[float]
    total: float = 0.0
    count: float = 0.0


class Exporter:
    def __init__(self, histogram: str = HISTOGRAM, status_label: str = "code") -> None:
        self.histogram = histogram
        self.status_label = status_label
        self._lock = threading.Lock()
        self._series: dict[tuple[str, str, str], _Series] = defaultdict(lambda: _Series([0.0] * (len(BUCKETS) + 1)))
        self._profiles: dict[tuple[str, str], Profile] = {}
        self._carry: dict[tuple[str, str], float] = defaultdict(float)
        self._stop = threading.Event()
        exporter = self

        class Handler(BaseHTTPRequestHandler):
            disable_nagle_algorithm = True  # no ~40 ms delayed-ACK wait per answer on loopback

            def do_GET(self) -> None:
                body = exporter.render().encode()
                self.send_response(200 if self.path == "/metrics" else 404)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self._threads = [threading.Thread(target=self.server.serve_forever, daemon=True),
                         threading.Thread(target=self._tick, daemon=True)]
        for thread in self._threads:
            thread.start()

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def observe(self, service: str, backend: str, count: float, seconds: float, code: str = "200") -> None:
        with self._lock:
            series = self._series[(service, backend, code)]
            index = bisect_left(BUCKETS, seconds)  # first bucket whose le >= seconds
            for position in range(index, len(BUCKETS) + 1):
                series.buckets[position] += count
            series.total += count * seconds
            series.count += count

    def drive(self, service: str, backend: str, per_second: float, latency_seconds: float,
              error_share: float = 0.0, throttle_share: float = 0.0) -> None:
        """From now on, `per_second` requests a second at this latency, `error_share` of them 5xx and
        `throttle_share` answered 429 at once (1 ms)."""
        with self._lock:
            self._profiles[(service, backend)] = Profile(per_second, latency_seconds, error_share, throttle_share)

    def stop_driving(self, service: str) -> None:
        with self._lock:
            for key in [key for key in self._profiles if key[0] == service]:
                del self._profiles[key]

    def _tick(self) -> None:
        step = 0.1
        while not self._stop.wait(step):
            with self._lock:
                profiles = dict(self._profiles)
            for key, profile in profiles.items():
                with self._lock:
                    self._carry[key] += profile.per_second * step
                    whole = int(self._carry[key])
                    self._carry[key] -= whole
                if not whole:
                    continue
                errors = round(whole * profile.error_share)
                throttled = min(whole - errors, round(whole * profile.throttle_share))
                if whole - errors - throttled:
                    self.observe(*key, whole - errors - throttled, profile.latency_seconds)
                if errors:
                    self.observe(*key, errors, profile.latency_seconds, code="500")
                if throttled:
                    self.observe(*key, throttled, 0.001, code="429")

    def render(self) -> str:
        name = self.histogram
        lines = [f"# HELP {name} Request duration by service, backend and status code.", f"# TYPE {name} histogram"]
        with self._lock:
            for (service, backend, code), series in sorted(self._series.items()):
                labels = f'service="{service}",backend="{backend}",{self.status_label}="{code}"'
                for bound, value in zip((*map(str, BUCKETS), "+Inf"), series.buckets, strict=True):
                    lines.append(f'{name}_bucket{{{labels},le="{bound}"}} {value:g}')
                lines.append(f"{name}_sum{{{labels}}} {series.total:g}")
                lines.append(f"{name}_count{{{labels}}} {series.count:g}")
        return "\n".join(lines) + "\n"

    def close(self) -> None:
        self._stop.set()
        self.server.shutdown()
        self.server.server_close()


if __name__ == "__main__":  # a manual look: python -m tests.support.prometheus.exporter
    exporter = Exporter()
    exporter.drive("server", "l4", 10, 0.08)
    print(f"serving http://{exporter.target}/metrics")
    try:
        threading.Event().wait()  # until Ctrl-C
    except KeyboardInterrupt:
        exporter.close()
