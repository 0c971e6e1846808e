"""Hand-made changes to the deployed tpu-prod buckets and their grants, each made with a plain
google-api-python-client call on Cloud Storage (the real emulator), and each reported as the drift
it is: the check, the declared resource and the input."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from accelplane.verify.results import CheckId, Status
from tests.support.gcp_platform import Deployment

CHANGED, MISSING, UNEXPECTED = CheckId.drift_changed, CheckId.drift_missing, CheckId.drift_unexpected
CHECKPOINTS = "acme-tpu-checkpoints-bucket"
MODELS = "acme-tpu-model-artifacts-bucket"
PRETRAIN = (
    "principal://iam.googleapis.com/projects/314159265358/locations/global/workloadIdentityPools/"
    "acme-ml-tpu-prod.svc.id.goog/subject/ns/training/sa/pretrain"
)


def _buckets(d: Deployment):
    return d.client("storage").buckets()


def _patch(logical: str, body: dict) -> Callable[[Deployment], None]:
    return lambda d: _buckets(d).patch(bucket=d.live_name(logical), body=body).execute()


def _policy(logical: str, change: Callable[[list[dict]], list[dict]]) -> Callable[[Deployment], None]:
    def apply(d: Deployment) -> None:
        bucket = d.live_name(logical)
        policy = _buckets(d).getIamPolicy(bucket=bucket, optionsRequestedPolicyVersion=3).execute()
        policy["bindings"] = change(policy.get("bindings") or [])
        _buckets(d).setIamPolicy(bucket=bucket, body=policy).execute()

    return apply


def _add(role: str, member: str) -> Callable[[list[dict]], list[dict]]:
    return lambda bindings: [*bindings, {"role": role, "members": [member]}]


def _without_condition(bindings: list[dict]) -> list[dict]:
    return [{key: value for key, value in b.items() if key != "condition"} for b in bindings]


def _extra_bucket(d: Deployment) -> None:
    body = {"name": "acme-tpu-scratch", "labels": {"accelplane-platform": "acme-tpu"}}
    _buckets(d).insert(project=d.project, body=body).execute()
    _buckets(d).patch(bucket="acme-tpu-scratch", body=body).execute()


def _lifecycle(d: Deployment) -> None:
    bucket = _buckets(d).get(bucket=d.live_name(CHECKPOINTS)).execute()
    rules = bucket["lifecycle"]["rule"]
    _buckets(d).patch(bucket=d.live_name(CHECKPOINTS), body={"lifecycle": {"rule": rules[1:]}}).execute()


CASES = [
    ("versioning suspended", _patch(CHECKPOINTS, {"versioning": {"enabled": False}}), CHANGED, CHECKPOINTS,
     "versioning.enabled"),
    (
        "uniform bucket-level access off",
        _patch(CHECKPOINTS, {"iamConfiguration": {"uniformBucketLevelAccess": {"enabled": False},
                                                  "publicAccessPrevention": "enforced"}}),
        CHANGED,
        CHECKPOINTS,
        "uniformBucketLevelAccess",
    ),
    (
        "public access prevention inherited",
        _patch(MODELS, {"iamConfiguration": {"uniformBucketLevelAccess": {"enabled": True},
                                             "publicAccessPrevention": "inherited"}}),
        CHANGED,
        MODELS,
        "publicAccessPrevention",
    ),
    (
        "CMEK key changed",
        _patch(MODELS, {"encryption": {"defaultKmsKeyName": "projects/other/locations/us/keyRings/r/cryptoKeys/k"}}),
        CHANGED,
        MODELS,
        "encryption.defaultKmsKeyName",
    ),
    (
        "retention policy added",
        _patch(CHECKPOINTS, {"retentionPolicy": {"retentionPeriod": "2592000"}}),
        CHANGED,
        CHECKPOINTS,
        "retentionPolicy",
    ),
    ("lifecycle rule removed", _lifecycle, CHANGED, CHECKPOINTS, "lifecycleRules"),
    ("bucket label changed", _patch(MODELS, {"labels": {"owner": "someone"}}), CHANGED, MODELS, "labels"),
    ("bucket nobody declared", _extra_bucket, UNEXPECTED, "acme-tpu-scratch", ""),
    (
        "allUsers may read the model artifacts",
        _policy(MODELS, _add("roles/storage.objectViewer", "allUsers")),
        UNEXPECTED,
        "roles/storage.objectViewer allUsers",
        "",
    ),
    (
        "a user holds storage.admin on the checkpoints",
        _policy(CHECKPOINTS, _add("roles/storage.admin", "user:someone@example.com")),
        UNEXPECTED,
        "roles/storage.admin user:someone@example.com",
        "",
    ),
    (
        "prefix condition removed from a grant",
        _policy(CHECKPOINTS, _without_condition),
        CHANGED,
        "acme-tpu-pretrain-checkpoints",
        "condition",
    ),
    (
        "declared grant removed",
        _policy(CHECKPOINTS, lambda bindings: [b for b in bindings if PRETRAIN not in b["members"]]),
        MISSING,
        "acme-tpu-pretrain-checkpoints",
        "",
    ),
]


@pytest.mark.parametrize(
    ("change", "check", "name", "path"), [case[1:] for case in CASES], ids=[case[0] for case in CASES]
)
def test_bucket_drift_is_reported(tpu_prod, change, check, name, path):
    change(tpu_prod)
    report = tpu_prod.verify()
    failed = [r for r in report.results if r.status is Status.failed]
    hits = [
        r for r in failed
        if r.check == check and r.name == name and ((r.path or "").startswith(path) or r.message.startswith(path))
    ]
    assert hits, [f"{r.check} {r.name} {r.path}: {r.message}" for r in failed]
    assert CheckId.read_error not in {r.check for r in failed}, failed


def test_a_bucket_grant_with_its_declared_condition_beside_an_unconditional_copy(tpu_prod):
    """The conditional grant stays matched to the declaration; the unconditional copy is the extra."""
    _policy(CHECKPOINTS, lambda bindings: [*bindings, *_without_condition(bindings)])(tpu_prod)
    failed = [r for r in tpu_prod.verify().results if r.status is Status.failed]
    assert [(r.check, r.name) for r in failed] == [
        (UNEXPECTED, f"roles/storage.objectUser {PRETRAIN}")
    ], [f"{r.check} {r.name} {r.path}: {r.message}" for r in failed]
