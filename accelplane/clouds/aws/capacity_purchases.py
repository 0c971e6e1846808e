"""AWS's capacity purchases (`accelplane.purchases` entry point): an EC2 Capacity Block for ML, bought by
its offering id and platform, both force-new in the provider (terraform-provider-aws
ec2_capacity_block_reservation.go: `RequiresReplace`; its delete is a no-op, as AWS cancels no block)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelplane.capacity.purchases import Purchases
from accelplane.clouds.aws.capacity_terms import TaggedTerms
from accelplane.clouds.aws.resource_types import CAPACITY_BLOCK
from accelplane.node_labels import POOL_LABEL


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _describe(resource: Mapping[str, Any]) -> str:
    inputs = _mapping(resource.get("inputs"))
    tags = _mapping(inputs.get("tags"))
    terms = TaggedTerms.of(tags)
    offering = inputs.get("capacityBlockOfferingId") or "?"
    fee = f", ${terms.upfront_usd:,.2f} upfront" if terms.upfront_usd is not None else ""
    pool = f" for pool {tags[POOL_LABEL]}" if tags.get(POOL_LABEL) else ""
    approval = (f", approved by {terms.approved_by} on {terms.approved_on}" if terms.approved_by
                else ", not approved")
    return f"capacity block {offering}{pool} ({terms.dates()}{fee}{approval})"


PURCHASES = Purchases(cloud="aws", types={CAPACITY_BLOCK: ("capacityBlockOfferingId", "instancePlatform")},
                      describe=_describe)
