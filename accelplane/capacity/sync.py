"""Pools that follow the life of the capacity they were bought for: a pool on bought capacity holds no
node before the capacity is active, its declared size while it is, and none again from shortly before
its end (each cloud says how long before: `CapacityLife.drain_before_end`), so pods drain before the
cloud reclaims the machines. `accelplane capacity sync` reads each such pool's capacity and its live
size and sets the size the capacity's life calls for; the shipped workflow runs it every 15 minutes.

A command rather than the platform's own scheduled scaling, where a cloud has one: a schedule declared
in the program cannot follow a life the cloud reports (a start that moves, an early end), and one-time
scheduled actions in the past are refused or gone once run (each cloud's module says why for its own).
The command reads the state each time instead, with an explicit `--now` in tests and reruns.

The facet a cloud offers (`accelplane.capacity_sync`) reads the lives and live sizes and sets sizes;
what size each life calls for is decided here, the same on every cloud.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from accelplane.cloud_support import Connection, cloud_facet
from accelplane.declaration import NodePool, Platform

SYNC_GROUP = "accelplane.capacity_sync"


@dataclass(frozen=True)
class CapacityLife:
    """What the pool's bought capacity is now, as its cloud reports it."""

    what: str  # e.g. "capacity block cr-0123... (cb-...)"
    state: str  # the cloud's own word: scheduled, active, expired, payment-pending ...
    active: bool  # the cloud says its instances can run now
    start: datetime | None
    end: datetime | None
    instances: int  # how many it holds
    drain_before_end: timedelta  # stop holding nodes this long before the end
    # What one of its machines costs an hour, paid whether a node uses it or not (None: not known).
    machine_hour_usd: float | None = None


@dataclass(frozen=True)
class PoolCapacity:
    pool: NodePool
    life: CapacityLife | None  # None: the cloud has no such capacity (not bought yet, or not found)
    live_size: int | None  # the pool's desired size now; None where the pool does not exist yet


@dataclass(frozen=True)
class SyncRow:
    pool: str
    what: str
    state: str
    start: datetime | None
    end: datetime | None
    live_size: int | None
    size: int  # what the capacity's life calls for now
    why: str
    action: str  # "none", "set", "would set"
    # Machines of active capacity no node uses now (billed all the same), and what they cost an hour.
    idle: int = 0
    idle_hour_usd: float | None = None


def size_for(pool: NodePool, life: CapacityLife | None, now: datetime) -> tuple[int, str]:
    """(size, why) the pool should have at `now`."""
    if life is None:
        return 0, "no bought capacity found: the pool holds no node"
    if not life.active:
        when = f" until {life.start:%Y-%m-%dT%H:%M:%SZ}" if life.start and life.start > now else ""
        return 0, f"{life.state}{when}: no node yet" if when else f"{life.state}: no node"
    if life.end is not None and now >= life.end - life.drain_before_end:
        return 0, (f"ends {life.end:%Y-%m-%dT%H:%M:%SZ}: drained from "
                   f"{life.end - life.drain_before_end:%Y-%m-%dT%H:%M:%SZ}")
    size = min(pool.scaling.max, life.instances)
    until = f" until {life.end - life.drain_before_end:%Y-%m-%dT%H:%M:%SZ}" if life.end else ""
    return size, f"active: {size} node(s){until}"


@dataclass(frozen=True)
class CapacitySync:
    """A cloud's reads and writes for `capacity sync` (`accelplane.capacity_sync` entry point)."""

    cloud: str
    declared_as: str  # the pool's key that buys capacity, for messages (e.g. capacity.block)
    # The declaration's pools on bought capacity (nothing read: a stack with none is refused offline).
    pools: Callable[[Platform], list[NodePool]]
    # Read-only: each pool on bought capacity with its life and live size, and where it looked.
    read: Callable[[Platform, Connection], tuple[list[PoolCapacity], str]]
    # Sets a pool's size (its node group's desired size, between 0 and the pool's maximum).
    resize: Callable[[Platform, Connection, NodePool, int], None]


def sync_of(cloud: str) -> CapacitySync | None:
    return cloud_facet(SYNC_GROUP, cloud, CapacitySync)


def plan_rows(found: list[PoolCapacity], now: datetime, apply: bool) -> list[SyncRow]:
    rows = []
    for entry in found:
        size, why = size_for(entry.pool, entry.life, now)
        life = entry.life
        differs = entry.live_size is not None and entry.live_size != size
        idle = 0
        if life is not None and life.active:
            # Set now: the size; said only: what runs. Either way, the block bills all it holds.
            used = size if differs and apply else (entry.live_size or 0)
            idle = max(0, life.instances - used)
        cost = round(idle * life.machine_hour_usd, 2) if life and life.machine_hour_usd is not None else None
        rows.append(SyncRow(pool=entry.pool.name, what=life.what if life else "none found",
                            state=life.state if life else "-", start=life.start if life else None,
                            end=life.end if life else None, live_size=entry.live_size, size=size, why=why,
                            action=("set" if apply else "would set") if differs else "none", idle=idle,
                            idle_hour_usd=cost if idle else None))
    return rows
