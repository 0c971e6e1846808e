"""The monthly estimate of an offline plan: one line per billable resource, node pools at their
minimum, desired and maximum size.

It reads the plan's resources (type token, name, inputs), the same document `preview --json`
writes, so a base and a head revision are priced alike (`diff`) and the budget rule needs nothing
but the graph. The pool's billing facts travel on the pool's own resources: the pool label, spot or
reservation (capacity type, launch template or reservation affinity) and a declared discount (node
label `accelplane.io/discount`, `kind-percent`, on both clouds: accelplane.node_labels).

Prices: `prices.PriceTable`, per hour or per month; a month is the table's `hours_per_month`. A type
or region the table lacks has no price: the line says so and the totals say how many lines are
unpriced, never treating them as 0. Spot has no single price: a pool on spot is priced at the upper
end of its range (a snapshot's highest, else the documented bound) and shows the range.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatch
from typing import Any

from accelplane.cost.prices import PriceTable, RegionPrices

SIZES = ("minimum", "desired", "maximum")
DISCOUNT_LABEL = "accelplane.io/discount"
POOL_LABEL = "accelplane.io/pool"


@dataclass(frozen=True)
class Discount:
    kind: str  # savings_plan | committed_use
    percent: float

    @classmethod
    def parse(cls, text: Any) -> Discount | None:
        """`savings_plan-28`, `committed_use-37.5` (a node label value); anything else is no discount."""
        if not isinstance(text, str):
            return None
        kind, _, percent = text.rpartition("-")
        try:
            value = float(percent)
        except ValueError:
            return None
        return cls(kind=kind, percent=value) if kind and 0 < value < 100 else None

    @property
    def factor(self) -> float:
        return 1 - self.percent / 100


@dataclass(frozen=True)
class Part:
    """One priced part of a line: `count` units at `unit_price` per `unit` (per hour or per month)."""

    what: str
    counts: tuple[float, float, float]  # minimum, desired, maximum
    unit_price: float | None
    unit: str  # "hour" or "month"
    source: str | None
    confirmed: bool = True

    def monthly(self, hours: float) -> tuple[float, float, float] | None:
        if self.unit_price is None:
            return None
        per = self.unit_price * (hours if self.unit == "hour" else 1)
        return (self.counts[0] * per, self.counts[1] * per, self.counts[2] * per)


@dataclass(frozen=True)
class LineItem:
    resource: str  # the plan's resource name (the URN's last part)
    type: str
    kind: str  # what it is, in words
    parts: tuple[Part, ...]
    pool: str | None = None
    machine: str | None = None
    nodes: tuple[int, int, int] | None = None
    pricing: str = "on-demand"  # on-demand | spot | reservation
    discount: Discount | None = None
    spot_range: tuple[float, float] | None = None  # USD per node-hour, low..high
    usage: str | None = None  # billed by usage on top, not estimated
    note: str | None = None

    def monthly(self, hours: float) -> tuple[float, float, float] | None:
        total = [0.0, 0.0, 0.0]
        for part in self.parts:
            value = part.monthly(hours)
            if value is None:
                return None
            total = [a + b for a, b in zip(total, value, strict=True)]
        factor = self.discount.factor if self.discount else 1.0
        return (round(total[0] * factor, 2), round(total[1] * factor, 2), round(total[2] * factor, 2))

    @property
    def unpriced(self) -> list[str]:
        return [part.what for part in self.parts if part.unit_price is None]


@dataclass(frozen=True)
class Estimate:
    cloud: str
    region: str
    table: PriceTable
    items: tuple[LineItem, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def hours(self) -> float:
        return self.table.hours_per_month

    def totals(self) -> tuple[float, float, float]:
        total = [0.0, 0.0, 0.0]
        for item in self.items:
            value = item.monthly(self.hours)
            if value is not None:
                total = [a + b for a, b in zip(total, value, strict=True)]
        return (round(total[0], 2), round(total[1], 2), round(total[2], 2))

    def unpriced(self) -> list[LineItem]:
        return [item for item in self.items if item.monthly(self.hours) is None]

    def at(self, size: str) -> float:
        return self.totals()[SIZES.index(size)]

    def by_pool(self) -> dict[str, tuple[float, float, float] | None]:
        """Monthly cost per declared pool; a pool of several node pools (TPU slices) summed."""
        pools: dict[str, tuple[float, float, float] | None] = {}
        for item in self.items:
            if item.pool is None:
                continue
            value = item.monthly(self.hours)
            known = pools.get(item.pool, (0.0, 0.0, 0.0)) if item.pool not in pools or pools[item.pool] else None
            pools[item.pool] = None if value is None or known is None else \
                (round(known[0] + value[0], 2), round(known[1] + value[1], 2), round(known[2] + value[2], 2))
        return pools


def estimate_plan(
    document: Mapping[str, Any], cloud: str, region: str, table: PriceTable,
    declared_desired: Mapping[str, int] | None = None,
) -> Estimate:
    """`document`: the plan as `preview --json` writes it (`resources`: type, urn, inputs, outputs).
    `declared_desired`: pool name -> the declaration's desired size, for a GKE pool the autoscaler
    sizes (the plan holds only the size it is created at: `initialNodeCount` per zone)."""
    resources = [r for r in document.get("resources", []) if isinstance(r, Mapping)]
    prices = table.region(region)
    notes: list[str] = []
    if prices is None:
        known = ", ".join(sorted(table.regions))
        notes.append(f"no prices for region {region} in the {cloud} table (regions: {known})")
        prices = RegionPrices()
    pricer = (_AwsPricer(resources, prices, table) if cloud == "aws"
              else _GcpPricer(resources, prices, table, declared_desired or {}))
    items = tuple(sorted(pricer.items(), key=lambda i: (i.pool is None, i.kind, i.resource)))
    return Estimate(cloud=cloud, region=region, table=table, items=items, notes=tuple(notes))


def plan_region(resources: Iterable[Mapping[str, Any]], cloud: str) -> str | None:
    """The region a plan's resources live in: an AWS subnet's zone less its letter, or the GKE
    cluster's location (a zone's region)."""
    for resource in resources:
        inputs = _inputs(resource)
        if cloud == "aws" and resource.get("type") == "aws:ec2/subnet:Subnet":
            zone = inputs.get("availabilityZone")
            if isinstance(zone, str) and zone[-1:].isalpha():
                return zone[:-1]
        if cloud == "gcp" and resource.get("type") == "gcp:container/cluster:Cluster":
            location = inputs.get("location")
            if isinstance(location, str) and location:
                parts = location.split("-")
                return "-".join(parts[:2]) if len(parts) > 2 else location
    return None


def _name(resource: Mapping[str, Any]) -> str:
    return str(resource.get("urn", "")).rsplit("::", 1)[-1] or str(resource.get("name", ""))


def _inputs(resource: Mapping[str, Any]) -> Mapping[str, Any]:
    value = resource.get("inputs")
    return value if isinstance(value, Mapping) else {}


def _int(value: Any, default: int = 0) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


class _Pricer:
    def __init__(self, resources: Sequence[Mapping[str, Any]], prices: RegionPrices, table: PriceTable) -> None:
        self.resources = resources
        self.prices = prices
        self.table = table

    def service(self, key: str, what: str, counts: tuple[float, float, float], unit: str) -> Part:
        row = self.prices.services.get(key)
        return Part(what, counts, row.price if row else None, unit, row.source if row else None)

    def usage_of(self, key: str) -> str | None:
        row = self.prices.services.get(key)
        return row.usage if row else None

    def machine_part(
        self, machine: str, nodes: tuple[int, int, int], spot: bool
    ) -> tuple[Part, tuple[float, float] | None]:
        row = self.prices.hourly(machine)
        if row is None:
            why = next((reason for key, reason in self.table.unpriced.items() if fnmatch(machine, key)), None)
            return Part(f"{machine} (no price{': ' + why if why else ''})", _floats(nodes), None, "hour", None), None
        if not spot:
            return Part(machine, _floats(nodes), row.on_demand, "hour", row.source, row.confirmed), None
        snapshot = self.prices.spot.ranges.get(machine) if self.prices.spot else None
        if snapshot:
            low, high = snapshot
            source = self.prices.spot.source if self.prices.spot else None
        else:
            bounds = self.table.spot_bounds
            low, high, source = row.on_demand * bounds.low, row.on_demand * bounds.high, bounds.source
        return Part(f"{machine} spot (upper end of its range)", _floats(nodes), round(high, 6), "hour", source,
                    row.confirmed), (round(low, 6), round(high, 6))

    def each(self, type_token: str) -> Iterable[Mapping[str, Any]]:
        return (r for r in self.resources if r.get("type") == type_token)

    def items(self) -> Iterable[LineItem]:
        raise NotImplementedError


def _floats(nodes: tuple[int, int, int]) -> tuple[float, float, float]:
    return (float(nodes[0]), float(nodes[1]), float(nodes[2]))


ONE = (1.0, 1.0, 1.0)


class _AwsPricer(_Pricer):
    def items(self) -> Iterable[LineItem]:
        templates = {str((r.get("outputs") or {}).get("id") or r.get("id") or ""): _inputs(r)
                     for r in self.each("aws:ec2/launchTemplate:LaunchTemplate")}
        for group in self.each("aws:eks/nodeGroup:NodeGroup"):
            yield self._node_group(group, templates)
        simple = (
            ("aws:eks/cluster:Cluster", "EKS cluster", "eks_cluster_hour", "hour"),
            ("aws:ec2/natGateway:NatGateway", "NAT gateway", "nat_gateway_hour", "hour"),
            ("aws:ec2/eip:Eip", "public IPv4 address", "public_ipv4_hour", "hour"),
            ("aws:lb/loadBalancer:LoadBalancer", "load balancer", "alb_hour", "hour"),
            ("aws:kms/key:Key", "KMS key", "kms_key_month", "month"),
            ("aws:secretsmanager/secret:Secret", "secret", "secret_month", "month"),
        )
        for type_token, kind, key, unit in simple:
            for resource in self.each(type_token):
                yield LineItem(_name(resource), type_token, kind, (self.service(key, kind, ONE, unit),),
                               usage=self.usage_of(key))
        for acl in self.each("aws:wafv2/webAcl:WebAcl"):
            rules = float(len(_inputs(acl).get("rules") or []))
            yield LineItem(_name(acl), "aws:wafv2/webAcl:WebAcl", "WAF web ACL",
                           (self.service("waf_web_acl_month", "web ACL", ONE, "month"),
                            self.service("waf_rule_month", f"{int(rules)} rules", (rules, rules, rules), "month")),
                           usage=self.usage_of("waf_web_acl_month"))
        for bucket in self.each("aws:s3/bucket:Bucket"):
            yield _bucket_item(bucket, "STANDARD", self.prices, "S3")

    def _node_group(self, group: Mapping[str, Any], templates: Mapping[str, Mapping[str, Any]]) -> LineItem:
        inputs = _inputs(group)
        scaling = inputs.get("scalingConfig") or {}
        nodes = (_int(scaling.get("minSize")), _int(scaling.get("desiredSize")), _int(scaling.get("maxSize")))
        types = inputs.get("instanceTypes") or ["?"]
        machine = str(types[0])
        tags = inputs.get("tags") or {}
        template = templates.get(str((inputs.get("launchTemplate") or {}).get("id", "")), {})
        capacity_type = str(inputs.get("capacityType") or "ON_DEMAND")
        reserved = bool(template.get("capacityReservationSpecification")) or capacity_type == "CAPACITY_BLOCK"
        spot = capacity_type == "SPOT"
        instance, spot_range = self.machine_part(machine, nodes, spot)
        disk = _int(next((m.get("ebs", {}).get("volumeSize") for m in template.get("blockDeviceMappings") or []
                          if isinstance(m, Mapping)), 0))
        parts = [instance]
        if disk:
            row = self.prices.services.get("ebs_gp3_gb_month")
            parts.append(Part(f"{disk} GiB gp3 root volume per node", tuple(n * disk for n in _floats(nodes)),  # type: ignore[arg-type]
                              row.price if row else None, "month", row.source if row else None))
        note = None
        if reserved:
            note = ("a capacity reservation bills its whole size at the On-Demand rate whether or not nodes run; "
                    "this prices the pool's nodes only")
        return LineItem(_name(group), "aws:eks/nodeGroup:NodeGroup", "node pool", tuple(parts),
                        pool=str(tags.get(POOL_LABEL) or inputs.get("nodeGroupName") or _name(group)),
                        machine=machine, nodes=nodes,
                        pricing="spot" if spot else "reservation" if reserved else "on-demand",
                        discount=Discount.parse((inputs.get("labels") or {}).get(DISCOUNT_LABEL)),
                        spot_range=spot_range, note=note)


class _GcpPricer(_Pricer):
    def __init__(self, resources: Sequence[Mapping[str, Any]], prices: RegionPrices, table: PriceTable,
                 declared_desired: Mapping[str, int]) -> None:
        super().__init__(resources, prices, table)
        self.declared_desired = declared_desired

    def items(self) -> Iterable[LineItem]:
        pools = [self._node_pool(pool) for pool in self.each("gcp:container/nodePool:NodePool")]
        yield from pools
        for cluster in self.each("gcp:container/cluster:Cluster"):
            yield LineItem(_name(cluster), "gcp:container/cluster:Cluster", "GKE cluster",
                           (self.service("gke_cluster_hour", "cluster management fee", ONE, "hour"),))
        vms = tuple(float(sum((p.nodes or (0, 0, 0))[i] for p in pools)) for i in range(3))
        for nat in self.each("gcp:compute/routerNat:RouterNat"):
            yield self._nat(nat, vms)  # type: ignore[arg-type]
        for gateway in self.each("kubernetes:gateway.networking.k8s.io/v1:Gateway"):
            yield LineItem(_name(gateway), "kubernetes:gateway.networking.k8s.io/v1:Gateway",
                           "forwarding rule (the Gateway's load balancer)",
                           (self.service("forwarding_rule_hour", "forwarding rule", ONE, "hour"),),
                           usage=self.usage_of("forwarding_rule_hour"))
        for policy in self.each("gcp:compute/securityPolicy:SecurityPolicy"):
            rules = float(len(_inputs(policy).get("rules") or []))
            yield LineItem(_name(policy), "gcp:compute/securityPolicy:SecurityPolicy", "Cloud Armor policy",
                           (self.service("armor_policy_month", "policy", ONE, "month"),
                            self.service("armor_rule_month", f"{int(rules)} rules", (rules, rules, rules), "month")),
                           usage=self.usage_of("armor_policy_month"))
        for key in self.each("gcp:kms/cryptoKey:CryptoKey"):
            rotates = bool(_inputs(key).get("rotationPeriod"))
            yield LineItem(_name(key), "gcp:kms/cryptoKey:CryptoKey", "KMS key",
                           (self.service("kms_key_version_month", "active key version", ONE, "month"),),
                           usage=self.usage_of("kms_key_version_month"),
                           note="each rotation adds a billed key version" if rotates else None)
        for secret in self.each("gcp:secretmanager/secret:Secret"):
            replicas = ((_inputs(secret).get("replication") or {}).get("userManaged") or {}).get("replicas") or [1]
            count = float(len(replicas))
            yield LineItem(_name(secret), "gcp:secretmanager/secret:Secret", "secret",
                           (self.service("secret_version_month", "active version per location",
                                         (count, count, count), "month"),),
                           usage=self.usage_of("secret_version_month"))
        for bucket in self.each("gcp:storage/bucket:Bucket"):
            yield _bucket_item(bucket, str(_inputs(bucket).get("storageClass") or "STANDARD"), self.prices, "GCS")

    def _node_pool(self, pool: Mapping[str, Any]) -> LineItem:
        inputs = _inputs(pool)
        config = inputs.get("nodeConfig") or {}
        zones = max(1, len(inputs.get("nodeLocations") or []))
        autoscaling = inputs.get("autoscaling") or {}
        initial = _int(inputs.get("initialNodeCount"), _int(inputs.get("nodeCount")))
        labels = config.get("labels") or {}
        if autoscaling:
            total = "totalMinNodeCount" in autoscaling or "totalMaxNodeCount" in autoscaling
            per_zone = 1 if total else zones
            low = _int(autoscaling.get("totalMinNodeCount" if total else "minNodeCount")) * per_zone
            high = _int(autoscaling.get("totalMaxNodeCount" if total else "maxNodeCount")) * per_zone
            # initialNodeCount is per zone, whatever the autoscaling limits count.
            desired = self.declared_desired.get(str(labels.get(POOL_LABEL)), initial * zones)
            nodes = (low, min(max(desired, low), high), high)
        else:
            fixed = _int(inputs.get("nodeCount"), initial) * zones
            nodes = (fixed, fixed, fixed)
        machine = str(config.get("machineType") or "?")
        spot = bool(config.get("spot") or config.get("preemptible"))
        reserved = ((config.get("reservationAffinity") or {}).get("consumeReservationType")
                    == "SPECIFIC_RESERVATION")
        instance, spot_range = self.machine_part(machine, nodes, spot)
        parts = [instance]
        disk = _int(config.get("diskSizeGb"))
        if disk:
            row = self.prices.services.get("pd_balanced_gb_month")
            kind = str(config.get("diskType") or "pd-balanced")
            parts.append(Part(f"{disk} GB {kind} boot disk per node", tuple(n * disk for n in _floats(nodes)),  # type: ignore[arg-type]
                              row.price if row and kind == "pd-balanced" else None, "month",
                              row.source if row else None))
        note = None
        if reserved:
            note = ("a specific reservation bills its reserved VMs whether or not nodes consume them; this prices "
                    "the pool's nodes only")
        return LineItem(_name(pool), "gcp:container/nodePool:NodePool", "node pool", tuple(parts),
                        pool=str(labels.get(POOL_LABEL) or inputs.get("name") or _name(pool)), machine=machine,
                        nodes=nodes, pricing="spot" if spot else "reservation" if reserved else "on-demand",
                        discount=Discount.parse(labels.get(DISCOUNT_LABEL)), spot_range=spot_range,
                        note=note)

    def _nat(self, nat: Mapping[str, Any], vms: tuple[float, float, float]) -> LineItem:
        per_vm = self.prices.services.get("nat_vm_hour")
        cap = self.prices.services.get("nat_gateway_hour_cap")
        if per_vm is None or cap is None:
            part = Part("NAT gateway", ONE, None, "hour", None)
        else:
            # Cloud NAT bills per VM-hour up to a cap per gateway-hour: priced as one gateway-hour at
            # the column's cost, so the cap applies per column.
            hourly = tuple(min(count * per_vm.price, cap.price) for count in vms)
            part = Part(f"NAT for {int(vms[1])} VMs (capped per gateway)", hourly, 1.0, "hour", per_vm.source)  # type: ignore[arg-type]
        return LineItem(_name(nat), "gcp:compute/routerNat:RouterNat", "Cloud NAT", (part,),
                        usage=per_vm.usage if per_vm else None)


def _bucket_item(bucket: Mapping[str, Any], storage_class: str, prices: RegionPrices, service: str) -> LineItem:
    row = prices.storage_gb_month.get(storage_class)
    usage = (f"${row.price:g} per GB-month in {storage_class}, by what is stored" if row
             else f"no price for {storage_class}")
    return LineItem(_name(bucket), str(bucket.get("type")), f"{service} bucket", (), usage=usage,
                    note="usage-based: no fixed monthly cost")
