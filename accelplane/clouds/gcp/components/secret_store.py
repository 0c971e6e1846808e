"""`SecretStore`: Secret Manager secrets, replicated only in the platform's region, encrypted with its key.

- User-managed replication in `region` (data stays where the platform is; automatic replication
  would copy it to Google-chosen regions), with customer-managed encryption: the replica's key
  must be in that region, and Secret Manager's service agent must hold it before a secret is
  created (`key_grants`, the EncryptionKey's grant).
- Values never appear in the stack file: when `pulumi config set --secret
  accelplane:secret-<name>` holds one, the composition passes it and an initial version is
  created from it (a Pulumi secret, encrypted in state); otherwise the secret is created empty and
  an operator adds a version (`gcloud secrets versions add`).
- Nobody gets access here: each workload that lists a secret is granted `secretAccessor` on that
  secret alone (workload_access.py). `protect` in prod.
- A secret with a rotation period gets a rotation schedule: Secret Manager publishes a
  SECRET_ROTATE message to the secret's topics at its next rotation time, then every period
  ("Secret.topics must be set to configure rotation", the v1 API's Rotation). One topic per store,
  `<name>-rotation`, on which only Secret Manager's service agent may publish (granted before any
  secret names the topic: Secret Manager checks it can publish). The team's subscriber adds the new
  version. Google moves the next rotation time on at every notification, so `pulumi up` sets it only
  when the secret is created (`ignore_changes`), and the period is input-only in the API.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_gcp.pubsub as pubsub
import pulumi_gcp.secretmanager as secretmanager

# Secret Manager's rule for secret ids: letters, digits, '-' and '_', at most 255 characters.
_SECRET_ID = re.compile(r"[A-Za-z0-9_-]{1,255}")


@dataclass(frozen=True)
class SecretSpec:
    name: str  # the declared name; the secret id is "<component name>-<name>"
    description: str = ""
    rotation_days: int | None = None
    next_rotation_time: str | None = None  # RFC 3339 "Zulu", with rotation_days


@dataclass(frozen=True)
class SecretStoreArgs:
    secrets: Sequence[SecretSpec]
    region: str
    kms_key_id: pulumi.Input[str]
    # The secrets key's grant to Secret Manager's service agent (EncryptionKey.grant).
    key_grants: Sequence[pulumi.Resource]
    values: Mapping[str, pulumi.Input[str]]  # declared name -> value, only for those with one
    labels: Mapping[str, str]
    protect: bool
    # Secret Manager's service agent ("serviceAccount:service-<number>@gcp-sa-secretmanager..."):
    # the only publisher on the rotation topic.
    secret_manager_member: pulumi.Input[str] | None = None

    def __post_init__(self) -> None:
        unknown = sorted(set(self.values) - {spec.name for spec in self.secrets})
        if unknown:
            raise ValueError(f"values given for undeclared secrets: {', '.join(unknown)}")


class SecretStore(pulumi.ComponentResource):
    ids: dict[str, pulumi.Output[str]]  # declared name -> projects/<project>/secrets/<secret id>

    def __init__(self, name: str, args: SecretStoreArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:gcp:SecretStore", name, None, opts)
        self.ids = {}
        rotation = self._rotation_topic(name, args)
        for spec in args.secrets:
            secret_id = f"{name}-{spec.name}"
            if not _SECRET_ID.fullmatch(secret_id):
                raise ValueError(f"secret id {secret_id!r}: letters, digits, '-' and '_', at most 255 characters")
            secret = secretmanager.Secret(
                f"{name}-{spec.name}",
                secret_id=secret_id,
                replication={
                    "user_managed": {
                        "replicas": [
                            {"location": args.region, "customer_managed_encryption": {"kms_key_name": args.kms_key_id}}
                        ]
                    }
                },
                annotations={"description": spec.description} if spec.description else None,
                labels=dict(args.labels),
                topics=[{"name": rotation[0].id}] if rotation and spec.rotation_days else None,
                rotation=self._rotation_of(spec),
                opts=pulumi.ResourceOptions(
                    parent=self,
                    protect=args.protect,
                    depends_on=[*args.key_grants, *([rotation[1]] if rotation and spec.rotation_days else [])],
                    # Google advances it at every notification: set when the secret is created only.
                    ignore_changes=["rotation.nextRotationTime"] if spec.rotation_days else None,
                ),
            )
            value = args.values.get(spec.name)
            if value is not None:
                secretmanager.SecretVersion(
                    f"{name}-{spec.name}-value",
                    secret=secret.id,
                    secret_data=pulumi.Output.secret(value),
                    opts=pulumi.ResourceOptions(parent=self),
                )
            self.ids[spec.name] = secret.id
        self.register_outputs({"ids": self.ids})

    def _rotation_topic(
        self, name: str, args: SecretStoreArgs
    ) -> tuple[pubsub.Topic, pubsub.TopicIAMMember] | None:
        if not any(spec.rotation_days for spec in args.secrets):
            return None
        if args.secret_manager_member is None:
            raise ValueError("rotating secrets need secret_manager_member, the publisher on the rotation topic")
        topic = pubsub.Topic(
            f"{name}-rotation",
            name=f"{name}-rotation",
            labels=dict(args.labels),
            opts=pulumi.ResourceOptions(parent=self),
        )
        publisher = pubsub.TopicIAMMember(
            f"{name}-rotation-publisher",
            topic=topic.id,
            role="roles/pubsub.publisher",
            member=args.secret_manager_member,
            opts=pulumi.ResourceOptions(parent=self),
        )
        return topic, publisher

    @staticmethod
    def _rotation_of(spec: SecretSpec) -> secretmanager.SecretRotationArgsDict | None:
        if not spec.rotation_days:
            return None
        if spec.next_rotation_time is None:
            raise ValueError(f"secret {spec.name}: a rotation period needs a next rotation time")
        return {"next_rotation_time": spec.next_rotation_time, "rotation_period": f"{spec.rotation_days * 86400}s"}
