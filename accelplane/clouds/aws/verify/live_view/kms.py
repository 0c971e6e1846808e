"""KMS keys (found by their declared alias) and aliases."""

from __future__ import annotations

from accelplane.clouds.aws.verify.live_inventory import UNREADABLE
from accelplane.clouds.aws.verify.live_view.core import (
    ViewCore,
)


class KmsReader(ViewCore):
    """KMS keys (found by their declared alias) and aliases."""

    def _kms(self) -> None:
        keys = self.declared.of_type("aws:kms/key:Key")
        aliases = self.declared.of_type("aws:kms/alias:Alias")
        if self.inv.tagged is UNREADABLE:  # the keys are listed after the tagged resources: none was read
            self._unreadable([*keys, *aliases], "tag:GetResources failed")
            return
        if self.inv.kms_aliases is UNREADABLE:
            self._unreadable([*keys, *aliases], "kms:ListAliases failed")
            return
        alias_of_key = {a.props.get("targetKeyId"): a for a in aliases}
        matched_keys: set[str] = set()
        for resource in keys:
            alias = alias_of_key.get(resource.id)
            live_alias = self.inv.kms_aliases.get(alias.props.get("name")) if alias else None
            key_id = (live_alias or {}).get("TargetKeyId")
            entry = self.inv.kms_keys.get(key_id) if isinstance(key_id, str) else None
            if entry is None or not isinstance(key_id, str):
                if alias is None:
                    self.view.missing_reason[resource.urn] = "no declared alias to find it by"
                continue
            metadata, rotation, policy = entry.get("metadata"), entry.get("rotation"), entry.get("policy")
            if metadata is UNREADABLE or metadata is None:
                self._unreadable([resource], "kms:DescribeKey failed")
                continue
            matched_keys.add(key_id)
            props = {
                "description": metadata.get("Description"),
                "keyUsage": metadata.get("KeyUsage"),
                "customerMasterKeySpec": metadata.get("KeySpec"),
                "enableKeyRotation": rotation.get("KeyRotationEnabled") if rotation else rotation,
                "rotationPeriodInDays": rotation.get("RotationPeriodInDays") if rotation else None,
                "policy": policy,
                "tags": entry.get("tags") or {},
            }
            arn = metadata.get("Arn") or self._arn("kms", f"key/{key_id}")
            self._live(resource, resource.type, key_id, props, {"arn": arn, "keyId": key_id}, raw=entry)
        for resource in aliases:
            live_alias = self.inv.kms_aliases.get(resource.props.get("name"))
            if live_alias is not None:
                self._live(
                    resource,
                    resource.type,
                    live_alias["AliasName"],
                    {"name": live_alias["AliasName"], "targetKeyId": live_alias.get("TargetKeyId")},
                    {"arn": live_alias.get("AliasArn")},
                )
        # A declared key that could not be read may be any tagged key not matched: none is "unexpected" then.
        unread_keys = [resource for resource in keys if resource.urn in self.view.unreadable]
        for key_id, entry in self.inv.kms_keys.items():
            if key_id in matched_keys or not entry.get("tags") or unread_keys:
                continue
            state = (entry.get("metadata") or {}).get("KeyState")
            if state in ("PendingDeletion", "PendingReplicaDeletion"):
                continue
            self._unexpected(
                self._live(None, "aws:kms/key:Key", key_id, {"tags": entry.get("tags") or {}}),
                "a KMS key tagged with the platform that the declaration does not have",
            )
