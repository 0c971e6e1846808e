"""`verify` of the audit trail (issue 49): the dev stack with an `audit:` block, created in moto as
`pulumi up` would (CreateTrail, PutEventSelectors, StartLogging; the log bucket created with Object Lock
and its COMPLIANCE default retention). A trail stopped by hand, its data events narrowed and the
bucket's retention shortened are each reported; a delivery error is judged from GetTrailStatus's own
answer shape (moto never fails a delivery)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import boto3
import pytest

from accelplane.clouds.aws.verify.declared import aws_declared
from accelplane.clouds.aws.verify.state_checks import trail_logging
from accelplane.config.loader import StackConfig, load_stack_text
from accelplane.config.project import find_project
from accelplane.engine.graph import OfflineGraph
from accelplane.program import offline_graph
from accelplane.rules.view import Resource
from accelplane.verify.declared import DeclaredPlatform
from accelplane.verify.results import CheckId, Status
from tests.verify.conftest import _as_running, _runner, failures
from tests.verify.moto_platform import MotoPlatform
from tests.verify.moto_snapshot import live_platform
from tests.verify.test_verify_iam_policy import documented_actions, iam_action

TRAIL = "acme-ml-dev-audit"  # the declared trail name: <project>-<stack>-audit
TRAIL_RESOURCE = "acme-ml-dev-audit-trail"  # its logical name, which the results carry
LOCK = "acme-ml-dev-audit-object-lock"


def _audited_dev_text() -> str:
    text = Path(find_project(Path(__file__)).stack_file("dev")).read_text()
    old = "    secrets:\n"
    assert text.count(old) == 1
    audit = "    audit:\n      retention_days: 90\n      readers: [arn:aws:iam::123456789012:role/security-audit]\n"
    return text.replace(old, audit + old)


@pytest.fixture(scope="module")
def audited_stack() -> StackConfig:
    return load_stack_text(_audited_dev_text(), path="Pulumi.dev.yaml", stack="dev")


@pytest.fixture(scope="module")
def audited_graph(audited_stack: StackConfig) -> OfflineGraph:
    return offline_graph(audited_stack)


@pytest.fixture(scope="module")
def audited_declared(audited_stack: StackConfig, audited_graph: OfflineGraph) -> DeclaredPlatform:
    return aws_declared(audited_stack, audited_graph)


@pytest.fixture
def live(moto: None, audited_declared: DeclaredPlatform, boto_session: boto3.Session) -> MotoPlatform:
    return live_platform("audited-dev", lambda: _as_running(audited_declared, boto_session))


@pytest.fixture
def run(audited_stack: StackConfig, audited_graph: OfflineGraph, boto_session: boto3.Session) -> Any:
    return _runner(audited_stack, audited_graph, boto_session)


def _of(report: Any, name: str) -> dict[CheckId, Any]:
    return {r.check: r for r in report.results if r.name == name}


def test_the_declared_trail_and_its_locked_bucket_verify_clean(live: MotoPlatform, run: Any) -> None:
    report = run()

    assert failures(report) == []
    trail = _of(report, TRAIL_RESOURCE)
    assert trail[CheckId.drift_matched].status is Status.passed
    assert trail[CheckId.trail_logging].status is Status.passed
    assert trail[CheckId.trail_logging].message == f"trail {TRAIL} is logging and delivering"
    assert _of(report, LOCK)[CheckId.drift_matched].status is Status.passed
    assert not [r for r in report.results if r.check == CheckId.coverage
                and ("cloudtrail" in r.message or "ObjectLock" in r.message)]
    # The trail's rules are judged on what is live (verify reads the trail, its bucket and the lock).
    assert not [r for r in report.results if r.check.startswith("AP-AUD-")]
    # The read-only policy in docs/verify.md allows the trail's and the lock's reads too.
    called = {iam_action(op) for op in report.api_calls["by_operation"] if op != "sts.GetCallerIdentity"}
    assert {"cloudtrail:GetTrailStatus", "s3:GetBucketObjectLockConfiguration"} <= called
    assert called - documented_actions() == set()


def test_a_trail_stopped_by_hand_fails_with_how_to_start_it(live: MotoPlatform, run: Any) -> None:
    live.client("cloudtrail").stop_logging(Name=TRAIL)

    report = run()

    check = _of(report, TRAIL_RESOURCE)[CheckId.trail_logging]
    assert check.status is Status.failed
    assert f"trail {TRAIL} is not logging since " in check.message
    assert f"`aws cloudtrail start-logging --name {TRAIL}`" in check.message
    assert report.failed


def test_data_events_narrowed_by_hand_are_drift(live: MotoPlatform, run: Any) -> None:
    # Someone keeps the management events and drops the model and checkpoint objects' data events.
    live.client("cloudtrail").put_event_selectors(TrailName=TRAIL, AdvancedEventSelectors=[
        {"Name": "Management events", "FieldSelectors": [{"Field": "eventCategory", "Equals": ["Management"]}]},
    ])

    report = run()

    assert (CheckId.drift_changed, TRAIL_RESOURCE, "advancedEventSelectors") in {
        (c, n, p.split("[")[0]) for c, n, p in failures(report)}
    # (AP-AUD-001, which says the same of a trail, judges prod stacks only: this is dev.)


def test_the_log_bucket_s_retention_switched_to_governance_is_drift(live: MotoPlatform, run: Any) -> None:
    bucket = live.bucket("audit")
    live.client("s3").put_object_lock_configuration(Bucket=bucket, ObjectLockConfiguration={
        "ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": {"Mode": "GOVERNANCE", "Days": 90}}})

    report = run()

    assert (CheckId.drift_changed, LOCK, "rule.defaultRetention.mode") in failures(report)
    [rule] = [r for r in report.results if r.check == "AP-AUD-002"]
    assert rule.status is Status.failed and "default retention in GOVERNANCE mode" in rule.message


def test_a_deleted_trail_is_missing(live: MotoPlatform, run: Any) -> None:
    live.client("cloudtrail").delete_trail(Name=TRAIL)

    report = run()

    assert failures(report) == [(CheckId.drift_missing, TRAIL_RESOURCE, None)]


# -- GetTrailStatus answers moto does not give (botocore's GetTrailStatus output shape) ---------------

_RESOURCE = Resource(urn="urn:pulumi:prod::acme-ml::aws:cloudtrail/trail:Trail::acme-ml-prod-audit-trail",
                     type="aws:cloudtrail/trail:Trail", name="acme-ml-prod-audit-trail", props={})
_NOW = datetime(2026, 12, 8, 12, 0, tzinfo=UTC)


def _status(**status: Any) -> dict[str, Any]:
    return {"trail": {"Name": "acme-ml-prod-audit"}, "status": status}


def test_a_delivery_error_fails_even_while_logging() -> None:
    # What CloudTrail reports after the bucket policy stopped admitting it (CloudTrail User Guide,
    # "Troubleshooting": LatestDeliveryError AccessDenied).
    result = trail_logging(_RESOURCE, _status(IsLogging=True, LatestDeliveryError="AccessDenied",
                                              LatestDeliveryTime=datetime(2026, 12, 8, 9, 0, tzinfo=UTC)), now=_NOW)

    assert result.status is Status.failed
    assert "last delivery to the bucket failed (log files: AccessDenied)" in result.message


def test_a_digest_delivery_error_fails_too() -> None:
    result = trail_logging(_RESOURCE, _status(IsLogging=True, LatestDigestDeliveryError="KMS.DisabledException",
                                              LatestDeliveryTime=datetime(2026, 12, 8, 11, 58, tzinfo=UTC)), now=_NOW)

    assert result.status is Status.failed
    assert "digest files: KMS.DisabledException" in result.message


def test_no_delivery_for_over_an_hour_is_a_warning() -> None:
    # 10:30 is 90 minutes before 12:00: over the hour CloudTrail's ~5-minute delivery never takes.
    stale = trail_logging(_RESOURCE, _status(IsLogging=True,
                                             LatestDeliveryTime=datetime(2026, 12, 8, 10, 30, tzinfo=UTC)), now=_NOW)
    # 11:10 is 50 minutes before: within the hour.
    fresh = trail_logging(_RESOURCE, _status(IsLogging=True,
                                             LatestDeliveryTime=datetime(2026, 12, 8, 11, 10, tzinfo=UTC)), now=_NOW)

    assert stale.status is Status.warning
    assert "last delivered a log file at 2026-12-08T10:30:00+00:00" in stale.message
    assert fresh.status is Status.passed


def test_a_stopped_trail_names_when_it_stopped() -> None:
    result = trail_logging(_RESOURCE, _status(IsLogging=False,
                                              StopLoggingTime=datetime(2026, 12, 1, 8, 15, tzinfo=UTC)), now=_NOW)

    assert result.status is Status.failed
    assert "is not logging since 2026-12-01T08:15:00+00:00 (StopLogging)" in result.message
