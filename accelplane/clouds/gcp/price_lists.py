"""The price lists Google Cloud's table is refreshed from (`PRICE_LISTS`, this cloud's
`accelplane.price_lists` entry point); the parsing is `price_refresh`, loaded when a refresh runs."""

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
    from accelplane.clouds.gcp.price_refresh import refresh

    return refresh(data, table, files, day)


PRICE_LISTS = CloudPriceLists(
    cloud="gcp",
    lists=(PriceList("--gcp-skus", "a Cloud Billing Catalog SKU listing (GET .../v1/services/<id>/skus: all pages "
                     "in one `skus` array, or one file per page)"),),
    refresh=_refresh,
)
