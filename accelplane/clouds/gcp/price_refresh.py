"""How Google Cloud's price table is refreshed from price lists a user downloaded (`accelplane prices
refresh`).

Cloud Billing Catalog SKU listing: `skus` (description, category.usageType, serviceRegions,
pricingInfo[0].pricingExpression.tieredRates: unitPrice {units, nanos}, the last tier's rate). A
machine type's price is built from its shape (`shapes`) and the SKUs `skus` names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from accelplane.cost.price_lists import price_changes, read_price_list
from accelplane.cost.prices import PriceTable
from accelplane.errors import InputError

SKUS = "--gcp-skus"


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



def refresh(data: dict[str, Any], table: PriceTable, files: Mapping[str, Sequence[Path]], day: date) -> list[str]:
    """Update the table's `data` in place: each machine type's price built from its shape and the SKUs."""
    del day  # the table's `retrieved` date is set by the caller
    lines: list[str] = []
    for region, prices in data["regions"].items():
        rates: dict[str, float] = {}
        for path in files.get(SKUS, ()):
            rates.update(gcp_sku_rates(read_price_list(path, SKUS), str(path), table.skus, region))
        for kind, row in prices.get("machine_types", {}).items():
            shape = table.shapes.get(kind)
            price = gcp_machine_price(shape, rates) if shape else None
            if price is not None:
                lines.extend(price_changes(row.get("on_demand"), price, f"{region} {kind}"))
                row.update(on_demand=price, confirmed=True)
    return lines
