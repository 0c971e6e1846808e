"""The IAM analysis backed by cloudsplaining/policy_sentry: escalation paths and unknown actions."""

from __future__ import annotations

import pytest

from accelplane.clouds.aws.rules.iam import analysis
from accelplane.clouds.aws.rules.iam.analysis import escalation_paths, merged, unknown_actions


def _doc(*statements):
    return {"Version": "2012-10-17", "Statement": list(statements)}


def test_pass_role_with_run_instances_on_any_resource_is_an_escalation_path() -> None:
    paths = escalation_paths(_doc({"Effect": "Allow", "Action": ["iam:PassRole", "ec2:RunInstances"], "Resource": "*"}))
    assert ("CreateEC2WithExistingIP", ("iam:passrole", "ec2:runinstances")) in paths


def test_wildcard_prefixes_are_expanded() -> None:
    paths = {name for name, _ in escalation_paths(_doc({"Effect": "Allow", "Action": "iam:Put*", "Resource": "*"}))}
    assert "PutRolePolicy" in paths


def test_scoped_or_conditioned_permissions_are_not_escalation_paths() -> None:
    scoped = _doc({"Effect": "Allow", "Action": ["iam:PassRole", "ec2:RunInstances"],
                   "Resource": "arn:aws:iam::123456789012:role/node"})
    assert escalation_paths(scoped) == []


def test_full_wildcard_is_answered_without_expanding_every_action(monkeypatch: pytest.MonkeyPatch) -> None:
    """Expanding "*" in cloudsplaining takes ~0.7 s: an unrestricted full wildcard never reaches it."""

    def expanded(_text: str) -> None:
        raise AssertionError("cloudsplaining was asked to expand a full wildcard")

    monkeypatch.setattr(analysis, "_escalations", expanded)
    assert escalation_paths(_doc({"Effect": "Allow", "Action": "*", "Resource": "*"})) == [("AnyAction", ("*",))]
    assert escalation_paths(_doc({"Effect": "Allow", "NotAction": "iam:*", "Resource": "*"})) == [
        ("AnyAction", ("*",))]


def test_unknown_actions_are_typos_and_unknown_services() -> None:
    document = _doc({"Effect": "Allow", "Action": ["s3:GetObjects", "s3:Get*", "nosuch:Thing", "kms:Decrypt",
                                                   "s3:Zzz*", "*"], "Resource": "*"})
    assert sorted(unknown_actions(document)) == ["nosuch:Thing", "s3:GetObjects", "s3:Zzz*"]


def test_merged_document_combines_statements() -> None:
    a = _doc({"Effect": "Allow", "Action": "iam:PassRole", "Resource": "*"})
    b = _doc({"Effect": "Allow", "Action": "ec2:RunInstances", "Resource": "*"})
    assert escalation_paths(a) == [] and escalation_paths(b) == []
    assert escalation_paths(merged([a, b]))
