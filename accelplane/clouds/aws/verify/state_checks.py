"""Live state no declaration holds but go-live depends on: cluster and node group status and health,
the launch template version node groups run, target health, KMS key state, secrets having a value
(its existence only: values are never read), rotation that keeps up with its schedule, and the audit
trail logging and delivering.

Each evaluation is a pure function over the API's response shape, so it is tested on shapes moto
cannot produce (unhealthy targets, degraded node groups) as well as on what moto returns.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence, Set
from datetime import UTC, datetime, timedelta
from typing import Any

from accelplane.clouds.aws.verify.inventory import WEB_ACL
from accelplane.clouds.aws.verify.live_inventory import UNREADABLE
from accelplane.rules.view import Resource
from accelplane.verify.declared import DeclaredPlatform
from accelplane.verify.live import LiveView
from accelplane.verify.results import CheckId, CheckResult, Status


def _where(resource: Resource) -> dict[str, Any]:
    return {"type": resource.type, "name": resource.name, "urn": resource.urn}


def cluster_status(resource: Resource, cluster: Mapping[str, Any]) -> CheckResult:
    status = cluster.get("status")
    if status == "ACTIVE":
        return CheckResult(CheckId.cluster_status, Status.passed, "cluster is ACTIVE", **_where(resource))
    level = Status.warning if status in ("UPDATING", "CREATING") else Status.failed
    return CheckResult(CheckId.cluster_status, level, f"cluster status is {status}", **_where(resource))


def node_group_status(resource: Resource, group: Mapping[str, Any]) -> CheckResult:
    status = group.get("status")
    issues = (group.get("health") or {}).get("issues") or []
    if issues:
        text = "; ".join(f"{i.get('code')}: {i.get('message', '')}".strip() for i in issues)
        return CheckResult(
            CheckId.node_group_status,
            Status.failed,
            f"node group status {status} with health issues: {text}",
            **_where(resource),
        )
    if status == "ACTIVE":
        return CheckResult(
            CheckId.node_group_status, Status.passed, "node group is ACTIVE, no health issues", **_where(resource)
        )
    level = Status.warning if status in ("UPDATING", "CREATING") else Status.failed
    return CheckResult(CheckId.node_group_status, level, f"node group status is {status}", **_where(resource))


def launch_template_version(
    resource: Resource,
    group: Mapping[str, Any],
    template: Mapping[str, Any] | None,
    *,
    follows_default: bool = True,
) -> CheckResult:
    """The version a node group runs against the one `pulumi up` leaves it on.

    The program makes each change of a template its new default version (`updateDefaultVersion`)
    and moves the node group to it, so a node group on another version than the default was moved
    by hand (or its rollout is still running: a warning while the node group is UPDATING). A newer
    version that is not the default was made by hand and not rolled out: a warning, the node group
    still runs what was declared."""
    used = str((group.get("launchTemplate") or {}).get("version"))
    latest = str((template or {}).get("LatestVersionNumber"))
    default = str((template or {}).get("DefaultVersionNumber")) if follows_default else latest
    if template is not None and used != default:
        updating = group.get("status") == "UPDATING"
        return CheckResult(
            CheckId.launch_template_version,
            Status.warning if updating else Status.failed,
            f"runs launch template version {used} but the template's default version (the one `pulumi up` "
            f"sets) is {default}: "
            + ("an update of the node group is in progress" if updating else "the node group was moved by hand"),
            **_where(resource),
        )
    if template is None or used == latest:
        return CheckResult(
            CheckId.launch_template_version,
            Status.passed,
            f"runs launch template version {used}, the latest",
            **_where(resource),
        )
    return CheckResult(
        CheckId.launch_template_version,
        Status.warning,
        f"runs launch template version {used} but the latest is {latest}: a rollout is pending or the template "
        "was changed outside the code",
        **_where(resource),
    )


def target_health(
    resource: Resource, descriptions: Sequence[Mapping[str, Any]] | None, *, idle: bool = False
) -> CheckResult:
    """Every registered target healthy, and at least one: the endpoint can serve. `idle`: the group's
    backend is declared at weight 0 (it may run no replicas), so no targets is as declared."""
    descriptions = list(descriptions or [])
    states = Counter((d.get("TargetHealth") or {}).get("State", "unknown") for d in descriptions)
    where = _where(resource)
    if not descriptions:
        if idle:
            return CheckResult(
                CheckId.target_health,
                Status.passed,
                "no targets registered; none needed: every forward gives this backend weight 0",
                **where,
            )
        return CheckResult(
            CheckId.target_health, Status.failed, "no targets registered: the endpoint cannot serve", **where
        )
    bad = [d for d in descriptions if (d.get("TargetHealth") or {}).get("State") in ("unhealthy", "unavailable")]
    summary = ", ".join(f"{n} {s}" for s, n in sorted(states.items()))
    if bad:
        detail = "; ".join(
            f"{(d.get('Target') or {}).get('Id')}:{(d.get('Target') or {}).get('Port')} "
            f"{(d.get('TargetHealth') or {}).get('State')} ({(d.get('TargetHealth') or {}).get('Reason', '')}"
            f"{': ' + d['TargetHealth']['Description'] if (d.get('TargetHealth') or {}).get('Description') else ''})"
            for d in bad
        )
        return CheckResult(CheckId.target_health, Status.failed, f"{summary}: {detail}", **where, actual=dict(states))
    if not states.get("healthy"):
        return CheckResult(
            CheckId.target_health, Status.warning, f"no healthy target yet: {summary}", **where, actual=dict(states)
        )
    level = Status.passed if states["healthy"] == len(descriptions) else Status.warning
    return CheckResult(CheckId.target_health, level, summary, **where, actual=dict(states))


def kms_key_state(resource: Resource, metadata: Mapping[str, Any] | None) -> CheckResult:
    state = (metadata or {}).get("KeyState")
    if state == "Enabled":
        return CheckResult(CheckId.kms_key_state, Status.passed, "key is Enabled", **_where(resource))
    extra = f" (deletion on {metadata.get('DeletionDate')})" if metadata and metadata.get("DeletionDate") else ""
    return CheckResult(
        CheckId.kms_key_state,
        Status.failed,
        f"key state is {state}{extra}: nothing encrypted with it can be read",
        **_where(resource),
    )


def secret_value(resource: Resource, secret: Mapping[str, Any]) -> CheckResult:
    stages = secret.get("SecretVersionsToStages") or {}
    if any("AWSCURRENT" in labels for labels in stages.values()):
        return CheckResult(
            CheckId.secret_value, Status.passed, "has a current value (AWSCURRENT; value not read)", **_where(resource)
        )
    return CheckResult(
        CheckId.secret_value,
        Status.failed,
        "has no current value: workloads cannot read it (put one with `aws secretsmanager put-secret-value` or "
        "`pulumi config set --secret accelplane:secret-<name>`)",
        **_where(resource),
    )


def secret_rotation(
    resource: Resource, secret: Mapping[str, Any], *, declared_rotation: bool, now: datetime
) -> CheckResult:
    enabled = bool(secret.get("RotationEnabled"))
    where = _where(resource)
    if not enabled:
        if declared_rotation:
            return CheckResult(CheckId.secret_rotation, Status.failed, "rotation is declared but not enabled", **where)
        return CheckResult(CheckId.secret_rotation, Status.passed, "no rotation declared, none enabled", **where)
    days = (secret.get("RotationRules") or {}).get("AutomaticallyAfterDays")
    last = secret.get("LastRotatedDate") or secret.get("CreatedDate")
    if isinstance(days, int) and isinstance(last, datetime):
        last = last if last.tzinfo else last.replace(tzinfo=UTC)
        due = last + timedelta(days=days + 1)  # one day's grace for the rotation window
        if now > due:
            return CheckResult(
                CheckId.secret_rotation,
                Status.failed,
                f"rotation is overdue: last rotated {last.date()}, every {days} days",
                **where,
            )
    if not declared_rotation:
        return CheckResult(
            CheckId.secret_rotation, Status.warning, "rotation is enabled outside the declaration", **where
        )
    return CheckResult(CheckId.secret_rotation, Status.passed, f"rotation enabled every {days} days", **where)


# CloudTrail delivers log files "within an average of about 5 minutes of an API call" (CloudTrail User
# Guide, "How CloudTrail works"); an account always has management events, so an hour without a
# delivery while logging means the delivery is stuck even where no error is reported.
TRAIL_DELIVERY_STALE = timedelta(hours=1)


def _when(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    return None


def trail_logging(resource: Resource, read: Mapping[str, Any], *, now: datetime) -> CheckResult:
    """The trail's GetTrailStatus: logging (not stopped by `StopLogging`), and delivering its log and
    digest files to the bucket (no `LatestDeliveryError` / `LatestDigestDeliveryError`, an S3 or KMS
    error such as AccessDenied after a bucket or key policy changed)."""
    where = _where(resource)
    name = (read.get("trail") or {}).get("Name", resource.name)
    status = read.get("status")
    if status is UNREADABLE or not isinstance(status, Mapping):
        return CheckResult(CheckId.read_error, Status.failed, "not verified: cloudtrail:GetTrailStatus failed",
                           **where)
    if not status.get("IsLogging"):
        stopped = _when(status.get("StopLoggingTime"))
        since = f" since {stopped.isoformat(timespec='seconds')}" if stopped else ""
        return CheckResult(
            CheckId.trail_logging, Status.failed,
            f"trail {name} is not logging{since} (StopLogging): no API call or object access is recorded; "
            f"`aws cloudtrail start-logging --name {name}`",
            **where,
        )
    errors = [f"{label} {status[key]}" for key, label in (("LatestDeliveryError", "log files:"),
                                                           ("LatestDigestDeliveryError", "digest files:"))
              if status.get(key)]
    if errors:
        return CheckResult(
            CheckId.trail_logging, Status.failed,
            f"trail {name} is logging but its last delivery to the bucket failed ({'; '.join(errors)}): "
            "check the bucket policy and the log key's policy",
            **where,
        )
    delivered = _when(status.get("LatestDeliveryTime"))
    started = _when(status.get("StartLoggingTime"))
    if delivered is None and started is not None and now - started > TRAIL_DELIVERY_STALE:
        return CheckResult(CheckId.trail_logging, Status.warning,
                           f"trail {name} has logged since {started.isoformat(timespec='seconds')} "
                           "without delivering a log file", **where)
    if delivered is not None and now - delivered > TRAIL_DELIVERY_STALE:
        return CheckResult(CheckId.trail_logging, Status.warning,
                           f"trail {name} last delivered a log file at {delivered.isoformat(timespec='seconds')}",
                           **where)
    return CheckResult(CheckId.trail_logging, Status.passed, f"trail {name} is logging and delivering", **where)


def rate_limits(resource: Resource, web_acl: Any, declared: Mapping[str, str]) -> CheckResult:
    """The declared rate-based rules (name -> declared action, `block` or `count`) on the web ACL the
    load balancer really has: attached, each rule present as a rate-based rule, acting as declared."""
    where = _where(resource)
    if web_acl is UNREADABLE:
        return CheckResult(CheckId.read_error, Status.failed, "not verified: wafv2:GetWebACLForResource failed",
                           **where)
    if not web_acl:
        return CheckResult(CheckId.rate_limit, Status.failed,
                           "no AWS WAF web ACL is attached: the endpoint's rate limits do not apply", **where)
    live = {rule.get("Name"): rule for rule in web_acl.get("Rules") or []
            if (rule.get("Statement") or {}).get("RateBasedStatement") is not None}
    problems = []
    for name, action in sorted(declared.items()):
        rule = live.get(name)
        if rule is None:
            problems.append(f"rate rule {name} is missing")
            continue
        acting = next(iter(rule.get("Action") or {}), "").lower()
        if acting != action:
            problems.append(f"rate rule {name} acts as {acting or 'nothing'}, declared {action}")
    if problems:
        return CheckResult(CheckId.rate_limit, Status.failed,
                           f"web ACL {web_acl.get('Name')}: " + "; ".join(problems), **where)
    return CheckResult(CheckId.rate_limit, Status.passed,
                       f"web ACL {web_acl.get('Name')} attached with {len(declared)} rate rule(s) acting as declared",
                       **where)


def state_results(
    view: LiveView,
    declared_types: set[str],
    now: datetime | None = None,
    *,
    idle_target_groups: Set[str] = frozenset(),
    rate_rules: Mapping[str, str] | None = None,
) -> list[CheckResult]:
    """`idle_target_groups`: URNs of target groups declared at weight 0 everywhere (`routing`);
    `rate_rules`: the declared web ACL's rate rules (name -> action) the load balancer must have."""
    now = now or datetime.now(UTC)
    results: list[CheckResult] = []
    templates = {
        (raw.get("template") or {}).get("LaunchTemplateId"): raw
        for urn, raw in view.raw.items()
        if isinstance(raw, dict) and "template" in raw and "data" in raw
    }
    rotation_declared = "aws:secretsmanager/secretRotation:SecretRotation" in declared_types
    for urn, live in view.matched.items():
        raw = view.raw.get(urn)
        declared = Resource(urn=urn, type=live.type, name=live.name, props={})
        if live.type == "aws:eks/cluster:Cluster" and raw:
            results.append(cluster_status(declared, raw))
        elif live.type == "aws:eks/nodeGroup:NodeGroup" and raw:
            results.append(node_group_status(declared, raw))
            template_id = (raw.get("launchTemplate") or {}).get("id")
            if template_id:
                template = templates.get(template_id) or {}
                results.append(
                    launch_template_version(
                        declared,
                        raw,
                        template.get("template"),
                        follows_default=template.get("follows_default", True),
                    )
                )
        elif live.type == "aws:lb/targetGroup:TargetGroup" and raw:
            if raw.get("health") is UNREADABLE:
                results.append(
                    CheckResult(
                        CheckId.read_error,
                        Status.failed,
                        "not verified: elbv2:DescribeTargetHealth failed",
                        **_where(declared),
                    )
                )
            else:
                results.append(target_health(declared, raw.get("health"), idle=urn in idle_target_groups))
        elif live.type == "aws:lb/loadBalancer:LoadBalancer" and rate_rules and isinstance(raw, dict):
            results.append(rate_limits(declared, raw.get("web_acl"), rate_rules))
        elif live.type == "aws:kms/key:Key" and raw:
            results.append(kms_key_state(declared, raw.get("metadata")))
        elif live.type == "aws:secretsmanager/secret:Secret" and raw:
            results.append(secret_value(declared, raw))
            results.append(secret_rotation(declared, raw, declared_rotation=rotation_declared, now=now))
        elif live.type == "aws:cloudtrail/trail:Trail" and raw:
            results.append(trail_logging(declared, raw, now=now))
    return results



def declared_rate_rules(declared: DeclaredPlatform) -> dict[str, str]:
    """The declared web ACL's rate-based rules: name -> `block` or `count` (their declared action)."""
    found: dict[str, str] = {}
    for acl in declared.of_type(WEB_ACL):
        for rule in acl.props.get("rules") or []:
            if isinstance(rule, dict) and (rule.get("statement") or {}).get("rateBasedStatement") is not None:
                found[str(rule.get("name"))] = next(iter(rule.get("action") or {}), "").lower()
    return found
