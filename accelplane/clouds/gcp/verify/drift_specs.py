"""What `accelplane verify`'s drift engine compares on Google Cloud, per declared type.

`read` is every input the type's shape table reads (`shapes.FIELDS`); `ignore` what is not a
setting of the live resource (the project, pulumi-gcp's own `deletionProtection`, create-only
sizes: a cluster's `initialNodeCount` and the default pool it removes, a node pool's node count,
which the autoscaler or GKE's repair owns); `exact` the maps where an extra live key is drift
(node labels: a label added by hand steers the scheduler); `defaults` Google's value for what the
program leaves unset (a firewall rule disabled by hand, source tags that widen who may connect).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelplane.clouds.gcp.verify.live_cluster import POLICY_KINDS
from accelplane.clouds.gcp.verify.shapes import (
    AUDIT_CONFIG,
    BUCKET,
    BUCKET_MEMBER,
    CERT_MAP,
    CERT_MAP_ENTRY,
    CLUSTER,
    CRYPTO_KEY,
    FIREWALL,
    GLOBAL_ADDRESS,
    KEY_BINDING,
    KEY_RING,
    LOG_BUCKET,
    LOG_SINK,
    NETWORK,
    NODE_POOL,
    PROJECT_MEMBER,
    ROUTER,
    ROUTER_NAT,
    SECRET,
    SECRET_MEMBER,
    SECURITY_POLICY,
    SERVICE_ACCOUNT,
    SSL_POLICY,
    SUBNETWORK,
    TOPIC,
    TOPIC_MEMBER,
    wire_keys,
)
from accelplane.rules.view import Resource
from accelplane.verify.drift import ABSENT, DriftMapping, Spec, spec

_IDENTITY = ("project",)

SPECS: dict[str, Spec] = {
    NETWORK: spec(wire_keys(NETWORK), ignore=(*_IDENTITY, "deleteDefaultRoutesOnCreate")),
    SUBNETWORK: spec(wire_keys(SUBNETWORK), ignore=_IDENTITY, defaults={"privateIpGoogleAccess": False}),
    FIREWALL: spec(
        wire_keys(FIREWALL),
        ignore=_IDENTITY,
        defaults={
            "disabled": False,
            "sourceTags": ABSENT,
            "sourceServiceAccounts": ABSENT,
            "targetTags": ABSENT,
            "targetServiceAccounts": ABSENT,
        },
    ),
    ROUTER: spec(wire_keys(ROUTER), ignore=_IDENTITY),
    ROUTER_NAT: spec(wire_keys(ROUTER_NAT), ignore=(*_IDENTITY, "region", "router")),
    CLUSTER: spec(
        wire_keys(CLUSTER),
        ignore=(*_IDENTITY, "deletionProtection", "initialNodeCount", "removeDefaultNodePool", "nodeConfig"),
        defaults={"enableLegacyAbac": False},
    ),
    NODE_POOL: spec(
        wire_keys(NODE_POOL),
        ignore=(*_IDENTITY, "cluster", "location", "nodeCount", "initialNodeCount"),
        exact=("nodeConfig.labels",),
        defaults={"nodeConfig.spot": False},
    ),
    KEY_RING: spec(wire_keys(KEY_RING), ignore=_IDENTITY),
    CRYPTO_KEY: spec(wire_keys(CRYPTO_KEY), ignore=(*_IDENTITY, "skipInitialVersionCreation", "importOnly")),
    KEY_BINDING: spec(wire_keys(KEY_BINDING), ignore=_IDENTITY),
    SECRET: spec(wire_keys(SECRET), ignore=(*_IDENTITY, "deletionProtection")),
    SECRET_MEMBER: spec(wire_keys(SECRET_MEMBER), ignore=_IDENTITY),
    SERVICE_ACCOUNT: spec(
        wire_keys(SERVICE_ACCOUNT), ignore=(*_IDENTITY, "createIgnoreAlreadyExists"), defaults={"disabled": False}
    ),
    PROJECT_MEMBER: spec(wire_keys(PROJECT_MEMBER), ignore=_IDENTITY),
    GLOBAL_ADDRESS: spec(wire_keys(GLOBAL_ADDRESS), ignore=_IDENTITY),
    SSL_POLICY: spec(wire_keys(SSL_POLICY), ignore=_IDENTITY),
    SECURITY_POLICY: spec(wire_keys(SECURITY_POLICY), ignore=_IDENTITY),
    # A retention policy or a condition nobody declared is drift: the one blocks deleting and
    # rewriting checkpoints, the other's absence widens a prefix-limited grant to the bucket.
    BUCKET: spec(
        wire_keys(BUCKET),
        ignore=(*_IDENTITY, "forceDestroy"),
        defaults={"retentionPolicy": ABSENT, "versioning.enabled": False},
    ),
    BUCKET_MEMBER: spec(wire_keys(BUCKET_MEMBER), ignore=_IDENTITY, defaults={"condition": ABSENT}),
    CERT_MAP: spec(wire_keys(CERT_MAP), ignore=_IDENTITY),
    CERT_MAP_ENTRY: spec(wire_keys(CERT_MAP_ENTRY), ignore=_IDENTITY, defaults={"hostname": ABSENT}),
    # Exact: a member exempted from a log type (`exemptedMembers`, which the stack never sets) is drift.
    TOPIC: spec(wire_keys(TOPIC), ignore=_IDENTITY,
                 defaults={"messageRetentionDuration": ABSENT, "kmsKeyName": ABSENT}),
    TOPIC_MEMBER: spec(wire_keys(TOPIC_MEMBER), ignore=_IDENTITY),
    # The Gateway's policies in the cluster: what they set (IAP, Cloud Armor, SSL policy, health checks).
    **{kind: spec(wire_keys(kind), ignore=("apiVersion", "kind", "metadata")) for kind in POLICY_KINDS},
    AUDIT_CONFIG: spec(wire_keys(AUDIT_CONFIG), ignore=_IDENTITY, exact=("auditLogConfigs",)),
    LOG_BUCKET: spec(wire_keys(LOG_BUCKET), ignore=_IDENTITY, defaults={"description": ABSENT}),
    # The writer identity's kind is a create-time choice (no grant is needed into a bucket of the project).
    LOG_SINK: spec(wire_keys(LOG_SINK), ignore=(*_IDENTITY, "uniqueWriterIdentity"),
                   defaults={"disabled": False, "exclusions": ABSENT, "description": ABSENT}),
}


class GcpDrift(DriftMapping):
    cloud_label = "Google Cloud"
    global_kind = "global"
    specs = SPECS

    def comparable(self, type_token: str, key: str, value: Any) -> Any:
        # A secret's rotation schedule: Google moves nextRotationTime on at every notification and
        # never returns the input-only rotationPeriod, so what can be compared is that one is set.
        if type_token == SECRET and key == "rotation":
            scheduled = isinstance(value, Mapping) and bool(value.get("nextRotationTime"))
            return "a rotation schedule" if scheduled else None
        return value

    def describe_unexpected(self, live: Resource, props: Mapping[str, Any]) -> str:
        if live.type == FIREWALL:
            rules = props.get("allows") or props.get("denies") or []
            verb = "allows" if props.get("allows") else "denies"
            ports = ", ".join(
                f"{rule.get('protocol')}:{','.join(rule.get('ports') or ['all'])}"
                for rule in rules
                if isinstance(rule, dict)
            )
            sources = props.get("sourceRanges") or props.get("destinationRanges") or []
            direction = props.get("direction", "INGRESS")
            return f"{live.name}: {direction} {verb} {ports or 'all'} from {', '.join(sources) or 'any'}"
        if live.type in (KEY_BINDING, SECRET_MEMBER, PROJECT_MEMBER, BUCKET_MEMBER, TOPIC_MEMBER):
            # A binding's members as a list of names; never "for None" (a live grant read without its member).
            members = props.get("member") or ", ".join(str(m) for m in props.get("members") or []) or "no member read"
            return f"{props.get('role') or 'a role not read'} for {members}"
        if live.type == NODE_POOL:
            config = props.get("nodeConfig") or {}
            return f"{live.name}: {config.get('machineType', '?')} in {live.id}"
        return f"{live.name} ({live.id})"


DRIFT = GcpDrift()
