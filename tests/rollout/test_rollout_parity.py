"""`accelplane rollout parity` against real model servers on 127.0.0.1: onnxruntime (CPU) serving a
fixed-seed classifier built with `onnx` over the Open Inference Protocol (tests/support/models).
The baseline is the float32 model; the canaries are its faithful float16 conversion (must pass),
a broken conversion (must fail) and the faithful one answering 300 ms later per request on the
command's clock (must fail the latency ratio, whatever this machine's speed: the baseline answers in
a millisecond or two; the clock runs ahead instead of the test waiting).

The test stack's performance bounds are far wider than the defaults (p99 ratio 15, throughput
ratio 0.1): with 16 requests per figure the p99 is the slowest request, and two loaded cores
(the test suite runs beside other work) put single spikes of several times the median into it.
The slow canary is over a hundred times the baseline's latency, far past them."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from accelplane.rollout.parity import performance, protocol
from tests.rollout.conftest import stack_text
from tests.support.models.classifier import requests

PARITY = """            parity:
              protocol: open-inference
              model: classifier
              golden: {uri: parity/golden.jsonl}
              compare: {kind: classification}
              performance: {batch_sizes: [1, 8], concurrency: 2, requests: 16, max_latency_ratio: 15,
                            min_throughput_ratio: 0.1, timeout: 60s}
              reports: parity/reports
"""
ANCHOR = "            prometheus: {histogram: http_request_duration_seconds, status_label: code}\n"


@pytest.fixture
def parity_stack(tmp_path: Path) -> Path:
    path = tmp_path / "Pulumi.canary.yaml"
    path.write_text(stack_text("server").replace(ANCHOR, ANCHOR + PARITY))
    (tmp_path / "requests.jsonl").write_text("\n".join(json.dumps(r) for r in requests(48)) + "\n")
    return path


def _parity(rollout: Any, path: Path, *extra: str) -> Any:
    return rollout("parity", "--stack-file", path, "--service", "server", "--now", "2026-12-05T10:00:00Z", *extra)


def _record(rollout: Any, path: Path, servers: dict[str, str]) -> Any:
    return _parity(rollout, path, "--record", "--requests", path.parent / "requests.jsonl",
                   "--baseline-url", servers["baseline"])


def _pinned(path: Path) -> str | None:
    service = yaml.safe_load(path.read_text())["config"]["accelplane:platform"]["kubernetes"]["inference_services"][0]
    return service["rollout"]["parity"]["golden"].get("sha256")


def test_record_writes_the_golden_set_and_pins_its_sha256(parity_stack, servers, rollout):
    before = parity_stack.read_text()
    result = _record(rollout, parity_stack, servers)
    assert result.code == 0, result.err
    golden = (parity_stack.parent / "parity" / "golden.jsonl").read_bytes()
    import hashlib

    assert _pinned(parity_stack) == hashlib.sha256(golden).hexdigest()
    header = json.loads(golden.splitlines()[0])
    assert header["recorded"]["backend"] == "l4" and header["performance"]["batch"]["1"]["count"] == 16
    assert len(golden.splitlines()) == 49
    after = parity_stack.read_text()  # one line added, nothing else changed
    assert [line for line in after.splitlines() if line not in before.splitlines()] == [
        f'              golden: {{uri: parity/golden.jsonl, sha256: "{_pinned(parity_stack)}"}}']


def test_the_faithful_fp16_canary_passes(parity_stack, servers, rollout):
    assert _record(rollout, parity_stack, servers).code == 0
    result = _parity(rollout, parity_stack, "--canary-url", servers["faithful"], "--format", "json")
    assert result.code == 0, result.out + result.err
    report = json.loads(result.out)
    assert report["verdict"] == "pass" and report["requests"] == 48
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["top-1 agreement"]["observed"] == 1.0
    stored = parity_stack.parent / report["uri"]
    assert json.loads(stored.read_text())["verdict"] == "pass"


def test_the_broken_canary_fails_naming_the_requests_that_differ(parity_stack, servers, rollout):
    assert _record(rollout, parity_stack, servers).code == 0
    result = _parity(rollout, parity_stack, "--canary-url", servers["broken"])
    assert result.code == 1, result.err
    assert "FAILS   top-1 agreement" in result.out and "requests that differ most:" in result.out
    assert "verdict: FAIL" in result.out


class _SlowerOnTheToolsClock:
    """The parity command's clock (rollout.parity.performance.clock) runs 300 ms ahead for every answer
    that comes from `url`: a canary 300 ms slower per request, measured without a test waiting for it."""

    def __init__(self, url: str, delay: float = 0.3) -> None:
        self.url, self.delay, self.ahead = url, delay, 0.0
        self.lock = threading.Lock()
        self.real_post = protocol.UrlTransport.post

    def now(self) -> float:
        with self.lock:
            return time.perf_counter() + self.ahead

    def transport_post(self) -> Any:
        """UrlTransport.post, then the clock runs ahead when the answer came from `url`."""
        def post(transport: protocol.UrlTransport, path: str, body: dict[str, Any], timeout: float) -> Any:
            answer = self.real_post(transport, path, body, timeout)
            if transport.base == self.url:
                with self.lock:
                    self.ahead += self.delay
            return answer

        return post


def test_the_slow_canary_fails_the_latency_ratio(parity_stack, servers, rollout, monkeypatch):
    assert _record(rollout, parity_stack, servers).code == 0
    slow = _SlowerOnTheToolsClock(servers["faithful"])
    monkeypatch.setattr(performance, "clock", slow.now)
    monkeypatch.setattr(protocol.UrlTransport, "post", slow.transport_post())
    result = _parity(rollout, parity_stack, "--canary-url", servers["faithful"], "--format", "json")
    assert result.code == 1
    report = json.loads(result.out)
    failed = {c["name"] for c in report["checks"] if not c["passed"]}
    assert "p99 latency at batch 1 / baseline's" in failed
    assert "top-1 agreement" not in failed  # it answers the same, only slower


def test_a_changed_golden_set_is_refused(parity_stack, servers, rollout):
    assert _record(rollout, parity_stack, servers).code == 0
    golden = parity_stack.parent / "parity" / "golden.jsonl"
    golden.write_text(golden.read_text().replace('"r0003"', '"r9999"'))
    result = _parity(rollout, parity_stack, "--canary-url", servers["faithful"])
    assert result.code == 2 and "SHA-256" in result.err and "golden.jsonl" in result.err


def test_checking_before_any_record_says_to_record(parity_stack, servers, rollout):
    result = _parity(rollout, parity_stack, "--canary-url", servers["faithful"])
    assert result.code == 2 and "--record" in result.err and "sha256" in result.err


def test_a_requests_file_that_does_not_parse_names_its_line(parity_stack, servers, rollout):
    bad = parity_stack.parent / "requests.jsonl"
    lines = bad.read_text().splitlines()
    lines[2] = '{"id": "r0002", "request": '
    bad.write_text("\n".join(lines) + "\n")
    result = _record(rollout, parity_stack, servers)
    assert result.code == 2 and "requests.jsonl:3" in result.err
    assert _pinned(parity_stack) is None


def test_an_unreachable_canary_is_bad_input(parity_stack, servers, rollout):
    assert _record(rollout, parity_stack, servers).code == 0
    result = _parity(rollout, parity_stack, "--canary-url", "http://127.0.0.1:9")
    assert result.code == 2 and "--canary-url" in result.err and "did not answer" in result.err


def test_advance_refuses_past_the_first_step_without_a_passing_report(parity_stack, servers, rollout):
    assert _record(rollout, parity_stack, servers).code == 0
    advance = ("advance", "--stack-file", parity_stack, "--service", "server", "--prometheus-url",
               "http://127.0.0.1:9")
    result = rollout(*advance)
    assert result.code == 1 and "parity" in result.err and "no parity report" in result.err
    assert _parity(rollout, parity_stack, "--canary-url", servers["broken"]).code == 1
    result = rollout(*advance)
    assert result.code == 1 and "failed: top-1 agreement" in result.err
    assert _parity(rollout, parity_stack, "--canary-url", servers["faithful"]).code == 0
    result = rollout(*advance)  # past the parity gate: now the metrics are read (none here: exit 2)
    assert result.code == 2 and "cannot read metrics from Prometheus" in result.err


def test_a_tolerance_out_of_range_names_the_stack_file_line(tmp_path, rollout):
    path = tmp_path / "Pulumi.canary.yaml"
    strict = "compare: {kind: classification, classification: {min_top1_agreement: 1.5}}"
    path.write_text(stack_text("server").replace(ANCHOR, ANCHOR + PARITY.replace("compare: {kind: classification}",
                                                                                 strict)))
    result = _parity(rollout, path, "--canary-url", "http://127.0.0.1:9")
    assert result.code == 2
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if "min_top1_agreement" in text)
    assert f"Pulumi.canary.yaml:{line}" in result.err and "min_top1_agreement" in result.err


TEXT_PARITY = """            parity:
              protocol: openai-completions
              model: bigram
              golden: {uri: parity/golden-text.jsonl}
              compare: {kind: text}
              performance: {batch_sizes: [1, 4], concurrency: 2, requests: 8, max_latency_ratio: 15,
                            min_throughput_ratio: 0.1, timeout: 60s}
              reports: parity/reports
"""


@pytest.mark.parametrize(("canary", "verdict"), [("faithful", "pass"), ("broken", "fail")])
def test_generated_text_under_greedy_decoding(tmp_path, text_servers, rollout, canary, verdict):
    from tests.support.models.bigram import requests as prompts

    path = tmp_path / "Pulumi.canary.yaml"
    path.write_text(stack_text("server").replace(ANCHOR, ANCHOR + TEXT_PARITY))
    (tmp_path / "prompts.jsonl").write_text("\n".join(json.dumps(r) for r in prompts(40)) + "\n")
    recorded = _parity(rollout, path, "--record", "--requests", tmp_path / "prompts.jsonl",
                       "--baseline-url", text_servers["baseline"])
    assert recorded.code == 0, recorded.err
    result = _parity(rollout, path, "--canary-url", text_servers[canary], "--format", "json")
    report = json.loads(result.out)
    assert report["verdict"] == verdict and result.code == (0 if verdict == "pass" else 1)
    checks = {c["name"]: c for c in report["checks"]}
    assert set(checks) >= {"exact match", "token agreement"}
    if verdict == "fail":
        assert checks["exact match"]["observed"] < 0.9 and report["worst"]
