"""The price tables (each cloud's `prices.yaml`, in its folder): loaded, validated, looked up.

A table that does not parse, or a row without a price or with an unknown source, is an InputError
naming the file, line and field (exit 2). A missing type or region is not an error: the lookup
returns None and the estimate says "no price" (never 0).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from accelplane.config.yaml_source import YamlDocument, read_yaml
from accelplane.errors import InputError, Problem

TABLE_LIMIT = 4 * 1024 * 1024


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Source(_Model):
    url: str = Field(pattern=r"^https://\S+$")
    what: str = Field(min_length=1)


class HourlyPrice(_Model):
    on_demand: float = Field(gt=0, description="USD per hour.")
    source: str
    confirmed: bool = True


class UnitPrice(_Model):
    price: float = Field(ge=0, description="USD per unit.")
    source: str
    usage: str | None = Field(default=None, description="What is billed on top by usage (not estimated).")


class SpotBounds(_Model):
    low: float = Field(gt=0, le=1)
    high: float = Field(gt=0, le=1)
    source: str


class SpotSnapshot(_Model):
    taken: date
    source: str
    ranges: dict[str, tuple[float, float]] = Field(default_factory=dict, description="type: [lowest, highest] USD/h")


class RegionPrices(_Model):
    instances: dict[str, HourlyPrice] = Field(default_factory=dict)
    machine_types: dict[str, HourlyPrice] = Field(default_factory=dict)
    services: dict[str, UnitPrice] = Field(default_factory=dict)
    storage_gb_month: dict[str, UnitPrice] = Field(default_factory=dict)
    spot: SpotSnapshot | None = None

    def hourly(self, machine: str) -> HourlyPrice | None:
        return self.instances.get(machine) or self.machine_types.get(machine)


class Shape(_Model):
    series: str | None = None
    vcpus: int | None = Field(default=None, gt=0)
    memory_gb: float | None = Field(default=None, gt=0)
    gpus: int = Field(default=0, ge=0)
    gpu: str | None = None
    tpu: str | None = None
    chips: int = Field(default=0, ge=0)


class SkuMatch(_Model):
    description: str = Field(min_length=1)
    usage_type: str = "OnDemand"


class PriceTable(_Model):
    currency: str = Field(pattern=r"^USD$", description="USD only.")
    retrieved: date
    max_age_days: int = Field(gt=0)
    hours_per_month: float = Field(gt=0)
    sources: dict[str, Source]
    spot_bounds: SpotBounds
    shapes: dict[str, Shape] = Field(default_factory=dict)
    skus: dict[str, SkuMatch] = Field(default_factory=dict)
    unpriced: dict[str, str] = Field(default_factory=dict, description="type -> why it has no price")
    regions: dict[str, RegionPrices]

    @model_validator(mode="after")
    def _sources_known(self) -> PriceTable:
        named = [("spot_bounds", self.spot_bounds.source)]
        for region, prices in self.regions.items():
            for group in ("instances", "machine_types", "services", "storage_gb_month"):
                for key, row in getattr(prices, group).items():
                    named.append((f"regions.{region}.{group}.{key}", row.source))
            if prices.spot:
                named.append((f"regions.{region}.spot", prices.spot.source))
        unknown = [f"{where} names source {source!r}" for where, source in named if source not in self.sources]
        if unknown:
            raise ValueError("; ".join(unknown) + f" (sources: {', '.join(sorted(self.sources))})")
        return self

    def region(self, name: str) -> RegionPrices | None:
        return self.regions.get(name)

    def age_days(self, today: date) -> int:
        return (today - self.retrieved).days

    def stale(self, today: date) -> bool:
        return self.age_days(today) > self.max_age_days


def parse_table(document: YamlDocument) -> PriceTable:
    try:
        return PriceTable.model_validate(document.data)
    except ValidationError as error:
        problems = []
        for item in error.errors():
            parts = [part for part in item["loc"] if not (isinstance(part, str) and part.startswith("function-"))]
            problems.append(Problem(file=document.path, line=document.line_of(parts),
                                    field=".".join(str(p) for p in parts) or None,
                                    message=item["msg"].removeprefix("Value error, ")))
        raise InputError(problems) from None


def load_table(path: Path) -> PriceTable:
    return parse_table(read_yaml(path, limit=TABLE_LIMIT, option="price table"))


def source_of(table: PriceTable, key: str) -> dict[str, Any]:
    source = table.sources[key]
    return {"key": key, "url": source.url, "what": source.what}
