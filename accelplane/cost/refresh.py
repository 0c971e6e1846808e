"""`accelplane prices refresh`: new prices from price lists a user downloaded, written as tables to review.

AWS Price List bulk offer file (EC2, one region): `products` (sku -> productFamily, attributes) and
`terms.OnDemand` (sku -> offer -> priceDimensions -> pricePerUnit.USD). An instance's price is the
"Compute Instance" product with operatingSystem Linux, tenancy Shared, preInstalledSw NA,
capacitystatus Used and licenseModel "No License required"; gp3 storage is the "Storage" product
with volumeApiName gp3; a NAT gateway the "NAT Gateway" product's hourly dimension. The region is
the products' `regionCode`.

`aws ec2 describe-spot-price-history` output: `SpotPriceHistory` rows (InstanceType,
AvailabilityZone, ProductDescription, SpotPrice, Timestamp): the lowest and highest Linux/UNIX price
per type over the region's zones, dated by the newest row.

Cloud Billing Catalog SKU listing: `skus` (description, category.usageType, serviceRegions,
pricingInfo[0].pricingExpression.tieredRates: unitPrice {units, nanos}, the last tier's rate). A
machine type's price is built from its shape (`shapes`) and the SKUs `skus` names.

Only rows the table already knows are refreshed (a new instance type is added by hand with its
source first); every change is listed. A file that is not in the expected format is an InputError.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

import yaml

from accelplane.config.yaml_source import read_yaml
from accelplane.cost.cloud_pricing import table_path
from accelplane.cost.prices import TABLE_LIMIT, parse_table
from accelplane.errors import InputError
from accelplane.input_files import read_text

PRICE_LIST_LIMIT = 512 * 1024 * 1024  # a region's EC2 offer file is a few hundred MB
INSTANCE_FILTER = {"operatingSystem": "Linux", "tenancy": "Shared", "preInstalledSw": "NA",
                   "capacitystatus": "Used", "licenseModel": "No License required"}


def _json(path: Path, what: str) -> Any:
    text = read_text(path, limit=PRICE_LIST_LIMIT, option=what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError.single(f"not JSON ({error.msg})", file=str(path), line=error.lineno) from None


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


def _sku_rate(sku: Mapping[str, Any]) -> float | None:
    try:
        rates = sku["pricingInfo"][0]["pricingExpression"]["tieredRates"]
        unit = rates[-1]["unitPrice"]
        if unit.get("currencyCode", "USD") != "USD":
            return None
        return int(unit.get("units") or 0) + int(unit.get("nanos") or 0) / 1e9
    except (KeyError, IndexError, TypeError, ValueError):
        return None


def gcp_sku_rates(data: Any, path: str, matches: Mapping[str, Any], region: str) -> dict[str, float]:
    """Part key (`n2.core`) -> USD per unit-hour for the SKUs `matches` names that serve `region`."""
    skus = data.get("skus") if isinstance(data, Mapping) else None
    if not isinstance(skus, list):
        raise InputError.single("not a Cloud Billing Catalog SKU listing: expected `skus`", file=path)
    found: dict[str, float] = {}
    for sku in skus:
        if not isinstance(sku, Mapping) or region not in (sku.get("serviceRegions") or []):
            continue
        usage = (sku.get("category") or {}).get("usageType")
        for key, match in matches.items():
            if sku.get("description") == match.description and usage == match.usage_type:
                rate = _sku_rate(sku)
                if rate is not None:
                    found[key] = rate
    return found


def gcp_machine_price(shape: Any, rates: Mapping[str, float]) -> float | None:
    if shape.tpu:
        chip = rates.get(f"tpu.{shape.tpu}")
        return None if chip is None else round(chip * shape.chips, 6)
    core, ram = rates.get(f"{shape.series}.core"), rates.get(f"{shape.series}.ram")
    if core is None or ram is None or shape.vcpus is None or shape.memory_gb is None:
        return None
    price = core * shape.vcpus + ram * shape.memory_gb
    if shape.gpus:
        gpu = rates.get(f"gpu.{shape.gpu}")
        if gpu is None:
            return None
        price += gpu * shape.gpus
    return round(price, 6)


def _changes(old: Any, new: float, where: str) -> Iterator[str]:
    if old is None or abs(float(old) - new) > 1e-9:
        yield f"{where}: {old if old is not None else 'none'} -> {new:g}"


def refresh_tables(
    *, aws_offers: Sequence[Path] = (), aws_spot: Sequence[Path] = (), gcp_skus: Sequence[Path] = (),
    output_dir: Path | None = None, retrieved: str | None = None,
) -> list[str]:
    """Refresh the tables (each cloud's shipped one, or the copy in `output_dir`); returns the lines to
    print (each change, then each file written)."""
    day = date.fromisoformat(retrieved) if retrieved else date.today()
    lines: list[str] = []
    writes: list[tuple[Path, str, int]] = []  # every table is built before any is written
    for cloud, used in (("aws", aws_offers or aws_spot), ("gcp", gcp_skus)):
        if not used:
            continue
        shipped = table_path(cloud)
        out = output_dir / f"{cloud}.yaml" if output_dir else shipped
        source = out if out.is_file() else shipped
        document = read_yaml(source, limit=TABLE_LIMIT, option="price table")
        table = parse_table(document)
        data = copy.deepcopy(document.data)  # shared YAML anchors become independent regions
        data["regions"] = {name: copy.deepcopy(value) for name, value in data["regions"].items()}
        changed = (_refresh_aws(data, aws_offers, aws_spot, day) if cloud == "aws"
                   else _refresh_gcp(data, table, gcp_skus))
        lines.extend(changed)
        data["retrieved"] = day.isoformat()
        parse_table(type(document)(path=str(source), data=data, root=None))  # still a valid table
        header = "".join(line + "\n" for line in document_header(source))
        writes.append((out, header + yaml.safe_dump(data, sort_keys=False, width=120),
                       len(changed)))
    for out, text, count in writes:
        out.write_text(text, encoding="utf-8")
        lines.append(f"wrote {out} ({count} price(s) changed)")
    return lines


def document_header(path: Path) -> list[str]:
    """The table's leading comment block, kept across refreshes."""
    header = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        header.append(line)
    return header


def _refresh_aws(data: dict[str, Any], offers: Sequence[Path], spot: Sequence[Path], day: date) -> list[str]:
    lines: list[str] = []
    for path in offers:
        region, instances, services = aws_offer_prices(_json(path, "--aws-offer"), str(path))
        prices = data["regions"].get(region)
        if prices is None:
            raise InputError.single(f"region {region} is not in the table (regions: {', '.join(data['regions'])}); "
                                    "add it with its rows first", file=str(path))
        for kind, row in prices.get("instances", {}).items():
            if kind in instances:
                lines.extend(_changes(row.get("on_demand"), instances[kind], f"{region} {kind}"))
                row.update(on_demand=instances[kind], source="ec2_on_demand", confirmed=True)
        for key, price in services.items():
            row = prices.get("services", {}).get(key)
            if row is not None:
                lines.extend(_changes(row.get("price"), price, f"{region} {key}"))
                row["price"] = price
    for path in spot:
        region, taken, ranges = aws_spot_ranges(_json(path, "--aws-spot-history"), str(path))
        prices = data["regions"].get(region)
        if prices is None:
            raise InputError.single(f"region {region} is not in the table", file=str(path))
        known = {k: [v[0], v[1]] for k, v in ranges.items() if k in prices.get("instances", {})}
        prices["spot"] = {"taken": taken.isoformat(), "source": "ec2_spot", "ranges": known}
        lines.extend(f"{region} {kind} spot: {low:g}-{high:g}" for kind, (low, high) in sorted(known.items()))
    return lines


def _refresh_gcp(data: dict[str, Any], table: Any, paths: Sequence[Path]) -> list[str]:
    lines: list[str] = []
    for region, prices in data["regions"].items():
        rates: dict[str, float] = {}
        for path in paths:
            rates.update(gcp_sku_rates(_json(path, "--gcp-skus"), str(path), table.skus, region))
        for kind, row in prices.get("machine_types", {}).items():
            shape = table.shapes.get(kind)
            price = gcp_machine_price(shape, rates) if shape else None
            if price is not None:
                lines.extend(_changes(row.get("on_demand"), price, f"{region} {kind}"))
                row.update(on_demand=price, confirmed=True)
    return lines
