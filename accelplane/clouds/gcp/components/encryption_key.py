"""`EncryptionKey`: a Cloud KMS crypto key with rotation, usable only by the service agents named.

The key encrypts on behalf of Google services (CMEK): GKE's agent for application-layer secrets
encryption, Cloud Storage's agent for buckets, Secret Manager's agent for secrets. Only those
agents get `roles/cloudkms.cryptoKeyEncrypterDecrypter`, and through an authoritative binding for
that role on this key: a member added by hand is removed on the next `pulumi up`. Workloads never
need the key: the service decrypts for whoever may read the object or secret.

`grant` is the binding resource: the composition passes it to the consumers' `key_grants`, because
creating a CMEK bucket, secret or cluster fails until the service agent may use the key.

Crypto keys cannot be deleted in Google Cloud: destroying one destroys its key versions (data
encrypted with them is lost) and leaves the name taken (see key_ring.py), hence `protect` in prod.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_gcp.kms as kms

ENCRYPTER_DECRYPTER_ROLE = "roles/cloudkms.cryptoKeyEncrypterDecrypter"
_SECONDS_PER_DAY = 86_400


@dataclass(frozen=True)
class EncryptionKeyArgs:
    key_ring_id: pulumi.Input[str]
    key_name: str
    # IAM members (`serviceAccount:service-<number>@...`) of the service agents that use the key.
    encrypter_decrypter_members: Sequence[pulumi.Input[str]]
    labels: Mapping[str, str]
    protect: bool
    rotation_days: int = 90
    # SOFTWARE or HSM (cloudkms.v1 CryptoKeyVersionTemplate.protectionLevel).
    protection_level: str = "SOFTWARE"

    def __post_init__(self) -> None:
        # Cloud KMS requires a rotation period of at least one day.
        if self.rotation_days < 1:
            raise ValueError(f"rotation_days must be at least 1, got {self.rotation_days}")


class EncryptionKey(pulumi.ComponentResource):
    key_id: pulumi.Output[str]
    key_name: pulumi.Output[str]
    grant: kms.CryptoKeyIAMBinding

    def __init__(self, name: str, args: EncryptionKeyArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:gcp:EncryptionKey", name, None, opts)
        key = kms.CryptoKey(
            f"{name}-key",
            name=args.key_name,
            key_ring=args.key_ring_id,
            purpose="ENCRYPT_DECRYPT",
            rotation_period=f"{args.rotation_days * _SECONDS_PER_DAY}s",
            version_template={
                "algorithm": "GOOGLE_SYMMETRIC_ENCRYPTION",
                "protection_level": args.protection_level,
            },
            labels=dict(args.labels),
            opts=pulumi.ResourceOptions(parent=self, protect=args.protect),
        )
        self.grant = kms.CryptoKeyIAMBinding(
            f"{name}-encrypter-decrypter",
            crypto_key_id=key.id,
            role=ENCRYPTER_DECRYPTER_ROLE,
            members=list(args.encrypter_decrypter_members),
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.key_id = key.id
        self.key_name = key.name
        self.register_outputs({"id": key.id})
