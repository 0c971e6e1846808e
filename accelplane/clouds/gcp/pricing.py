"""What a Google Cloud plan costs: GKE node pools (machine, spot range, reservation, boot disk, the
autoscaler's declared desired size), the cluster fee, Cloud NAT (per VM up to its cap), the Gateway's
forwarding rule, Cloud Armor, KMS, Secret Manager, GCS by usage; and the plan's region, read from the
cluster's location. Priced from `prices.yaml` beside it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from accelplane.clouds.gcp.flex_start import PRICE_NOTE
from accelplane.clouds.gcp.future_reservation_terms import RequestTerms, commitment_usd
from accelplane.clouds.gcp.resource_types import FUTURE_RESERVATION
from accelplane.cost.cloud_pricing import CloudPricing
from accelplane.cost.plan_pricer import (
    DISCOUNT_LABEL,
    ONE,
    Discount,
    LineItem,
    Part,
    PlanPricer,
    as_int,
    bucket_item,
    node_floats,
    resource_inputs,
    resource_name,
)
from accelplane.node_labels import POOL_LABEL

NODE_DISK = "pd_balanced_gb_month"  # a node pool's boot disk (pd-balanced)


class GcpPricer(PlanPricer):
    def items(self) -> Iterable[LineItem]:
        requests = [RequestTerms.of(resource_name(r), dict(resource_inputs(r))) for r in self.each(FUTURE_RESERVATION)]
        requested = {terms.name for terms in requests}
        pools = [self._node_pool(pool, requested) for pool in self.each("gcp:container/nodePool:NodePool")]
        yield from pools
        for resource, terms in zip(self.each(FUTURE_RESERVATION), requests, strict=True):
            yield self._future_reservation(resource, terms)
        for cluster in self.each("gcp:container/cluster:Cluster"):
            yield LineItem(resource_name(cluster), "gcp:container/cluster:Cluster", "GKE cluster",
                           (self.service("gke_cluster_hour", "cluster management fee", ONE, "hour"),))
        vms = tuple(float(sum((p.nodes or (0, 0, 0))[i] for p in pools)) for i in range(3))
        for nat in self.each("gcp:compute/routerNat:RouterNat"):
            yield self._nat(nat, vms)  # type: ignore[arg-type]
        for gateway in self.each("kubernetes:gateway.networking.k8s.io/v1:Gateway"):
            yield LineItem(resource_name(gateway), "kubernetes:gateway.networking.k8s.io/v1:Gateway",
                           "forwarding rule (the Gateway's load balancer)",
                           (self.service("forwarding_rule_hour", "forwarding rule", ONE, "hour"),),
                           usage=self.usage_of("forwarding_rule_hour"))
        for policy in self.each("gcp:compute/securityPolicy:SecurityPolicy"):
            rules = float(len(resource_inputs(policy).get("rules") or []))
            yield LineItem(resource_name(policy), "gcp:compute/securityPolicy:SecurityPolicy", "Cloud Armor policy",
                           (self.service("armor_policy_month", "policy", ONE, "month"),
                            self.service("armor_rule_month", f"{int(rules)} rules", (rules, rules, rules), "month")),
                           usage=self.usage_of("armor_policy_month"))
        for key in self.each("gcp:kms/cryptoKey:CryptoKey"):
            rotates = bool(resource_inputs(key).get("rotationPeriod"))
            yield LineItem(resource_name(key), "gcp:kms/cryptoKey:CryptoKey", "KMS key",
                           (self.service("kms_key_version_month", "active key version", ONE, "month"),),
                           usage=self.usage_of("kms_key_version_month"),
                           note="each rotation adds a billed key version" if rotates else None)
        for secret in self.each("gcp:secretmanager/secret:Secret"):
            replication = resource_inputs(secret).get("replication") or {}
            replicas = (replication.get("userManaged") or {}).get("replicas") or [1]
            count = float(len(replicas))
            yield LineItem(resource_name(secret), "gcp:secretmanager/secret:Secret", "secret",
                           (self.service("secret_version_month", "active version per location",
                                         (count, count, count), "month"),),
                           usage=self.usage_of("secret_version_month"))
        for bucket in self.each("gcp:storage/bucket:Bucket"):
            storage_class = str(resource_inputs(bucket).get("storageClass") or "STANDARD")
            yield bucket_item(bucket, storage_class, self.prices, "GCS")

    def _node_pool(self, pool: Mapping[str, Any], requested: set[str]) -> LineItem:
        """`requested`: the reservations the plan's future reservations provision (their pools are prepaid)."""
        inputs = resource_inputs(pool)
        config = inputs.get("nodeConfig") or {}
        zones = max(1, len(inputs.get("nodeLocations") or []))
        autoscaling = inputs.get("autoscaling") or {}
        initial = as_int(inputs.get("initialNodeCount"), as_int(inputs.get("nodeCount")))
        labels = config.get("labels") or {}
        if autoscaling:
            total = "totalMinNodeCount" in autoscaling or "totalMaxNodeCount" in autoscaling
            per_zone = 1 if total else zones
            low = as_int(autoscaling.get("totalMinNodeCount" if total else "minNodeCount")) * per_zone
            high = as_int(autoscaling.get("totalMaxNodeCount" if total else "maxNodeCount")) * per_zone
            # initialNodeCount is per zone, whatever the autoscaling limits count.
            desired = self.declared_desired.get(str(labels.get(POOL_LABEL)), initial * zones)
            nodes = (low, min(max(desired, low), high), high)
        else:
            fixed = as_int(inputs.get("nodeCount"), initial) * zones
            nodes = (fixed, fixed, fixed)
        machine = str(config.get("machineType") or "?")
        spot = bool(config.get("spot") or config.get("preemptible"))
        reserved = ((config.get("reservationAffinity") or {}).get("consumeReservationType")
                    == "SPECIFIC_RESERVATION")
        instance, spot_range = self.machine_part(machine, nodes, spot)
        parts = [instance]
        disk = as_int(config.get("diskSizeGb"))
        if disk:
            row = self.prices.services.get(NODE_DISK)
            kind = str(config.get("diskType") or "pd-balanced")
            parts.append(Part(f"{disk} GB {kind} boot disk per node", tuple(n * disk for n in node_floats(nodes)),  # type: ignore[arg-type]
                              row.price if row and kind == "pd-balanced" else None, "month",
                              row.source if row else None))
        note = None
        if reserved and set((config.get("reservationAffinity") or {}).get("values") or []) & requested:
            instance = Part(f"{machine} (prepaid: the future reservation is its own line)", node_floats(nodes), 0.0,
                            "hour", None)
            parts[0] = instance
            note = "the future reservation bills its machines for its whole period, used or not (its own line)"
        elif reserved:
            note = ("a specific reservation bills its reserved VMs whether or not nodes consume them; this prices "
                    "the pool's nodes only")
        elif config.get("flexStart"):
            note = PRICE_NOTE
        return LineItem(resource_name(pool), "gcp:container/nodePool:NodePool", "node pool", tuple(parts),
                        pool=str(labels.get(POOL_LABEL) or inputs.get("name") or resource_name(pool)), machine=machine,
                        nodes=nodes, pricing="spot" if spot else "reservation" if reserved else "on-demand",
                        discount=Discount.parse(labels.get(DISCOUNT_LABEL)), spot_range=spot_range,
                        note=note)

    def _future_reservation(self, resource: Mapping[str, Any], terms: RequestTerms) -> LineItem:
        """A requested calendar-mode reservation: its machines for its whole period at the on-demand list price
        (an upper bound: Google bills Dynamic Workload Scheduler prices), spread over the months it spans; one
        within a month counts whole in it."""
        total = commitment_usd(terms, self.prices)
        row = self.prices.hourly(terms.machine) if terms.machine else None
        months = max(1.0, terms.hours / self.table.hours_per_month)
        share = round(total / months, 2) if total is not None else None
        what = (f"future reservation {terms.dates()}: {terms.machines or '?'} x {terms.machine or '?'} for "
                f"{terms.hours:g} h" + (f", ${total:,.2f} over {months:.2f} months" if total is not None and months > 1
                                         else ""))
        return LineItem(resource_name(resource), FUTURE_RESERVATION, "future reservation",
                        (Part(what, ONE, share, "month", row.source if row else None),),
                        pool=None, machine=terms.machine, pricing="reservation",
                        note="billed for its whole period once Google approves it, used or not; priced at on-demand "
                        "list prices, an upper bound of calendar mode's Dynamic Workload Scheduler prices")

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
        return LineItem(resource_name(nat), "gcp:compute/routerNat:RouterNat", "Cloud NAT", (part,),
                        usage=per_vm.usage if per_vm else None)


def plan_region(resources: Iterable[Mapping[str, Any]]) -> str | None:
    """The GKE cluster's location (a zone's region)."""
    for resource in resources:
        if resource.get("type") == "gcp:container/cluster:Cluster":
            location = resource_inputs(resource).get("location")
            if isinstance(location, str) and location:
                parts = location.split("-")
                return "-".join(parts[:2]) if len(parts) > 2 else location
    return None


# The `accelplane.pricing` entry point of this cloud (pyproject.toml).
PRICING = CloudPricing(pricer=GcpPricer, table=Path(__file__).with_name("prices.yaml"), plan_region=plan_region,
                       node_disk=NODE_DISK)
