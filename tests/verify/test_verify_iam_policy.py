"""The read-only IAM policy documented for `verify` (docs/verify.md) allows every call verify makes,
and nothing verify never calls (least privilege)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from botocore import xform_name

from tests.verify.moto_platform import MotoPlatform

ROOT = Path(__file__).resolve().parents[2]
# botocore's service name -> the IAM service prefix, where they differ.
_PREFIX = {"elbv2": "elasticloadbalancing", "resourcegroupstaggingapi": "tag"}
# S3 API operations whose IAM action has another name.
_S3_ACTIONS = {
    "GetBucketEncryption": "GetEncryptionConfiguration",
    "GetPublicAccessBlock": "GetBucketPublicAccessBlock",
    "GetBucketLifecycleConfiguration": "GetLifecycleConfiguration",
    "ListObjectsV2": "ListBucket",
    "HeadObject": "GetObject",
    "GetObjectLockConfiguration": "GetBucketObjectLockConfiguration",
}
# Needed without being an API call of verify's: reading an SSE-KMS object (the checkpoint drill).
_IMPLIED = {"kms:Decrypt"}


def documented_actions() -> set[str]:
    text = (ROOT / "docs" / "verify.md").read_text()
    [block] = re.findall(r"```json\n(.*?)```", text, flags=re.S)
    return {action for statement in json.loads(block)["Statement"] for action in statement["Action"]}


def iam_action(operation: str) -> str:
    service, name = operation.split(".", 1)
    if service == "s3":
        name = _S3_ACTIONS.get(name, name)
    return f"{_PREFIX.get(service, service)}:{name}"


def test_the_documented_policy_allows_every_call_of_a_run(live_dev: MotoPlatform, run_verify: Any) -> None:
    report = run_verify(checkpoint_drill="checksum")
    called = {iam_action(op) for op in report.api_calls["by_operation"] if op != "sts.GetCallerIdentity"}
    called |= {iam_action(op) for op in run_verify().api_calls["by_operation"] if op != "sts.GetCallerIdentity"}

    assert called - documented_actions() == set()


def test_the_documented_policy_names_only_what_verify_calls() -> None:
    aws = ROOT / "accelplane" / "clouds" / "aws"
    source = "\n".join(path.read_text() for path in [*(aws / "verify").glob("*.py"), aws / "clients.py"])
    api_names = {v: k for k, v in _S3_ACTIONS.items() if k != "HeadObject"}  # IAM action -> API operation
    unused = {
        action
        for action in documented_actions() - _IMPLIED
        if not re.search(rf"\b{xform_name(api_names.get(action.split(':')[1], action.split(':')[1]))}\b", source)
    }

    assert unused == set()
