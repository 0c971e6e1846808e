"""An untouched platform, as `pulumi up` leaves it, verifies clean: every declared resource of a type
verify reads is found and matches; verify only reads."""

from __future__ import annotations

import pytest

from accelplane.verify.results import CheckId, Status
from tests.support.gcp_platform import deploy


def _failed(report):
    return [f"{r.check} {r.type} {r.name}: {r.message}" for r in report.results if r.status is Status.failed]


@pytest.mark.parametrize("stack", ["tpu-prod", "tpu-dev"])
def test_untouched_platform_verifies_clean(fake, gcs, stack):
    deployment = deploy(fake, gcs, stack)
    before = len(fake.calls)
    clients = deployment.clients()
    report = deployment.verify(clients=clients)
    assert _failed(report) == []
    matched = [r for r in report.results if r.check == CheckId.drift_matched]
    assert len(matched) == report.resources >= 20
    assert report.verified_percent == 100.0
    assert all(call.rsplit(".", 1)[-1] in ("get", "list", "getIamPolicy") for call in fake.calls[before:])
    assert {"storage.buckets.list", "storage.buckets.getIamPolicy"} <= clients.methods
    buckets = [r for r in matched if r.type == "gcp:storage/bucket:Bucket"]
    assert len(buckets) == len(deployment.declared.of_type("gcp:storage/bucket:Bucket")) > 0


def test_the_audit_rule_is_judged_on_the_live_audit_configs_sink_and_bucket(fake, gcs):
    """tpu-prod's audit logs (project audit configs, a locked log bucket and its sink) are read live, so
    AP-GAUD-001 is judged on them: clean here, no result; the same rule fails once a config is gone
    (test_verify_gcp_drift_audit.py)."""
    report = deploy(fake, gcs, "tpu-prod").verify()
    assert [r for r in report.results if r.check == "AP-GAUD-001"] == []
    assert {r.type for r in report.results if r.check == CheckId.drift_matched} >= {
        "gcp:logging/projectBucketConfig:ProjectBucketConfig", "gcp:logging/projectSink:ProjectSink",
        "gcp:projects/iAMAuditConfig:IAMAuditConfig"}


def test_a_rule_reading_a_declared_type_verify_does_not_read_is_said_not_judged(tpu_prod):
    """Were the sink not read (an older reader, a cloud without it), AP-GAUD-001 would see it missing from
    the live view and fail a platform that has it: it is reported as not judged, naming what was not
    read, never as passed or failed. A type the declaration does not have at all is no reason."""
    from datetime import date

    from accelplane.clouds.gcp.verify.drift_specs import SPECS
    from accelplane.verify.rules import rule_results

    declared = tpu_prod.declared
    read = set(SPECS) - {"gcp:logging/projectSink:ProjectSink"}
    results = rule_results(declared.resources, tpu_prod.stack.platform, "tpu-prod", date(2026, 12, 8),
                           read_types=read, declared_types={r.type for r in declared.resources}).results
    [audit] = [r for r in results if r.check == "AP-GAUD-001"]
    assert audit.status is Status.skipped
    assert audit.message == ("not judged on the live cloud: verify does not read gcp:logging/projectSink:ProjectSink "
                             "here (`check` judges the declaration)")
