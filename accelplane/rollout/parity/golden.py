"""The golden set: JSONL, one header line, then one line per request with the baseline's output.

    {"accelplane_golden": 1, "protocol": "open-inference", "model": "m", "kind": "classification",
     "recorded": {"backend": "l4", "image": "...@sha256:...", "accelerator": "nvidia-l4", "at": "..."},
     "performance": {"batch": {"1": {"p50_ms": 3.1, "p99_ms": 4.0}}, "throughput_rps": 812.0, "concurrency": 4}}
    {"id": "r0001", "request": {...the protocol's request body...}, "output": [...]}

A requests file for `--record` is the same without header and outputs: `{"id", "request"}` lines.
Every problem names the file and line (exit 2); the file's SHA-256 is checked against the
declaration before anything is sent.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from accelplane.errors import InputError

FORMAT = 1


@dataclass(frozen=True)
class GoldenRequest:
    id: str
    request: dict[str, Any]
    output: Any = None


@dataclass
class GoldenSet:
    header: dict[str, Any]
    requests: list[GoldenRequest] = field(default_factory=list)

    def to_bytes(self) -> bytes:
        lines = [json.dumps(self.header, sort_keys=True)]
        lines += [json.dumps({"id": r.id, "request": r.request, "output": r.output}, sort_keys=True)
                  for r in self.requests]
        return ("\n".join(lines) + "\n").encode()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _lines(data: bytes, where: str) -> list[tuple[int, Any]]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError.single(f"not UTF-8 text ({error.reason} at byte {error.start})", file=where) from None
    parsed = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            parsed.append((number, json.loads(line)))
        except ValueError as error:
            raise InputError.single(f"expected one JSON object per line: {error}", file=where, line=number) from None
        if not isinstance(parsed[-1][1], dict):
            raise InputError.single("expected a JSON object", file=where, line=number)
    if not parsed:
        raise InputError.single("empty: expected at least one request", file=where)
    return parsed


def _request(number: int, item: dict[str, Any], where: str, *, with_output: bool) -> GoldenRequest:
    request_id, request = item.get("id"), item.get("request")
    if not isinstance(request_id, str) or not request_id:
        raise InputError.single("expected a non-empty string", file=where, line=number, field="id")
    if not isinstance(request, dict):
        raise InputError.single("expected the request body as a JSON object", file=where, line=number,
                                field="request")
    if with_output and "output" not in item:
        raise InputError.single("expected the baseline's recorded output", file=where, line=number, field="output")
    return GoldenRequest(request_id, request, item.get("output"))


def _unique(requests: list[GoldenRequest], numbers: list[int], where: str) -> None:
    seen: dict[str, int] = {}
    for request, number in zip(requests, numbers, strict=True):
        if request.id in seen:
            raise InputError.single(f"request id {request.id!r} repeats line {seen[request.id]}", file=where,
                                    line=number, field="id")
        seen[request.id] = number


def parse_golden(data: bytes, where: str, *, expect_sha256: str | None) -> GoldenSet:
    """The golden set in `data`; `InputError` (exit 2) for a changed or malformed file."""
    if expect_sha256 is not None and sha256(data) != expect_sha256:
        raise InputError.single(
            f"the golden set's SHA-256 is {sha256(data)}, the stack pins {expect_sha256}: it changed since it was "
            "recorded; record it again (`rollout parity --record`) or restore it", file=where)
    lines = _lines(data, where)
    number, header = lines[0]
    if header.get("accelplane_golden") != FORMAT:
        raise InputError.single(f'expected a header line {{"accelplane_golden": {FORMAT}, ...}}', file=where,
                                line=number, field="accelplane_golden")
    requests = [_request(n, item, where, with_output=True) for n, item in lines[1:]]
    if not requests:
        raise InputError.single("no requests after the header", file=where)
    _unique(requests, [n for n, _ in lines[1:]], where)
    return GoldenSet(header, requests)


def parse_requests(data: bytes, where: str) -> list[GoldenRequest]:
    """A requests file (`{"id", "request"}` per line), or a golden set's requests."""
    lines = _lines(data, where)
    if lines[0][1].get("accelplane_golden") is not None:
        lines = lines[1:]
    requests = [_request(n, item, where, with_output=False) for n, item in lines]
    if not requests:
        raise InputError.single("no requests", file=where)
    _unique(requests, [n for n, _ in lines], where)
    return requests
