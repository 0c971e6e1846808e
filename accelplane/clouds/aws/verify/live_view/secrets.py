"""Secrets Manager secrets, their policies, versions and rotation (values are never read)."""

from __future__ import annotations

from accelplane.clouds.aws.verify.live_inventory import UNREADABLE, tags_of
from accelplane.clouds.aws.verify.live_view.core import (
    ViewCore,
)
from accelplane.rules.view import Resource


class SecretsReader(ViewCore):
    """Secrets Manager secrets, their policies and versions (values are never read)."""

    def _secrets(self) -> None:
        declared = self.declared.of_type("aws:secretsmanager/secret:Secret")
        policies = self.declared.of_type("aws:secretsmanager/secretPolicy:SecretPolicy")
        versions = self.declared.of_type("aws:secretsmanager/secretVersion:SecretVersion")
        rotations = self.declared.of_type("aws:secretsmanager/secretRotation:SecretRotation")
        if not declared:
            return
        if self.inv.secrets is UNREADABLE:
            self._unreadable([*declared, *policies, *versions, *rotations], "secretsmanager:ListSecrets failed")
            return
        claimed: set[str] = set()
        for resource in declared:
            name, prefix = resource.props.get("name"), resource.props.get("namePrefix") or ""
            candidates = sorted(
                (
                    s
                    for s in self.inv.secrets
                    if s["ARN"] not in claimed and (s["Name"] == name if name else s["Name"].startswith(prefix))
                ),
                key=lambda s: (s.get("DeletedDate") is not None, s["Name"]),
            )
            if not candidates:
                continue
            secret = candidates[0]
            claimed.add(secret["ARN"])
            if secret.get("DeletedDate"):
                self.view.missing_reason[resource.urn] = (
                    f"{secret['Name']} is scheduled for deletion (deleted {secret['DeletedDate']}); "
                    "restore it with `aws secretsmanager restore-secret`"
                )
                continue
            props = {
                "name": secret["Name"],
                "description": secret.get("Description"),
                "kmsKeyId": secret.get("KmsKeyId"),
                "tags": tags_of(secret.get("Tags")),
            }
            self._live(
                resource,
                resource.type,
                secret["ARN"],
                props,
                {"arn": secret["ARN"], "name": secret["Name"]},
                raw=secret,
            )
        for secret in self.inv.secrets:
            if secret["ARN"] not in claimed and not secret.get("DeletedDate"):
                self._unexpected(
                    self._live(
                        None,
                        "aws:secretsmanager/secret:Secret",
                        secret["ARN"],
                        {"name": secret["Name"], "tags": tags_of(secret.get("Tags"))},
                        {"arn": secret["ARN"]},
                    ),
                    "a secret tagged with the platform that the declaration does not have",
                )
        for resource in policies:
            arn = self._live_ref(resource.props.get("secretArn"))
            if not arn:
                continue
            policy = self.inv.secret_policies.get(arn)
            if policy is UNREADABLE:
                self._unreadable([resource], "secretsmanager:GetResourcePolicy failed")
            elif policy:
                self._live(resource, resource.type, arn, {"secretArn": arn, "policy": policy})
        for resource in versions:
            arn = self._live_ref(resource.props.get("secretId"))
            secret = next((s for s in self.inv.secrets if s["ARN"] == arn), None)
            stages = (secret or {}).get("SecretVersionsToStages") or {}
            current = next((v for v, s in stages.items() if "AWSCURRENT" in s), None)
            if current:
                # Only the version's existence: its value is never read.
                self._live(resource, resource.type, f"{arn}|{current}", {"secretId": arn, "versionId": current})
        for resource in rotations:
            self._rotation(resource)

    def _rotation(self, resource: Resource) -> None:
        """A secret's rotation as ListSecrets reports it (RotationEnabled, RotationLambdaARN,
        RotationRules): turned off (`cancel-rotate-secret`) it is missing, with why."""
        arn = self._live_ref(resource.props.get("secretId"))
        secret = next((s for s in self.inv.secrets if s["ARN"] == arn), None) if arn else None
        if arn is None or secret is None:
            return
        if not secret.get("RotationEnabled"):
            self.view.missing_reason[resource.urn] = (
                f"rotation of {secret['Name']} is off (RotationEnabled false: cancelled, or never turned on)"
            )
            return
        rules = secret.get("RotationRules") or {}
        live_rules = {
            key: value
            for key, value in (
                ("automaticallyAfterDays", rules.get("AutomaticallyAfterDays")),
                ("duration", rules.get("Duration")),
                ("scheduleExpression", rules.get("ScheduleExpression")),
            )
            if value not in (None, "")
        }
        props = {"secretId": arn, "rotationLambdaArn": secret.get("RotationLambdaARN"), "rotationRules": live_rules}
        self._live(resource, resource.type, arn, props)
