"""Managed Service for Prometheus' query API as a client sees it: Prometheus' HTTP API under
/v1/projects/P/location/global/prometheus, behind Google authentication. No such service runs here:
this front checks the bearer token as Google's would (the token the Google API fake's OAuth endpoint
hands out) and hands the query to a real Prometheus."""

from __future__ import annotations

import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOKEN = "ya29.fake-token"  # what the Google API fake's OAuth endpoint hands out


def query_path(project: str) -> str:
    return f"/v1/projects/{project}/location/global/prometheus"


@contextmanager
def managed_front(prometheus_url: str, project: str) -> Iterator[tuple[str, list[str]]]:
    """(the query API's URL, the Authorization headers seen); 401 without the token or off the path."""
    path = query_path(project)
    seen: list[str] = []

    class Front(BaseHTTPRequestHandler):
        disable_nagle_algorithm = True  # no ~40 ms delayed-ACK wait per answer on loopback

        def do_GET(self) -> None:
            seen.append(self.headers.get("Authorization", ""))
            if self.headers.get("Authorization") != f"Bearer {TOKEN}" or not self.path.startswith(path):
                self.send_response(401)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            with urllib.request.urlopen(prometheus_url + self.path[len(path):], timeout=10) as answer:
                body = answer.read()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Front)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{path}", seen
    finally:
        server.shutdown()
        server.server_close()
