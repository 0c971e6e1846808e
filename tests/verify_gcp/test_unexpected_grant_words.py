"""How verify names an unexpected IAM grant on Google Cloud: the role and its members as names.

Seen: an unexpected KMS grant read "roles/cloudkms.cryptoKeyEncrypterDecrypter for None" where the
live grant came without a single `member` (a binding lists `members`); a list printed as a Python
list. The words come from the grant the API returned (getIamPolicy's bindings), written out here.
"""

from __future__ import annotations

from accelplane.clouds.gcp.verify.drift_specs import DRIFT
from accelplane.clouds.gcp.verify.shapes import KEY_BINDING
from accelplane.rules.view import Resource

KEY = "projects/p/locations/us-central1/keyRings/r/cryptoKeys/k"


def _live(props: dict) -> Resource:
    return Resource(urn=f"live:{KEY}", type=KEY_BINDING, name="grant", props=props)


def test_a_binding_names_its_members() -> None:
    props = {"cryptoKeyId": KEY, "role": "roles/cloudkms.cryptoKeyEncrypterDecrypter",
             "members": ["serviceAccount:intruder@p.iam.gserviceaccount.com", "user:eve@example.com"]}
    assert DRIFT.describe_unexpected(_live(props), props) == (
        "roles/cloudkms.cryptoKeyEncrypterDecrypter for serviceAccount:intruder@p.iam.gserviceaccount.com, "
        "user:eve@example.com")


def test_a_grant_read_without_members_never_says_none() -> None:
    props = {"cryptoKeyId": KEY, "role": "roles/cloudkms.cryptoKeyEncrypterDecrypter"}
    text = DRIFT.describe_unexpected(_live(props), props)
    assert "None" not in text and text == "roles/cloudkms.cryptoKeyEncrypterDecrypter for no member read"
