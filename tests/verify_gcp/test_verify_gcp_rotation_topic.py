"""`verify` of the secrets' rotation topic on tpu-prod (issue 49): the topic Secret Manager notifies and
who may publish on it, changed with plain google-api-python-client calls as an operator would
(`gcloud pubsub topics add-iam-policy-binding` / `remove-iam-policy-binding`, `topics delete`)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from accelplane.verify.results import CheckId, Status
from tests.support.gcp_platform import Deployment

TOPIC = "projects/acme-ml-tpu-prod/topics/acme-tpu-secrets-rotation"
PUBLISHER = "roles/pubsub.publisher"


def _topics(d: Deployment):
    return d.client("pubsub").projects().topics()


def _edit_publishers(edit: Callable[[list[str]], list[str]]) -> Callable[[Deployment], None]:
    def apply(d: Deployment) -> None:
        policy = _topics(d).getIamPolicy(resource=TOPIC).execute()
        bindings = policy.setdefault("bindings", [])
        binding = next(b for b in bindings if b["role"] == PUBLISHER)
        binding["members"] = edit(binding["members"])
        policy["bindings"] = [b for b in bindings if b["members"]]
        _topics(d).setIamPolicy(resource=TOPIC, body={"policy": policy}).execute()

    return apply


CASES = [
    ("Secret Manager's publisher grant removed", _edit_publishers(lambda members: []), CheckId.drift_missing,
     "acme-tpu-secrets-rotation-publisher"),
    ("another publisher granted", _edit_publishers(lambda members: [*members, "user:mallory@example.com"]),
     CheckId.drift_unexpected, f"{PUBLISHER} user:mallory@example.com"),
    ("the topic deleted", lambda d: _topics(d).delete(topic=TOPIC).execute(), CheckId.drift_missing,
     "acme-tpu-secrets-rotation"),
]


@pytest.mark.parametrize(("what", "change", "check", "name"), CASES, ids=[c[0] for c in CASES])
def test_a_change_to_the_rotation_topic_is_drift(tpu_prod: Deployment, what: str,
                                                 change: Callable[[Deployment], None], check: CheckId,
                                                 name: str) -> None:
    change(tpu_prod)

    report = tpu_prod.verify()

    failed = [(r.check, r.name) for r in report.results if r.status is Status.failed]
    assert (check, name) in failed, failed
    assert CheckId.read_error not in {c for c, _ in failed}


def test_the_declared_topic_and_publisher_verify_clean(tpu_prod: Deployment) -> None:
    report = tpu_prod.verify()

    matched = {r.name for r in report.results if r.check == CheckId.drift_matched}
    assert {"acme-tpu-secrets-rotation", "acme-tpu-secrets-rotation-publisher"} <= matched
    assert not [r for r in report.results if r.check == CheckId.coverage and "pubsub" in r.message]
