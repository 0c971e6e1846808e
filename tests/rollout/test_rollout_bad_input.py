"""Bad input exits 2 with a message naming the file, line or option, no traceback, nothing written."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.rollout.conftest import stack_text, write_stack


@pytest.fixture
def stack(tmp_path: Path) -> Path:
    return write_stack(tmp_path)


def _refused(rollout: Any, path: Path, *argv: str, expect: str) -> str:
    before = path.read_bytes()
    result = rollout(*argv)
    assert result.code == 2, result.out + result.err
    assert expect in result.err, result.err
    assert path.read_bytes() == before
    return result.err


def test_an_unknown_service_names_the_declared_ones(stack: Path, rollout: Any) -> None:
    err = _refused(rollout, stack, "advance", "--stack-file", str(stack), "--service", "nope",
                   expect="no inference service 'nope' (declared: server)")
    assert f"{stack}:" in err and "--service" in err


def test_a_service_without_a_rollout_is_refused_at_its_line(tmp_path: Path, rollout: Any) -> None:
    text = stack_text()
    text = text[:text.index("          rollout:\n")] + text[text.index("      training_templates:"):]
    path = write_stack(tmp_path, text=text)
    _refused(rollout, path, "status", "--stack-file", str(path), "--service", "server", expect="declares no rollout")


def test_a_malformed_stack_file_names_its_line(tmp_path: Path, rollout: Any) -> None:
    path = write_stack(tmp_path, **{"            steps: [5, 25, 50, 100]\n": "            steps: [5, 25, 50, 100\n"})
    _refused(rollout, path, "abort", "--stack-file", str(path), "--service", "server", expect="malformed YAML")


def test_an_invalid_rollout_names_the_field(tmp_path: Path, rollout: Any) -> None:
    path = write_stack(tmp_path, **{"steps: [5, 25, 50, 100]": "steps: [5, 25, 50, 90]"})
    _refused(rollout, path, "abort", "--stack-file", str(path), "--service", "server",
             expect="rollout.steps: expected the last step to be 100")


def test_prometheus_metrics_need_a_url(stack: Path, rollout: Any) -> None:
    _refused(rollout, stack, "advance", "--stack-file", str(stack), "--service", "server",
             expect="--prometheus-url")


@pytest.mark.parametrize(("option", "value"), [
    ("--prometheus-url", "ftp://127.0.0.1:9090"), ("--prometheus-url", "http://"), ("--now", "yesterday"),
    ("--now", "2026-12-03T07:00:00+02:00"), ("--timeout", "0"), ("--endpoint-url", "not a url"),
])
def test_malformed_options_are_named(stack: Path, rollout: Any, option: str, value: str) -> None:
    _refused(rollout, stack, "advance", "--stack-file", str(stack), "--service", "server", f"{option}={value}",
             expect=option)


def test_something_that_is_not_prometheus_is_bad_input(stack: Path, rollout: Any, tmp_path: Path) -> None:
    # A plain file server over an empty folder: it answers 404 on /api/v1/query.
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        _refused(rollout, stack, "advance", "--stack-file", str(stack), "--service", "server",
                 "--prometheus-url", f"http://127.0.0.1:{server.server_address[1]}", expect="HTTP 404")
    finally:
        server.shutdown()
        server.server_close()


def test_start_refuses_a_canary_that_already_has_traffic(stack: Path, rollout: Any) -> None:
    _refused(rollout, stack, "advance", "--stack-file", str(stack), "--service", "server", "--start",
             expect="already takes 5%")


def test_apply_now_needs_an_exposed_service_on_aws(tmp_path: Path, rollout: Any) -> None:
    hidden = "          port: 8000\n          expose: false\n          backends:"
    path = write_stack(tmp_path, **{"          port: 8000\n          backends:": hidden})
    _refused(rollout, path, "abort", "--stack-file", str(path), "--service", "server", "--apply-now",
             expect="the service must be exposed")
