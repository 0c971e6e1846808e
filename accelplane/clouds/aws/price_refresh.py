"""How AWS's price table is refreshed from price lists a user downloaded (`accelplane prices refresh`).

AWS Price List bulk offer file (EC2, one region): `products` (sku -> productFamily, attributes) and
`terms.OnDemand` (sku -> offer -> priceDimensions -> pricePerUnit.USD). An instance's price is the
"Compute Instance" product with operatingSystem Linux, tenancy Shared, preInstalledSw NA,
capacitystatus Used and licenseModel "No License required"; gp3 storage is the "Storage" product
with volumeApiName gp3; a NAT gateway the "NAT Gateway" product's hourly dimension. The region is
the products' `regionCode`.

`aws ec2 describe-spot-price-history` output: `SpotPriceHistory` rows (InstanceType,
AvailabilityZone, ProductDescription, SpotPrice, Timestamp): the lowest and highest Linux/UNIX price
per type over the region's zones, dated by the newest row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

from accelplane.cost.price_lists import price_changes, read_price_list
from accelplane.cost.prices import PriceTable
from accelplane.errors import InputError

OFFER, SPOT_HISTORY = "--aws-offer", "--aws-spot-history"
INSTANCE_FILTER = {"operatingSystem": "Linux", "tenancy": "Shared", "preInstalledSw": "NA",
                   "capacitystatus": "Used", "licenseModel": "No License required"}



def _usd(dimension: Mapping[str, Any]) -> float | None:
    try:
        return float((dimension.get("pricePerUnit") or {})["USD"])
    except (KeyError, TypeError, ValueError):
        return None


def aws_offer_prices(data: Any, path: str) -> tuple[str, dict[str, float], dict[str, float]]:
    """(region, instance type -> USD/hour, service key -> price) from one EC2 offer file."""
    if not isinstance(data, Mapping) or not isinstance(data.get("products"), Mapping) \
            or not isinstance((data.get("terms") or {}).get("OnDemand"), Mapping):
        raise InputError.single("not an AWS Price List offer file: expected `products` and `terms.OnDemand`",
                                file=path)
    on_demand = data["terms"]["OnDemand"]
    regions: set[str] = set()
    instances: dict[str, float] = {}
    services: dict[str, float] = {}
    for sku, product in data["products"].items():
        if not isinstance(product, Mapping):
            continue
        attributes = product.get("attributes") or {}
        if attributes.get("regionCode"):
            regions.add(str(attributes["regionCode"]))
        dimensions = [d for offer in (on_demand.get(sku) or {}).values() if isinstance(offer, Mapping)
                      for d in (offer.get("priceDimensions") or {}).values() if isinstance(d, Mapping)]
        prices = [p for p in (_usd(d) for d in dimensions) if p is not None and p > 0]
        if not prices:
            continue
        family = product.get("productFamily")
        if family == "Compute Instance" and all(attributes.get(k) == v for k, v in INSTANCE_FILTER.items()):
            instances[str(attributes.get("instanceType"))] = prices[0]
        elif family == "Storage" and attributes.get("volumeApiName") == "gp3":
            services["ebs_gp3_gb_month"] = prices[0]
        elif family == "NAT Gateway" and any(str(d.get("unit", "")).lower().startswith("hr") for d in dimensions):
            hourly = [_usd(d) for d in dimensions if str(d.get("unit", "")).lower().startswith("hr")]
            services["nat_gateway_hour"] = float(hourly[0] or 0) or prices[0]
    if len(regions) != 1:
        raise InputError.single(f"expected the offer file of one region, found {sorted(regions) or 'none'} "
                                "(products[].attributes.regionCode)", file=path)
    return regions.pop(), instances, services


def aws_spot_ranges(data: Any, path: str) -> tuple[str, date, dict[str, tuple[float, float]]]:
    rows = data.get("SpotPriceHistory") if isinstance(data, Mapping) else None
    if not isinstance(rows, list):
        raise InputError.single("not `aws ec2 describe-spot-price-history` output: expected SpotPriceHistory",
                                file=path)
    ranges: dict[str, list[float]] = {}
    regions: set[str] = set()
    newest: datetime | None = None
    for index, row in enumerate(rows):
        try:
            kind, zone, price = str(row["InstanceType"]), str(row["AvailabilityZone"]), float(row["SpotPrice"])
            taken = datetime.fromisoformat(str(row["Timestamp"]).replace("Z", "+00:00"))
        except (KeyError, TypeError, ValueError):
            raise InputError.single("expected InstanceType, AvailabilityZone, SpotPrice and Timestamp",
                                    file=path, field=f"SpotPriceHistory[{index}]") from None
        if not str(row.get("ProductDescription", "Linux/UNIX")).startswith("Linux/UNIX"):
            continue
        regions.add(zone[:-1])
        newest = taken if newest is None or taken > newest else newest
        low_high = ranges.setdefault(kind, [price, price])
        low_high[0], low_high[1] = min(low_high[0], price), max(low_high[1], price)
    if len(regions) != 1 or newest is None:
        raise InputError.single(f"expected Linux/UNIX spot prices of one region, found {sorted(regions) or 'none'}",
                                file=path)
    return regions.pop(), newest.date(), {k: (v[0], v[1]) for k, v in ranges.items()}



def refresh(data: dict[str, Any], table: PriceTable, files: Mapping[str, Sequence[Path]], day: date) -> list[str]:
    """Update the table's `data` in place from the offer files and spot histories; one line per change."""
    del table  # AWS rows are priced as the offer file lists them: no shapes to build prices from
    lines: list[str] = []
    for path in files.get(OFFER, ()):
        region, instances, services = aws_offer_prices(read_price_list(path, OFFER), str(path))
        prices = data["regions"].get(region)
        if prices is None:
            raise InputError.single(f"region {region} is not in the table (regions: {', '.join(data['regions'])}); "
                                    "add it with its rows first", file=str(path))
        for kind, row in prices.get("instances", {}).items():
            if kind in instances:
                lines.extend(price_changes(row.get("on_demand"), instances[kind], f"{region} {kind}"))
                row.update(on_demand=instances[kind], source="ec2_on_demand", confirmed=True)
        for key, price in services.items():
            row = prices.get("services", {}).get(key)
            if row is not None:
                lines.extend(price_changes(row.get("price"), price, f"{region} {key}"))
                row["price"] = price
    for path in files.get(SPOT_HISTORY, ()):
        region, taken, ranges = aws_spot_ranges(read_price_list(path, SPOT_HISTORY), str(path))
        prices = data["regions"].get(region)
        if prices is None:
            raise InputError.single(f"region {region} is not in the table", file=str(path))
        known = {k: [v[0], v[1]] for k, v in ranges.items() if k in prices.get("instances", {})}
        prices["spot"] = {"taken": taken.isoformat(), "source": "ec2_spot", "ranges": known}
        lines.extend(f"{region} {kind} spot: {low:g}-{high:g}" for kind, (low, high) in sorted(known.items()))
    return lines


