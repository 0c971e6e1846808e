"""The inference Gateway's certificate on Certificate Manager: the map and its entries as declared,
an entry added by hand reported, and the certificates they serve provisioned and not expiring."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from accelplane.verify.results import CheckId, Status

MAP = "projects/acme-ml-tpu-prod/locations/global/certificateMaps/acme-tpu-inference"
CERTIFICATE = "projects/acme-ml-tpu-prod/locations/global/certificates/llm-acme-example"


def _manager(d):
    return d.client("certificatemanager").projects().locations()


def _failed(report):
    return {(r.check, r.name): r for r in report.results if r.status is Status.failed}


def test_an_entry_added_by_hand_is_reported(tpu_prod):
    _manager(tpu_prod).certificates().create(
        parent="projects/acme-ml-tpu-prod/locations/global", certificateId="staging", body={}
    ).execute()
    _manager(tpu_prod).certificateMaps().certificateMapEntries().create(
        parent=MAP, certificateMapEntryId="staging",
        body={"hostname": "staging.acme.example", "certificates": [
            "projects/acme-ml-tpu-prod/locations/global/certificates/staging"]},
    ).execute()
    failed = _failed(tpu_prod.verify())
    assert (CheckId.drift_unexpected, f"{MAP}/certificateMapEntries/staging") in failed, list(failed)


def test_the_primary_entry_serving_another_certificate_is_drift(tpu_prod):
    entry = _manager(tpu_prod).certificateMaps().certificateMapEntries().list(parent=MAP).execute()
    name = entry["certificateMapEntries"][0]["name"]
    other = "projects/acme-ml-tpu-prod/locations/global/certificates/old-cert"
    _manager(tpu_prod).certificateMaps().certificateMapEntries().patch(
        name=name, updateMask="certificates", body={"certificates": [other]}
    ).execute()
    failed = _failed(tpu_prod.verify())
    hit = failed.get((CheckId.drift_changed, "acme-tpu-inference-certmap-primary"))
    assert hit is not None and hit.path.startswith("certificates"), list(failed)


def test_a_managed_certificate_google_has_not_provisioned_fails(tpu_prod):
    tpu_prod.fake.state.resources[f"certificatemanager/v1/v1/{CERTIFICATE}"]["managed"] = {
        "domains": ["llm.acme.example"], "state": "PROVISIONING",
        "authorizationAttemptInfo": [{"domain": "llm.acme.example", "state": "FAILED",
                                      "details": "CAA record forbids Google Trust Services"}],
    }
    failed = _failed(tpu_prod.verify())
    hit = failed.get((CheckId.certificate, "llm-acme-example"))
    assert hit is not None and "PROVISIONING" in hit.message and "CAA record" in hit.message


def test_a_certificate_close_to_expiry_warns_and_an_expired_one_fails(tpu_prod):
    resource = tpu_prod.fake.state.resources[f"certificatemanager/v1/v1/{CERTIFICATE}"]
    resource["expireTime"] = "2000-01-01T00:00:00Z"
    assert (CheckId.certificate, "llm-acme-example") in _failed(tpu_prod.verify())
    resource["expireTime"] = (datetime.now(UTC) + timedelta(days=10)).isoformat().replace("+00:00", "Z")
    report = tpu_prod.verify()
    warnings = [r for r in report.results if r.check == CheckId.certificate and r.status is Status.warning]
    assert warnings and "renew it" in warnings[0].message
