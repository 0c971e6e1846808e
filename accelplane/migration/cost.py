"""What a migration costs: `accelplane cost --stack <migration>`, offline, from both ends' plans priced as
`cost` prices any stack (each end's own cloud, region and price table).

- **Each end**: the whole stack a month (minimum / desired / maximum), and the service's own pools — the
  node pools its serving backends run on — at their desired size.
- **Each step** (0, then every declared step): the source serves 100 - w % of the requests and the target
  w %. Each end's service pools are sized to their share, `ceil(desired x share)` nodes within the pool's
  minimum and maximum (an end at 0 % keeps its minimum: it is still deployed), priced per node at the
  pool's desired-size price. The run rate of both together is the overlap a month; the step's cost is that
  rate over its bake time (the shortest a step lasts).
- **Cost per million requests**, where parity measured throughput on both ends (the golden set's figures,
  recorded on the source's main backend; each target backend's report): the hourly price of the backend's
  pool at its desired size over the requests an hour it sustained at the parity load's concurrency. It is
  what that load costs, an upper bound: a pool pushed harder serves more for the same price. For a
  completions API whose server reports `usage.completion_tokens`, per million generated tokens too.

A line the price table cannot price is named and never counted as 0. Nothing is read from a cloud:
reports kept in an object store are not read here (the note says so).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from accelplane.config.loader import StackConfig
from accelplane.cost.estimate import Estimate, LineItem
from accelplane.declaration.base import duration_seconds
from accelplane.migration.checks import end_service
from accelplane.migration.stack import MigrationStack
from accelplane.rollout.parity import golden, parity_report
from accelplane.rollout.parity.storage import LocalStore, project_root


@dataclass(frozen=True)
class PoolPrice:
    pool: str
    nodes: tuple[int, int, int]  # minimum, desired, maximum
    per_node_month: float | None  # at the desired size's price; None: unpriced

    def nodes_for(self, share: float) -> int:
        wanted = math.ceil(self.nodes[1] * share - 1e-9)
        return max(self.nodes[0], min(self.nodes[2], wanted))


@dataclass(frozen=True)
class EndCost:
    role: str
    stack: str
    service: str
    cloud: str
    region: str
    stack_monthly: tuple[float, float, float]
    pools: tuple[PoolPrice, ...]
    unpriced: tuple[str, ...]  # the stack's lines without a price
    hours_per_month: float

    def service_monthly(self, share: float) -> float | None:
        """The service's pools a month with `share` of the requests; None when a pool is unpriced."""
        total = 0.0
        for pool in self.pools:
            if pool.per_node_month is None:
                return None
            total += pool.nodes_for(share) * pool.per_node_month
        return round(total, 2)


@dataclass(frozen=True)
class StepCost:
    weight: int  # the target's
    source_monthly: float | None
    target_monthly: float | None
    bake_hours: float

    @property
    def overlap_monthly(self) -> float | None:
        if self.source_monthly is None or self.target_monthly is None:
            return None
        return round(self.source_monthly + self.target_monthly, 2)

    def step_cost(self, hours_per_month: float) -> float | None:
        overlap = self.overlap_monthly
        return None if overlap is None else round(overlap * self.bake_hours / hours_per_month, 2)


@dataclass(frozen=True)
class RequestCost:
    role: str
    backend: str
    pool: str
    throughput_rps: float
    concurrency: int | None
    per_million: float | None  # USD per million requests; None: unpriced pool
    tokens_per_second: float | None = None  # generated tokens (a completions server's usage), where counted
    per_million_tokens: float | None = None  # USD per million generated tokens


@dataclass
class MigrationCost:
    stack: str
    hostname: str
    source: EndCost
    target: EndCost
    steps: list[StepCost]
    requests: list[RequestCost] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _end(role: str, end: StackConfig, service_name: str, estimate: Estimate) -> EndCost:
    service = end_service(end, service_name)
    assert service is not None  # the loader's checks
    pools: list[PoolPrice] = []
    for name in dict.fromkeys(b.node_pool for b in service.serving_backends):
        items = [item for item in estimate.items if item.pool == name]
        nodes = [sum((item.nodes or (0, 0, 0))[i] for item in items) for i in range(3)]
        at = 1 if nodes[1] else 2
        pools.append(PoolPrice(name, (nodes[0], nodes[1], nodes[2]),
                               _unrounded(items, at, estimate.hours) / nodes[at]
                               if items and nodes[at] and not any(item.unpriced for item in items) else None))
    return EndCost(role=role, stack=end.stack, service=service.name, cloud=end.platform.cloud,
                   region=end.platform.region, stack_monthly=estimate.totals(), pools=tuple(pools),
                   unpriced=tuple(item.resource for item in estimate.unpriced()), hours_per_month=estimate.hours)


def _unrounded(items: list[LineItem], at: int, hours: float) -> float:
    """The lines' monthly cost at size `at`, unrounded (a line rounds to cents; a node's price must not)."""
    total = 0.0
    for item in items:
        parts = sum((part.monthly(hours) or (0.0, 0.0, 0.0))[at] for part in item.parts)
        total += parts * (item.discount.factor if item.discount else 1.0)
    return total


def migration_cost(stack: MigrationStack, estimate_of: Callable[[StackConfig], Estimate]) -> MigrationCost:
    migration = stack.migration
    source = _end("source", stack.source, migration.source.service, estimate_of(stack.source))
    target = _end("target", stack.target, migration.target.service, estimate_of(stack.target))
    bake_hours = duration_seconds(migration.bake) / 3600
    steps = [StepCost(weight, source.service_monthly(1 - weight / 100), target.service_monthly(weight / 100),
                      bake_hours if 0 < weight < 100 else 0.0)
             for weight in [0, *migration.steps]]
    found = MigrationCost(stack=stack.stack, hostname=migration.hostname, source=source, target=target, steps=steps)
    _request_costs(stack, found)
    return found


def _pool_hourly(end: EndCost, pool: str) -> float | None:
    price = next((p for p in end.pools if p.pool == pool), None)
    if price is None or price.per_node_month is None:
        return None
    return price.per_node_month * price.nodes[1] / end.hours_per_month


def _per_million(hourly: float | None, rps: float) -> float | None:
    return None if hourly is None or rps <= 0 else round(hourly / (rps * 3600) * 1_000_000, 2)


def _request_costs(stack: MigrationStack, found: MigrationCost) -> None:
    parity = stack.migration.parity
    if parity.golden.sha256 is None:
        found.notes.append("no cost per million requests: no golden set recorded yet (`accelplane migrate parity "
                           "--record` measures the source's throughput)")
        return
    if "://" in parity.golden.uri or "://" in parity.reports:
        found.notes.append("no cost per million requests: the golden set and reports live in an object store, "
                           "which `cost` does not read (it works offline)")
        return
    store = LocalStore(project_root(stack.source))
    data = store.read(parity.golden.uri)
    if data is None:
        found.notes.append(f"no cost per million requests: no golden set at {parity.golden.uri}")
        return
    header = golden.parse_golden(data, parity.golden.uri, expect_sha256=parity.golden.sha256).header
    recorded, figures = header.get("recorded") or {}, header.get("performance") or {}
    source_service = end_service(stack.source, stack.migration.source.service)
    target_service = end_service(stack.target, stack.migration.target.service)
    assert source_service is not None and target_service is not None  # the loader's checks
    backend = next((b for b in source_service.serving_backends if b.name == recorded.get("backend")), None)
    if backend is not None and figures.get("throughput_rps"):
        found.requests.append(_request_cost(found.source, backend.name, backend.node_pool, figures))
    for backend in [b for b in target_service.serving_backends if b.weight > 0]:
        report = store.read(parity_report.report_uri(parity, target_service, backend, parity.golden.sha256))
        performance = (json.loads(report).get("performance") or {}) if report else {}
        if performance.get("throughput_rps"):
            found.requests.append(_request_cost(found.target, backend.name, backend.node_pool, performance))
        else:
            found.notes.append(f"no throughput for the target's {backend.name!r} yet: `accelplane migrate parity` "
                               "measures it")


def _request_cost(end: EndCost, backend: str, pool: str, figures: dict[str, Any]) -> RequestCost:
    rps = float(figures["throughput_rps"])
    hourly = _pool_hourly(end, pool)
    tokens = figures.get("output_tokens_per_second")
    tps = float(tokens) if isinstance(tokens, (int, float)) and not isinstance(tokens, bool) else None
    return RequestCost(role=end.role, backend=backend, pool=pool, throughput_rps=rps,
                       concurrency=figures.get("concurrency"), per_million=_per_million(hourly, rps),
                       tokens_per_second=tps, per_million_tokens=_per_million(hourly, tps) if tps else None)
