"""`KeyRing`: the Cloud KMS key ring the platform's keys live in. The composition creates it once.

Key rings (and crypto keys) can never be deleted in Google Cloud
(https://cloud.google.com/kms/docs/resource-hierarchy#lifetime): destroying one only removes it
from Pulumi's state, and its name stays taken in that project and location for ever. So the ring
is retained on delete (saying what really happens) and protected in prod; a stack re-created
after a destroy must `pulumi import` the existing ring (and keys) under the same names, or use new
names. Keys must live in the location of what they encrypt: the ring's location is the platform
region (a regional GKE cluster, regional buckets and secret replicas in that region).
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_gcp.kms as kms


@dataclass(frozen=True)
class KeyRingArgs:
    key_ring_name: str
    location: str
    protect: bool


class KeyRing(pulumi.ComponentResource):
    key_ring_id: pulumi.Output[str]
    key_ring_name: pulumi.Output[str]

    def __init__(self, name: str, args: KeyRingArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:gcp:KeyRing", name, None, opts)
        ring = kms.KeyRing(
            f"{name}-ring",
            name=args.key_ring_name,
            location=args.location,
            opts=pulumi.ResourceOptions(parent=self, protect=args.protect, retain_on_delete=True),
        )
        self.key_ring_id = ring.id
        self.key_ring_name = ring.name
        self.register_outputs({"id": ring.id})
