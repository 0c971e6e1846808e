"""moto's server on a free loopback port, as a command under test reaches AWS (`--endpoint-url`): the
real HTTP path of botocore, every service moto implements behind one URL."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def moto_server() -> Iterator[str]:
    """The server's URL while it runs."""
    from moto.server import ThreadedMotoServer  # start-up time: only the tests that start one load it

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()
