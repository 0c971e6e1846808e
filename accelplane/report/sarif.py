"""SARIF 2.1.0 for GitHub code scanning.

Every result has a physical location (GitHub requires one): the stack file, at the line that
declares the element the resource is built from (a node pool, a bucket, the endpoint's allowed
CIDRs; `accelplane.engine.provenance`), so a code-scanning annotation lands where the fix goes; a
state or plan judged without a stack points at its file's first line. A logical location names
the resource URN. Levels: blocking →
error, other open findings → warning, waived → note with an external suppression. Each rule
carries `security-severity` so code scanning shows critical/high/medium/low.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from accelplane.report.document import Item, Report, RuleInfo

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SECURITY_SEVERITY = {"critical": "9.5", "high": "8.0", "medium": "5.5", "low": "3.0"}


def _rule(rule: RuleInfo) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.description},
        "fullDescription": {"text": rule.description},
        "help": {"text": rule.remediation, "markdown": f"**Remediation:** {rule.remediation}"},
        "defaultConfiguration": {"level": "error" if rule.enforcement == "mandatory" else "warning"},
        "properties": {"security-severity": _SECURITY_SEVERITY.get(rule.severity, "5.5"),
                       "tags": ["security", rule.group], "precision": "high"},
    }
    if rule.references:
        out["helpUri"] = rule.references[0]
    return out


def _level(item: Item) -> str:
    if item.waived:
        return "note"
    return "error" if item.blocking else "warning"


def _result(item: Item, index: dict[str, int], artifact: str, line: int) -> dict[str, Any]:
    fingerprint = hashlib.sha256(f"{item.rule}\0{item.urn}\0{item.message}".encode()).hexdigest()
    result: dict[str, Any] = {
        "ruleId": item.rule,
        "level": _level(item),
        "message": {"text": f"{item.name}: {item.message}"},
        "locations": [
            {
                "physicalLocation": {"artifactLocation": {"uri": artifact}, "region": {"startLine": line}},
                "logicalLocations": [{"name": item.name, "fullyQualifiedName": item.urn, "kind": "resource"}],
            }
        ],
        "partialFingerprints": {"accelplaneFinding/v1": fingerprint},
        "properties": {"resourceType": item.type, "enforcement": item.enforcement, "severity": item.severity},
    }
    if item.rule in index:
        result["ruleIndex"] = index[item.rule]
    if item.waived:
        result["suppressions"] = [{"kind": "external", "status": "accepted", "justification": item.waiver_reason or ""}]
    return result


def render_sarif(report: Report) -> str:
    index = {rule.id: n for n, rule in enumerate(report.rules)}
    artifact = report.artifact or "Pulumi.yaml"
    document = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "accelplane",
                        "version": report.version,
                        "informationUri": "https://github.com/accelplane/accelplane",
                        "rules": [_rule(rule) for rule in report.rules],
                    }
                },
                "automationDetails": {"id": f"{report.tool}/{report.subject}"},
                "results": [_result(item, index, artifact, report.line_of(item)) for item in report.items],
                "invocations": [
                    {"executionSuccessful": True,
                     "toolExecutionNotifications": [
                         {"level": "error", "message": {"text": failure}} for failure in report.failures]}
                ],
            }
        ],
    }
    return json.dumps(document, indent=2) + "\n"
