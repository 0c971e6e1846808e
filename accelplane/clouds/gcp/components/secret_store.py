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
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_gcp.secretmanager as secretmanager

# Secret Manager's rule for secret ids: letters, digits, '-' and '_', at most 255 characters.
_SECRET_ID = re.compile(r"[A-Za-z0-9_-]{1,255}")


@dataclass(frozen=True)
class SecretSpec:
    name: str  # the declared name; the secret id is "<component name>-<name>"
    description: str = ""


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

    def __post_init__(self) -> None:
        unknown = sorted(set(self.values) - {spec.name for spec in self.secrets})
        if unknown:
            raise ValueError(f"values given for undeclared secrets: {', '.join(unknown)}")


class SecretStore(pulumi.ComponentResource):
    ids: dict[str, pulumi.Output[str]]  # declared name -> projects/<project>/secrets/<secret id>

    def __init__(self, name: str, args: SecretStoreArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:gcp:SecretStore", name, None, opts)
        self.ids = {}
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
                opts=pulumi.ResourceOptions(parent=self, protect=args.protect, depends_on=list(args.key_grants)),
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
