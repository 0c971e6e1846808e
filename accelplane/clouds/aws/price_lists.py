"""The price lists AWS's table is refreshed from (`PRICE_LISTS`, this cloud's `accelplane.price_lists`
entry point); the parsing is `price_refresh`, loaded when a refresh runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from accelplane.cost.price_lists import CloudPriceLists, PriceList

if TYPE_CHECKING:
    from accelplane.cost.prices import PriceTable


def _refresh(data: dict[str, Any], table: PriceTable, files: Mapping[str, Sequence[Path]], day: date) -> list[str]:
    # Start-up time: the command line is built with every cloud's lists; the parsing loads on use.
    from accelplane.clouds.aws.price_refresh import refresh

    return refresh(data, table, files, day)


PRICE_LISTS = CloudPriceLists(
    cloud="aws",
    lists=(
        PriceList("--aws-offer", "an AWS Price List bulk offer file for EC2 in one region (https://pricing."
                  "us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/<region>/index.json)"),
        PriceList("--aws-spot-history", "the JSON of `aws ec2 describe-spot-price-history` (one region)"),
    ),
    refresh=_refresh,
)
