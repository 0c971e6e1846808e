"""`verify` of tpu-prod's audit logs (issue 49): each hand-made change that stops or narrows what is
recorded, made with a plain google-api-python-client call as an operator would (`gcloud projects
set-iam-policy`, `gcloud logging sinks update`), is reported as the drift it is, and AP-GAUD-001 judges
the live audit configs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from accelplane.verify.results import CheckId, Status
from tests.support.gcp_platform import Deployment

PROJECT = "projects/acme-ml-tpu-prod"
SINK = f"{PROJECT}/sinks/acme-tpu-audit"


def _edit_audit_configs(edit: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> Callable[[Deployment], None]:
    """Read-modify-write of the project policy's auditConfigs (the mask must name them, or Google keeps
    the old ones)."""

    def apply(d: Deployment) -> None:
        projects = d.client("cloudresourcemanager").projects()
        policy = projects.getIamPolicy(resource=PROJECT, body={}).execute()
        policy["auditConfigs"] = edit(policy.get("auditConfigs") or [])
        projects.setIamPolicy(resource=PROJECT, body={"policy": policy, "updateMask": "auditConfigs"}).execute()

    return apply


def _without_storage(configs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c for c in configs if c["service"] != "storage.googleapis.com"]


def _exempting(configs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for config in configs:
        if config["service"] == "secretmanager.googleapis.com":
            for log in config["auditLogConfigs"]:
                if log["logType"] == "DATA_READ":
                    log["exemptedMembers"] = ["serviceAccount:batch@acme-ml-tpu-prod.iam.gserviceaccount.com"]
    return configs


def _patch_sink(body: dict[str, Any], mask: str) -> Callable[[Deployment], None]:
    return lambda d: d.client("logging").projects().sinks().patch(
        sinkName=SINK, updateMask=mask, body=body).execute()


def _delete_sink(d: Deployment) -> None:
    d.client("logging").projects().sinks().delete(sinkName=SINK).execute()


CHANGED, MISSING = CheckId.drift_changed, CheckId.drift_missing
# (what was done, the change, the check it must fail, the logical name, the input path)
CASES = [
    ("Data Access logs of Cloud Storage removed", _edit_audit_configs(_without_storage), MISSING,
     "acme-tpu-audit-storage", None),
    ("a member exempted from Secret Manager's DATA_READ logs", _edit_audit_configs(_exempting), CHANGED,
     "acme-tpu-audit-secretmanager", "auditLogConfigs"),
    ("the sink disabled", _patch_sink({"disabled": True}, "disabled"), CHANGED, "acme-tpu-audit-sink", "disabled"),
    ("an exclusion added to the sink",
     _patch_sink({"exclusions": [{"name": "no-gcs", "filter": 'protoPayload.serviceName="storage.googleapis.com"'}]},
                 "exclusions"),
     CHANGED, "acme-tpu-audit-sink", "exclusions"),
    ("the sink's filter narrowed", _patch_sink({"filter": 'logName:"cloudaudit.googleapis.com%2Factivity"'}, "filter"),
     CHANGED, "acme-tpu-audit-sink", "filter"),
    ("the sink deleted", _delete_sink, MISSING, "acme-tpu-audit-sink", None),
]


@pytest.mark.parametrize(("what", "change", "check", "name", "path"), CASES, ids=[c[0] for c in CASES])
def test_a_change_to_what_is_recorded_is_drift(tpu_prod: Deployment, what: str, change: Callable[[Deployment], None],
                                               check: CheckId, name: str, path: str | None) -> None:
    change(tpu_prod)

    report = tpu_prod.verify()

    failed = [(r.check, r.name, (r.path or "").split("[")[0] or None) for r in report.results
              if r.status is Status.failed]
    assert (check, name, path) in failed, failed
    assert CheckId.read_error not in {c for c, _, _ in failed}


def test_a_removed_audit_config_fails_the_audit_rule_live(tpu_prod: Deployment) -> None:
    _edit_audit_configs(_without_storage)(tpu_prod)

    report = tpu_prod.verify()

    [rule] = [r for r in report.results if r.check == "AP-GAUD-001"]
    assert rule.status is Status.failed
    assert "Data Access audit logs of storage.googleapis.com are off" in rule.message


def test_the_organisation_s_audit_config_for_another_service_is_not_drift(tpu_prod: Deployment) -> None:
    # BigQuery's Data Access logs, turned on by the organisation: not the stack's to judge.
    _edit_audit_configs(lambda configs: [*configs, {"service": "bigquery.googleapis.com",
                                                    "auditLogConfigs": [{"logType": "DATA_READ"}]}])(tpu_prod)

    report = tpu_prod.verify()

    assert not report.failed, [f"{r.check} {r.name}: {r.message}" for r in report.results if r.status is Status.failed]
