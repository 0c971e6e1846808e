"""Regional GPU and TPU quotas: the accelerators every pool runs at its most nodes (maximum size,
whole slices, plus surge), on-demand and spot apart, against the project's quota in the region.

Which quota a family draws on is data (`quotas.yaml`, with sources). `compute.regions.get` gives
limit and usage; the Cloud Quotas API (for families regions.get does not list, e.g. TPU v6e) gives
the limit only, so a need that fits it is a warning that the usage could not be subtracted. A pool in
a reservation is judged against the reservation instead (reserved capacity took its quota when
reserved). The regional usage includes this stack's own nodes where the stack runs already.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

from accelplane.clouds.gcp.clients import GcpClients, GcpReadError
from accelplane.clouds.gcp.preflight.calls import get, why
from accelplane.clouds.gcp.preflight.demand import PoolDemand
from accelplane.preflight.results import PreflightCheck, Status, unknown

_CHECK = "quota.accelerator"


@dataclass(frozen=True)
class QuotaRef:
    api: str  # "regional" (compute.regions.get) or "cloud_quotas"
    name: str  # the regional metric or the Cloud Quotas quota id
    dimensions: tuple[tuple[str, str], ...] = ()

    @property
    def label(self) -> str:
        dims = ", ".join(f"{key}={value}" for key, value in self.dimensions)
        return f"{self.name}" + (f" ({dims})" if dims else "")


@cache
def quota_data() -> dict[str, Any]:
    text = resources.files("accelplane.clouds.gcp").joinpath("quotas.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def quota_for(accelerator: str, market: str) -> QuotaRef | None:
    data = quota_data()
    regional = (data.get("regional") or {}).get(accelerator)
    if regional and regional.get(market):
        return QuotaRef("regional", regional[market])
    entry = ((data.get("cloud_quotas") or {}).get(accelerator) or {}).get(market)
    if entry:
        return QuotaRef("cloud_quotas", entry["quota_id"], tuple(sorted((entry.get("dimensions") or {}).items())))
    return None


def quota_checks(demands: list[PoolDemand], clients: GcpClients) -> list[PreflightCheck]:
    checks: list[PreflightCheck] = []
    drawing: dict[QuotaRef, list[tuple[PoolDemand, int]]] = defaultdict(list)
    for demand in demands:
        # A requested future reservation still needs the quota of what it reserves (Compute Engine: with
        # too little, Google declines the request, or delivers part of it at the start): counted here.
        if demand.accelerator is None or demand.reservation:
            continue
        quota = quota_for(demand.accelerator, demand.market)
        if quota is None:
            market = demand.market.replace("_", "-")
            checks.append(unknown(
                _CHECK, f"pool {demand.name}", f"no known quota for {market} {demand.accelerator} {demand.unit}",
                fix="find it with `gcloud beta quotas info list --service=compute.googleapis.com` and add it to "
                    "accelplane/clouds/gcp/quotas.yaml with its source", at=demand.at))
            continue
        drawing[quota].append((demand, demand.most_nodes * demand.per_node))
    if not drawing:
        return checks
    region_quotas: dict[str, dict] | GcpReadError | None = None
    if any(quota.api == "regional" for quota in drawing):
        try:
            answer = get(clients, clients.service("compute").regions().get(project=clients.project,
                                                                             region=clients.region)) or {}
            region_quotas = {str(q.get("metric")): q for q in answer.get("quotas") or []}
        except GcpReadError as error:
            region_quotas = error
    for quota, items in sorted(drawing.items(), key=lambda item: item[0].name):
        if quota.api == "regional":
            checks.append(_judge_regional(quota, items, region_quotas, clients.region))
        else:
            checks.append(_judge_cloud_quota(quota, items, clients))
    return checks


def _needs(items: list[tuple[PoolDemand, int]]) -> tuple[int, str]:
    need = sum(amount for _, amount in items)
    unit = items[0][0].unit
    pools = ", ".join(f"{d.name} {d.most_nodes}x{d.machine_type} ({d.per_node} each)" for d, _ in items)
    return need, f"{need} {unit} ({pools})"


def _fix(quota: QuotaRef, wanted: int, region: str) -> str:
    return (f"request {quota.label} of at least {wanted} in {region} (console: IAM & Admin > Quotas, or gcloud beta "
            f"quotas preferences create --service=compute.googleapis.com --quota-id=... --preferred-value={wanted})")


def _judge_regional(quota: QuotaRef, items: list[tuple[PoolDemand, int]],
                    region_quotas: dict[str, dict] | GcpReadError | None, region: str) -> PreflightCheck:
    subject = f"{quota.label} in {region}"
    at = items[0][0].at
    if isinstance(region_quotas, GcpReadError):
        return unknown(_CHECK, subject, why(region_quotas), at=at)
    found = (region_quotas or {}).get(quota.name)
    if found is None:
        return unknown(_CHECK, subject, f"compute.regions.get lists no {quota.name} quota in {region}", at=at,
                       fix=f"check the quota in the console (IAM & Admin > Quotas, metric {quota.name})")
    need, needs = _needs(items)
    limit, usage = float(found.get("limit") or 0), float(found.get("usage") or 0)
    headroom = limit - usage - need
    has = f"{limit:g} (usage {usage:g})"
    if headroom >= 0:
        return PreflightCheck(_CHECK, subject, Status.passed, f"{need} of {limit - usage:g} free", needs=needs,
                              has=has, headroom=f"{headroom:g}", at=at)
    return PreflightCheck(_CHECK, subject, Status.failed,
                          f"the pools need {need} and {limit - usage:g} are free under {quota.name} in {region}",
                          needs=needs, has=has, headroom=f"{headroom:g}",
                          fix=_fix(quota, int(need + usage), region), at=at)


def _judge_cloud_quota(quota: QuotaRef, items: list[tuple[PoolDemand, int]], clients: GcpClients) -> PreflightCheck:
    subject = f"{quota.label} in {clients.region}"
    at = items[0][0].at
    name = (f"projects/{clients.project}/locations/global/services/compute.googleapis.com/quotaInfos/"
            f"{quota.name}")
    try:
        info = get(clients, clients.service("cloudquotas").projects().locations().services().quotaInfos()
                   .get(name=name))
    except GcpReadError as error:
        return unknown(_CHECK, subject, why(error), at=at)
    if info is None:
        return unknown(_CHECK, subject, f"the Cloud Quotas API has no quota {quota.name} for this project", at=at)
    value = _value_for(info, clients.region, dict(quota.dimensions))
    if value is None:
        return unknown(_CHECK, subject, f"{quota.name} has no value for {clients.region}", at=at)
    need, needs = _needs(items)
    has = f"{value} (limit; the Cloud Quotas API reports no usage)"
    if need > value:
        return PreflightCheck(_CHECK, subject, Status.failed, f"the pools need {need}, the quota is {value}",
                              needs=needs, has=has, headroom=str(value - need),
                              fix=_fix(quota, need, clients.region), at=at)
    return PreflightCheck(_CHECK, subject, Status.warning,
                          f"the need fits the limit of {value}; what other workloads use of it is not known",
                          needs=needs, has=has, headroom=f"at most {value - need}",
                          fix="check the quota's current usage in the console before a large scale-up", at=at)


def _value_for(info: dict, region: str, dimensions: dict[str, str]) -> int | None:
    """The value in effect for `region` (and the quota's other dimensions): the most specific
    dimensions info that matches, the API's order being from more to less specific."""
    for entry in info.get("dimensionsInfos") or []:
        dims = entry.get("dimensions") or {}
        if dims.get("region", region) != region:
            continue
        if any(dims.get(key, value) != value for key, value in dimensions.items()):
            continue
        value = (entry.get("details") or {}).get("value")
        if value is not None:
            return int(value)
    return None
