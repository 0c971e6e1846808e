"""An untouched platform, as `pulumi up` leaves it, verifies clean: every declared resource of a type
verify reads is found and matches; verify only reads."""

from __future__ import annotations

import pytest

from accelplane.verify.results import CheckId, Status
from tests.support.gcp_platform import deploy


def _failed(report):
    return [f"{r.check} {r.type} {r.name}: {r.message}" for r in report.results if r.status is Status.failed]


@pytest.mark.parametrize("stack", ["tpu-prod", "tpu-dev"])
def test_untouched_platform_verifies_clean(fake, stack):
    deployment = deploy(fake, stack)
    before = len(fake.calls)
    report = deployment.verify()
    assert _failed(report) == []
    matched = [r for r in report.results if r.check == CheckId.drift_matched]
    assert len(matched) == report.resources >= 20
    assert report.verified_percent == 100.0
    assert all(call.rsplit(".", 1)[-1] in ("get", "list", "getIamPolicy") for call in fake.calls[before:])
