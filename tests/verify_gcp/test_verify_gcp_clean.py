"""An untouched platform, as `pulumi up` leaves it, verifies clean; verify only reads."""

from __future__ import annotations

from accelplane.verify.results import CheckId, Status


def _failed(report):
    return [f"{r.check} {r.type} {r.name}: {r.message}" for r in report.results if r.status is Status.failed]


def test_untouched_tpu_prod_verifies_clean(tpu_prod):
    report = tpu_prod.verify()
    assert _failed(report) == []
    matched = [r for r in report.results if r.check == CheckId.drift_matched]
    assert len(matched) >= 20
    for line in [r for r in report.results if r.status is not Status.passed][:40]:
        print(line.check, line.type, line.name, line.message)
