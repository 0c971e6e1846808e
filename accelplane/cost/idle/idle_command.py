"""`accelplane cost idle`: read each accelerator node's peak utilisation over its pool's window from
Prometheus, name the nodes that stayed below the pool's threshold, and price what releasing them saves.

Read-only: instant queries of Prometheus' HTTP API (a self-run Prometheus, or Google Cloud Managed
Service for Prometheus with the caller's credentials). The saving is the node's list price a month
(its machine at the pool's pricing, spot at the upper end of its range, the pool's discount, plus its
boot disk) from the shipped price tables.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime

from accelplane.cloud_support import Connection
from accelplane.config.loader import StackConfig
from accelplane.cost.cloud_pricing import builtin_table, cloud_pricing
from accelplane.cost.idle.queries import POOL_LABEL, node_pools, peak_utilisation
from accelplane.cost.idle_policy import accelerator_family as family
from accelplane.cost.idle_policy import idle_policy
from accelplane.declaration import CapacityType, NodePool, Platform
from accelplane.errors import InputError
from accelplane.prometheus_api import authorization_for, instant_samples, prometheus_url_problem

COMMAND = "accelplane cost idle"


@dataclass(frozen=True)
class NodeUse:
    node: str
    pool: str
    family: str
    peak_percent: float
    below_percent: float
    hours: int
    monthly_saving: float | None  # None: no price

    @property
    def idle(self) -> bool:
        return self.peak_percent < self.below_percent


@dataclass
class IdleReport:
    stack: str
    url: str
    at: datetime
    nodes: list[NodeUse] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def idle(self) -> list[NodeUse]:
        return [node for node in self.nodes if node.idle]

    @property
    def saving(self) -> float:
        return round(sum(node.monthly_saving or 0.0 for node in self.idle), 2)

    def summary_line(self) -> str:
        if not self.idle:
            return f"no idle accelerator node in stack {self.stack} ({len(self.nodes)} checked)"
        return (f"IDLE: {len(self.idle)} of {len(self.nodes)} accelerator nodes in stack {self.stack}; releasing "
                f"them saves ${self.saving:,.2f} a month")


def node_month(platform: Platform, pool: NodePool) -> float | None:
    """One node of `pool` for a month at list price (spot: the upper end of its range), with its disk."""
    cloud = platform.cloud
    table = builtin_table(cloud)
    prices = table.region(platform.region)
    row = prices.hourly(pool.instance_type) if prices else None
    if prices is None or row is None:
        return None
    hourly = row.on_demand
    if pool.capacity.type is CapacityType.spot:
        snapshot = prices.spot.ranges.get(pool.instance_type) if prices.spot else None
        hourly = snapshot[1] if snapshot else row.on_demand * table.spot_bounds.high
    if pool.capacity.discount is not None:
        hourly *= 1 - pool.capacity.discount.percent / 100
    node_disk = cloud_pricing(cloud).node_disk
    disk = prices.services.get(node_disk) if node_disk else None
    return round(hourly * table.hours_per_month + (pool.disk_gib * disk.price if disk else 0.0), 2)


def find_idle(stack: StackConfig, url: str, *, hours: int | None = None, connection: Connection | None = None,
              now: datetime | None = None) -> IdleReport:
    problem = prometheus_url_problem(url)
    if problem:
        raise InputError.single(problem, file=COMMAND, field="--prometheus-url")
    platform = stack.platform
    at = now or datetime.now(UTC)
    authorization = authorization_for(platform.cloud, url, connection or Connection())
    pools = {pool.name: pool for pool in platform.node_pools if family(pool.accelerator)}
    report = IdleReport(stack=stack.stack, url=url, at=at)
    if not pools:
        report.notes.append("the stack declares no accelerator pool")
        return report

    def ask(promql: str) -> list[tuple[dict[str, str], float]]:
        return instant_samples(url, promql, at, command=COMMAND, authorization=authorization)

    owner = {metric["node"]: metric[POOL_LABEL] for metric, _ in ask(node_pools())
             if metric.get("node") and metric.get(POOL_LABEL)}
    # One query per family and window (pools of a family usually share a window).
    windows: dict[tuple[str, int], list[str]] = defaultdict(list)
    for name, pool in pools.items():
        windows[(family(pool.accelerator) or "", hours or idle_policy(platform, pool).for_hours)].append(name)
    for (kind, window), names in sorted(windows.items()):
        for metric, peak in ask(peak_utilisation(kind, window)):
            node = metric.get("node", "")
            pool_name = owner.get(node)
            if pool_name not in names:
                continue
            pool = pools[pool_name]
            report.nodes.append(NodeUse(node=node, pool=pool_name, family=kind, peak_percent=round(peak, 2),
                                        below_percent=idle_policy(platform, pool).below_percent, hours=window,
                                        monthly_saving=node_month(platform, pool)))
    seen = {node.pool for node in report.nodes}
    report.notes += [f"pool {name}: no utilisation series for its nodes (none running, or not scraped)"
                     for name in sorted(set(pools) - seen)]
    report.nodes.sort(key=lambda n: (not n.idle, n.pool, n.node))
    return report
