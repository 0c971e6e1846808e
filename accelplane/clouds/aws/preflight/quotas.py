"""EC2 vCPU quotas: for each quota the pools draw on, the vCPUs of every pool at its most nodes
(maximum size plus update surge) plus what already runs against the quota outside this stack's
cluster, against the applied value Service Quotas reports (its AWS default where none is applied).

Which quota a pool draws on is data (`ec2_quotas.json`, with its source): the instance family and
the market (on-demand, or spot). A pool in a capacity reservation is not counted here: the
reservation's capacity was counted against the On-Demand quota when it was reserved, and the
reservation check confirms it holds the pool.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from accelplane.clouds.aws.declaration import AwsPlatform
from accelplane.clouds.aws.preflight.calls import AwsReads, InstanceType, UnreadableError
from accelplane.clouds.aws.preflight.demand import PoolDemand
from accelplane.preflight.results import PreflightCheck, Status, unknown

_DATA = Path(__file__).resolve().parent.parent / "ec2_quotas.json"
_CHECK = "quota.vcpu"


@dataclass(frozen=True)
class Ec2Quota:
    code: str
    name: str
    market: str  # on_demand | spot
    families: tuple[str, ...]


@cache
def quota_table() -> tuple[Ec2Quota, ...]:
    data = json.loads(_DATA.read_text(encoding="utf-8"))
    return tuple(Ec2Quota(q["code"], q["name"], q["market"], tuple(q["families"])) for q in data["quotas"])


def quota_for(instance_type: str, market: str) -> Ec2Quota | None:
    """The quota `instance_type` draws on in `market`: the entry whose family prefix is the longest
    that starts the type's family (p5en.48xlarge spot -> All P5 Spot Instance Requests)."""
    family = instance_type.split(".", 1)[0].lower()
    best: tuple[int, Ec2Quota] | None = None
    for quota in quota_table():
        if quota.market != market:
            continue
        for prefix in quota.families:
            if family.startswith(prefix) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), quota)
    return best[1] if best else None


def quota_checks(platform: AwsPlatform, demands: list[PoolDemand], types: dict[str, InstanceType] | UnreadableError,
                 reads: AwsReads) -> list[PreflightCheck]:
    if isinstance(types, UnreadableError):
        return [unknown(_CHECK, "every pool's vCPUs", types.why())]
    checks: list[PreflightCheck] = []
    drawing: dict[Ec2Quota, list[tuple[PoolDemand, int]]] = defaultdict(list)
    for demand in demands:
        if demand.reservation_id:
            continue
        quota = quota_for(demand.instance_type, demand.market)
        market = demand.market.replace("_", "-")
        if quota is None:
            checks.append(unknown(
                _CHECK, f"pool {demand.name}",
                f"no known Service Quotas code for {market} {demand.instance_type} instances",
                fix="find the quota with `aws service-quotas list-service-quotas --service-code ec2` and add it to "
                    "accelplane/clouds/aws/ec2_quotas.json with its source",
                at=demand.at))
            continue
        described = types.get(demand.instance_type)
        if described is None:
            checks.append(unknown(_CHECK, f"pool {demand.name}",
                                  f"EC2 in {reads.region} does not describe {demand.instance_type}", at=demand.at))
            continue
        drawing[quota].append((demand, described.vcpus * demand.most_nodes))
    if not drawing:
        return checks
    try:
        in_use = _running_elsewhere(platform.name, reads)
    except UnreadableError as failure:
        return checks + [unknown(_CHECK, f"{q.code} {q.name}", failure.why()) for q in drawing]
    for quota, items in sorted(drawing.items(), key=lambda item: item[0].code):
        checks.append(_judge(quota, items, in_use.get(quota.code, 0), reads))
    return checks


def _judge(quota: Ec2Quota, items: list[tuple[PoolDemand, int]], in_use: int, reads: AwsReads) -> PreflightCheck:
    subject = f"{quota.code} {quota.name}"
    at = items[0][0].at
    try:
        value, origin = _quota_value(quota.code, reads)
    except UnreadableError as failure:
        return unknown(_CHECK, subject, failure.why(), at=at)
    need = sum(vcpus for _, vcpus in items)
    pools = ", ".join(f"{d.name} {d.most_nodes}x{d.instance_type} ({d.pool.scaling.max} max + {d.surge} surge)"
                      for d, _ in items)
    headroom = value - in_use - need
    needs = f"{need} vCPUs ({pools})"
    has = f"{value:g} vCPUs ({origin}), {in_use} in use outside this cluster"
    if headroom >= 0:
        return PreflightCheck(_CHECK, subject, Status.passed, f"{need} of {value - in_use:g} free vCPUs", needs=needs,
                              has=has, headroom=f"{headroom:g} vCPUs", at=at)
    wanted = int(need + in_use)
    return PreflightCheck(
        _CHECK, subject, Status.failed,
        f"the pools need {need} vCPUs and {value - in_use:g} are free under {quota.code} in {reads.region}",
        needs=needs, has=has, headroom=f"{headroom:g} vCPUs",
        fix=f"raise {quota.code} ({quota.name}) in {reads.region} to at least {wanted}: aws service-quotas "
            f"request-service-quota-increase --service-code ec2 --quota-code {quota.code} --desired-value {wanted} "
            f"--region {reads.region}",
        at=at)


def _quota_value(code: str, reads: AwsReads) -> tuple[float, str]:
    """The applied value; the AWS default where the account has none applied."""
    try:
        answer = reads.call("service-quotas", "GetServiceQuota", ServiceCode="ec2", QuotaCode=code)
        return float(answer["Quota"]["Value"]), "applied"
    except UnreadableError as failure:
        if failure.code != "NoSuchResourceException":
            raise
    answer = reads.call("service-quotas", "GetAWSDefaultServiceQuota", ServiceCode="ec2", QuotaCode=code)
    return float(answer["Quota"]["Value"]), "AWS default"


def _running_elsewhere(cluster: str, reads: AwsReads) -> dict[str, int]:
    """vCPUs of running and pending instances per quota code, outside this stack's own cluster (its
    nodes are in the pools' demand already)."""
    reservations = reads.pages("ec2", "DescribeInstances", "Reservations",
                               Filters=[{"Name": "instance-state-name", "Values": ["pending", "running"]}])
    instances = [i for r in reservations for i in r.get("Instances", [])
                 if {t.get("Key"): t.get("Value") for t in i.get("Tags") or []}.get("eks:cluster-name") != cluster]
    if not instances:
        return {}
    types = reads.instance_types(sorted({i["InstanceType"] for i in instances}))
    if isinstance(types, UnreadableError):
        raise types
    used: dict[str, int] = defaultdict(int)
    for instance in instances:
        market = "spot" if instance.get("InstanceLifecycle") == "spot" else "on_demand"
        quota = quota_for(instance["InstanceType"], market)
        described = types.get(instance["InstanceType"])
        if quota is not None and described is not None:
            used[quota.code] += described.vcpus
    return dict(used)
