"""Render a `VerifyReport` with the shared formatters of `accelplane.report` (table, Markdown, JUnit,
SARIF), so `verify` and `check` read alike; JSON is the `check` shape plus every check's result.

Each verify check is presented as a rule (`RuleInfo`): failed results are blocking items, warnings
advisory items, skips notes; a check with no failed or warned result is a passing JUnit case.
"""

from __future__ import annotations

import json
from typing import Any

from accelplane.report import render
from accelplane.report.findings import rule_info
from accelplane.report.model import Item, Report, RuleInfo
from accelplane.rules.registry import RULES
from accelplane.verify.model import CheckId, Status, VerifyReport

# id -> (name, description, severity, remediation, group)
CHECKS: dict[str, tuple[str, str, str, str, str]] = {
    CheckId.drift_missing: (
        "declared-resource-exists",
        "Checks whether every declared resource exists live.",
        "high",
        "Run `pulumi up` to recreate it (or restore it), or remove it from the declaration.",
        "drift",
    ),
    CheckId.drift_changed: (
        "declared-settings-hold",
        "Checks whether every declared setting of a live resource is as declared.",
        "high",
        "Run `pulumi up` to restore the declared value, or change the declaration through review if the change is "
        "wanted.",
        "drift",
    ),
    CheckId.drift_unexpected: (
        "nothing-undeclared",
        "Checks whether the platform carries resources, rules or policies the declaration does not have.",
        "high",
        "Remove what was added outside the code, or declare it.",
        "drift",
    ),
    CheckId.read_error: (
        "everything-readable",
        "Checks whether every read the verification needs succeeded.",
        "high",
        "Grant the verifying role read access (ReadOnlyAccess, and s3:GetObject plus kms:Decrypt for the "
        "checkpoint drill), then rerun.",
        "verify",
    ),
    CheckId.cluster_status: (
        "cluster-active",
        "Checks whether the EKS cluster is ACTIVE.",
        "critical",
        "See `aws eks describe-cluster` for the cluster's status.",
        "live",
    ),
    CheckId.node_group_status: (
        "node-groups-healthy",
        "Checks whether every node group is ACTIVE without health issues.",
        "high",
        "See the health issues in `aws eks describe-nodegroup` (capacity, subnets, IAM, AMI).",
        "live",
    ),
    CheckId.launch_template_version: (
        "node-groups-on-latest-template",
        "Checks whether node groups run the latest version of their launch template.",
        "medium",
        "Run `pulumi up` to roll the node group to the declared launch template.",
        "live",
    ),
    CheckId.target_health: (
        "targets-healthy",
        "Checks whether the inference target group has targets and all are healthy.",
        "high",
        "Check the inference pods' readiness, the TargetGroupBinding and the health check path.",
        "live",
    ),
    CheckId.kms_key_state: (
        "keys-enabled",
        "Checks whether every declared KMS key is enabled.",
        "critical",
        "Cancel the deletion (`aws kms cancel-key-deletion`) and enable the key.",
        "live",
    ),
    CheckId.secret_value: (
        "secrets-have-values",
        "Checks whether every secret has a current value (without reading it).",
        "high",
        "Put the value: `aws secretsmanager put-secret-value` or `pulumi config set --secret "
        "accelplane:secret-<name>` and `pulumi up`.",
        "live",
    ),
    CheckId.secret_rotation: (
        "secret-rotation-on-schedule",
        "Checks whether secret rotation is as declared and not overdue.",
        "medium",
        "Fix the rotation function or its schedule; `aws secretsmanager rotate-secret` to catch up.",
        "live",
    ),
    CheckId.endpoint_tls: (
        "endpoint-tls-verifies",
        "Checks whether the inference endpoint's certificate verifies for its host.",
        "critical",
        "Serve an ACM certificate for the host clients use (`--probe-url` names it).",
        "endpoint",
    ),
    CheckId.endpoint_health: (
        "endpoint-healthy",
        "Checks whether every HTTPS probe of the health path answers as the matcher expects within the timeout.",
        "high",
        "Check the targets' health and the pods behind them.",
        "endpoint",
    ),
    CheckId.endpoint_certificate: (
        "certificate-not-expiring",
        "Checks whether the endpoint's certificate is valid for 30 more days.",
        "medium",
        "Renew the certificate (for ACM, fix DNS validation so it renews itself).",
        "endpoint",
    ),
    CheckId.endpoint_latency: (
        "endpoint-latency",
        "Reports the latency p50/p99 of the probes.",
        "low",
        "None: informational.",
        "endpoint",
    ),
    CheckId.checkpoint_present: (
        "checkpoint-present",
        "Checks whether a complete checkpoint (with its manifest) exists under the training prefix.",
        "high",
        "Check the trainer's checkpoint job and its write access to the prefix.",
        "checkpoint",
    ),
    CheckId.checkpoint_age: (
        "checkpoint-recent",
        "Checks whether the newest checkpoint is younger than the promised interval.",
        "high",
        "Check the trainer's checkpoint schedule; a stalled job stops writing them.",
        "checkpoint",
    ),
    CheckId.checkpoint_integrity: (
        "checkpoint-restorable",
        "Checks whether every file of the newest checkpoint reads back with the manifest's size and sha256.",
        "critical",
        "Rewrite the checkpoint; find what truncated or changed it.",
        "checkpoint",
    ),
}
_WARN_SEVERITY = "medium"


def _check_info(check_id: str) -> RuleInfo:
    name, description, severity, remediation, group = CHECKS[check_id]
    return RuleInfo(
        id=check_id,
        name=name,
        description=description,
        severity=severity,
        enforcement="mandatory",
        remediation=remediation,
        group=group,
    )


def to_report(report: VerifyReport) -> Report:
    infos = [_check_info(check_id) for check_id in CHECKS]
    items: list[Item] = []
    notes: list[str] = []
    for result in report.results:
        if result.finding is not None:
            items.append(
                Item(
                    rule=result.check,
                    severity=result.finding["severity"],
                    enforcement=result.finding["enforcement"],
                    urn=result.urn or "",
                    type=result.type,
                    name=result.name,
                    message=result.finding["message"],
                    remediation=result.finding["remediation"],
                    waived=result.finding["waived"],
                    blocking=result.status is Status.failed,
                    waiver_reason=result.waiver_reason,
                )
            )
            continue
        if result.status is Status.skipped:
            where = f"{result.name}: " if result.name else ""
            notes.append(f"{result.check} {where}{result.message}")
            continue
        if result.check in (CheckId.endpoint_latency, CheckId.rules) and result.status is Status.passed:
            notes.append(result.message)
            continue
        if result.status is Status.passed or result.check not in CHECKS:
            continue
        info = CHECKS[result.check]
        items.append(
            Item(
                rule=result.check,
                severity=info[2] if result.status is Status.failed else _WARN_SEVERITY,
                enforcement="mandatory" if result.status is Status.failed else "advisory",
                urn=result.urn or "",
                type=result.type,
                name=result.name,
                message=result.message,
                remediation=info[3],
                blocking=result.status is Status.failed,
            )
        )
    calls = report.api_calls
    notes.append(
        f"{calls.get('total', 0)} AWS API calls ({calls.get('retries', 0)} retries), {report.wall_seconds:.1f} s"
    )
    summary = report.summary()
    notes.append("checks: " + ", ".join(f"{n} {status}" for status, n in summary.items()))
    return Report(
        tool="accelplane verify",
        subject=f"stack {report.stack} (live)",
        items=items,
        rules=infos + [rule_info(rule) for rule in RULES],
        resources=sum(
            1
            for r in report.results
            if r.check in (CheckId.drift_matched, CheckId.drift_changed, CheckId.drift_missing)
        ),
        notes=notes,
    )


def render_verify(report: VerifyReport, fmt: str) -> str:
    shared = to_report(report)
    if fmt == "json":
        data: dict[str, Any] = report.to_json()
        data["findings"] = [item.to_json() for item in shared.items]
        data["summary"] = {**shared.summary(), "checks": report.summary(), "passed": not report.failed}
        return json.dumps(data, indent=2, default=str) + "\n"
    return render(shared, fmt)
