"""A parity report: what was compared, each check with its value and limit, the requests that
differ most, the performance figures, and the verdict; as JSON (kept where `advance` reads it),
text (terminals, CI logs) or Markdown (a pull-request comment).

Reports are keyed by what they vouch for: `<reports>/<service>/<backend>/<image digest>/<golden
SHA-256>.json`. A new canary image, another backend or a re-recorded golden set has no report
until `rollout parity` runs again.
"""

from __future__ import annotations

import json
from typing import Any

from accelplane.declaration import Backend, InferenceService, Parity

KIND = "accelplane.rollout.parity.parity_report/v1"


def report_uri(parity: Parity, service: InferenceService, backend: Backend, golden_sha256: str) -> str:
    digest = backend.image.rsplit("@sha256:", 1)[-1]
    return f"{parity.reports.rstrip('/')}/{service.name}/{backend.name}/{digest}/{golden_sha256}.json"


def verdict(report: dict[str, Any]) -> bool:
    return report.get("kind") == KIND and report.get("verdict") == "pass"


def render_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, sort_keys=True) + "\n"


def _value(check: dict[str, Any]) -> str:
    observed, limit = check["observed"], check["limit"]
    bound = "≥" if check["bound"] == "min" else "≤"
    return f"{observed:.4g} (limit {bound} {limit:g})"


def render_text(report: dict[str, Any]) -> str:
    lines = [
        f"accelplane rollout parity: service {report['service']!r}, canary {report['backend']!r} "
        f"({report['accelerator']}, {report['image']})",
        f"golden set {report['golden']['uri']} (sha256 {report['golden']['sha256'][:12]}…, "
        f"{report['requests']} requests, recorded on {report['golden']['recorded'].get('backend')})",
        f"reached at {report['where']}",
        "",
    ]
    for check in report["checks"]:
        lines.append(f"  {'passes' if check['passed'] else 'FAILS':<7} {check['name']:<45} {_value(check)}")
    for problem in report["problems"]:
        lines.append(f"  FAILS   {problem}")
    if report["worst"]:
        lines += ["", "requests that differ most:"]
        lines += [f"  {w['id']}: {w['detail']}" for w in report["worst"]]
    if report["performance"].get("stopped_at_time_bound"):
        lines += ["", "the load stopped at its time bound"]
    lines += ["", f"verdict: {report['verdict'].upper()} (report {report['uri']})"]
    return "\n".join(lines) + "\n"


def render_markdown(report: dict[str, Any]) -> str:
    mark = "✅" if report["verdict"] == "pass" else "❌"
    lines = [
        f"### Parity: `{report['service']}` canary `{report['backend']}` {mark} {report['verdict']}",
        "",
        f"Golden set `{report['golden']['uri']}` ({report['requests']} requests, recorded on "
        f"`{report['golden']['recorded'].get('backend')}`); canary image `{report['image']}`.",
        "",
        "| check | observed | limit | |",
        "|---|---|---|---|",
    ]
    for check in report["checks"]:
        bound = "≥" if check["bound"] == "min" else "≤"
        lines.append(f"| {check['name']} | {check['observed']:.4g} | {bound} {check['limit']:g} | "
                     f"{'✅' if check['passed'] else '❌'} |")
    lines += [f"| {problem} | | | ❌ |" for problem in report["problems"]]
    if report["worst"]:
        lines += ["", "Requests that differ most:", ""]
        lines += [f"- `{w['id']}`: {w['detail']}" for w in report["worst"]]
    return "\n".join(lines) + "\n"


FORMATS = {"text": render_text, "json": render_json, "markdown": render_markdown}
