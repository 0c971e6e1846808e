"""`python -m http.server` with byte ranges: a static file server that answers `Range: bytes=N-`
with 206 Partial Content (RFC 9110 §14), as nginx, Apache and S3 do and http.server does not, and
logs each request's Range header. Run as `python -m tests.support.mirror.range_server DIR PORT LOG`;
`bundle fetch`'s resume is tested against it."""

from __future__ import annotations

import os
import re
import shutil
import sys
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class RangeHandler(SimpleHTTPRequestHandler):
    log_path: Path

    def do_GET(self) -> None:
        with self.log_path.open("a") as log:
            log.write(f"{self.path} {self.headers.get('Range', '-')}\n")
        match = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range", ""))
        path = Path(self.translate_path(self.path))
        if match is None or not path.is_file():
            super().do_GET()
            return
        start, size = int(match.group(1)), path.stat().st_size
        if start >= size:
            self.send_error(HTTPStatus.REQUESTED_RANGE_NOT_SATISFIABLE)
            return
        self.send_response(HTTPStatus.PARTIAL_CONTENT)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
        self.send_header("Content-Length", str(size - start))
        self.end_headers()
        with path.open("rb") as source:
            source.seek(start)
            shutil.copyfileobj(source, self.wfile)


def main() -> None:
    directory, port, log = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
    handler = partial(RangeHandler, directory=os.fspath(directory))
    RangeHandler.log_path = log
    with ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        server.serve_forever()


if __name__ == "__main__":
    main()
