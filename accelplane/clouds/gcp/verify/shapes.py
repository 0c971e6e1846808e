"""How a Google API resource reads in the declared (pulumi-gcp wire) shape, per verified type.

Each verified type has a table of `Field`s: the input's dotted path in the wire format, the
field's dotted path in the API resource, and how a value converts (a self link to the relative
name the declaration uses, a list of objects whose keys Google spells otherwise, a 64-bit count
Google sends as a string). `to_wire` reads a live resource into the declared shape for the drift
engine; the tests hold each mapping against API resources written by hand
(tests/verify_gcp/test_gcp_field_table_reference.py). `API_SET` is what the API sets on its own when
an input is given (Compute's `logConfig.enable`, GKE's `autoscaling.enabled`): where that switch is
off, the input reads as absent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

COMPUTE_URL = "https://www.googleapis.com/compute/v1/"

NETWORK = "gcp:compute/network:Network"
SUBNETWORK = "gcp:compute/subnetwork:Subnetwork"
FIREWALL = "gcp:compute/firewall:Firewall"
ROUTER = "gcp:compute/router:Router"
ROUTER_NAT = "gcp:compute/routerNat:RouterNat"
CLUSTER = "gcp:container/cluster:Cluster"
NODE_POOL = "gcp:container/nodePool:NodePool"
GLOBAL_ADDRESS = "gcp:compute/globalAddress:GlobalAddress"
SSL_POLICY = "gcp:compute/sSLPolicy:SSLPolicy"
SECURITY_POLICY = "gcp:compute/securityPolicy:SecurityPolicy"
KEY_RING = "gcp:kms/keyRing:KeyRing"
CRYPTO_KEY = "gcp:kms/cryptoKey:CryptoKey"
KEY_BINDING = "gcp:kms/cryptoKeyIAMBinding:CryptoKeyIAMBinding"
SECRET = "gcp:secretmanager/secret:Secret"
SECRET_MEMBER = "gcp:secretmanager/secretIamMember:SecretIamMember"
SERVICE_ACCOUNT = "gcp:serviceaccount/account:Account"
SERVICE_ACCOUNT_KEY = "gcp:serviceaccount/key:Key"
PROJECT_MEMBER = "gcp:projects/iAMMember:IAMMember"
BUCKET = "gcp:storage/bucket:Bucket"
CERT_MAP = "gcp:certificatemanager/certificateMap:CertificateMap"
CERT_MAP_ENTRY = "gcp:certificatemanager/certificateMapEntry:CertificateMapEntry"
BUCKET_MEMBER = "gcp:storage/bucketIAMMember:BucketIAMMember"
AUDIT_CONFIG = "gcp:projects/iAMAuditConfig:IAMAuditConfig"
TOPIC = "gcp:pubsub/topic:Topic"
TOPIC_MEMBER = "gcp:pubsub/topicIAMMember:TopicIAMMember"
LOG_BUCKET = "gcp:logging/projectBucketConfig:ProjectBucketConfig"
LOG_SINK = "gcp:logging/projectSink:ProjectSink"


def key_account(value: Any) -> Any:
    """`projects/P/serviceAccounts/EMAIL/keys/ID` (IAM's key name) as the account it belongs to, the
    form pulumi-gcp's `serviceAccountId` takes."""
    return value.rsplit("/keys/", 1)[0] if isinstance(value, str) and "/keys/" in value else value


def relative(value: Any) -> Any:
    """A self link as the relative resource name the declaration uses (`projects/…`)."""
    if isinstance(value, str) and "/projects/" in value:
        return value[value.index("/projects/") + 1 :]
    return value


def last_segment(value: Any) -> Any:
    return value.rstrip("/").rsplit("/", 1)[-1] if isinstance(value, str) else value


def _same(value: Any) -> Any:
    return value


def parent_of(value: Any) -> Any:
    """`projects/p/locations/l/keyRings/r/cryptoKeys/k` -> `projects/p/locations/l/keyRings/r`."""
    return value.rsplit("/", 2)[0] if isinstance(value, str) and value.count("/") >= 2 else value


def location_of(value: Any) -> Any:
    parts = value.split("/") if isinstance(value, str) else []
    return parts[3] if len(parts) > 3 and parts[2] == "locations" else None


def account_id(email: Any) -> Any:
    return email.split("@", 1)[0] if isinstance(email, str) else email


@dataclass(frozen=True)
class Field:
    wire: str
    api: str
    to_wire: Callable[[Any], Any] = _same
    items: tuple[Field, ...] = ()  # a list of objects, converted item by item


def _get(document: Mapping[str, Any], path: str) -> Any:
    value: Any = document
    for part in path.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value


def _set(document: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for part in parents:
        document = document.setdefault(part, {})
    document[last] = value


def _convert(document: Mapping[str, Any], fields: tuple[Field, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for spec in fields:
        value = _get(document, spec.api)
        if value is None:
            continue
        if spec.items and isinstance(value, list):
            value = [_convert(item, spec.items) if isinstance(item, Mapping) else item for item in value]
        value = spec.to_wire(value)
        if value is not None:
            _set(out, spec.wire, value)
    return out


def to_wire(type_token: str, api_resource: Mapping[str, Any]) -> dict[str, Any]:
    """The live resource in the declared shape. Where the API's own switch is off (flow logs
    disabled, authorized networks off, autoscaling off), the input it belongs to reads as absent:
    settings left behind a disabled switch are not in force."""
    document = _convert(api_resource, FIELDS[type_token])
    for trigger, path, value in API_SET.get(type_token, ()):
        if _get(api_resource, path) != value:
            document.pop(trigger, None)
    return document


def wire_keys(type_token: str) -> frozenset[str]:
    """The top-level inputs the table reads: the drift spec's `read`."""
    return frozenset(spec.wire.split(".", 1)[0] for spec in FIELDS[type_token])


_int = int
_str = str
_RULE_ITEMS = (Field("protocol", "IPProtocol"), Field("ports", "ports"))
_NETWORK_REF = Field("network", "network", relative)

FIELDS: dict[str, tuple[Field, ...]] = {
    NETWORK: (
        Field("name", "name"),
        Field("autoCreateSubnetworks", "autoCreateSubnetworks"),
        Field("description", "description"),
        Field("routingMode", "routingConfig.routingMode"),
        Field("mtu", "mtu"),
    ),
    SUBNETWORK: (
        Field("name", "name"),
        Field("ipCidrRange", "ipCidrRange"),
        _NETWORK_REF,
        Field("region", "region", last_segment),
        Field("privateIpGoogleAccess", "privateIpGoogleAccess"),
        Field(
            "secondaryIpRanges",
            "secondaryIpRanges",
            items=(Field("rangeName", "rangeName"), Field("ipCidrRange", "ipCidrRange")),
        ),
        Field("logConfig.aggregationInterval", "logConfig.aggregationInterval"),
        Field("logConfig.flowSampling", "logConfig.flowSampling"),
        Field("logConfig.metadata", "logConfig.metadata"),
        Field("purpose", "purpose"),
        Field("stackType", "stackType"),
    ),
    FIREWALL: (
        Field("name", "name"),
        _NETWORK_REF,
        Field("description", "description"),
        Field("direction", "direction"),
        Field("priority", "priority"),
        Field("allows", "allowed", items=_RULE_ITEMS),
        Field("denies", "denied", items=_RULE_ITEMS),
        Field("sourceRanges", "sourceRanges"),
        Field("destinationRanges", "destinationRanges"),
        Field("sourceTags", "sourceTags"),
        Field("targetTags", "targetTags"),
        Field("sourceServiceAccounts", "sourceServiceAccounts"),
        Field("targetServiceAccounts", "targetServiceAccounts"),
        Field("disabled", "disabled"),
        Field("logConfig.metadata", "logConfig.metadata"),
    ),
    ROUTER: (
        Field("name", "name"),
        _NETWORK_REF,
        Field("region", "region", last_segment),
    ),
    ROUTER_NAT: (
        Field("name", "name"),
        Field("natIpAllocateOption", "natIpAllocateOption"),
        Field("sourceSubnetworkIpRangesToNat", "sourceSubnetworkIpRangesToNat"),
        Field(
            "subnetworks",
            "subnetworks",
            items=(Field("name", "name", relative), Field("sourceIpRangesToNats", "sourceIpRangesToNat")),
        ),
        Field("natIps", "natIps"),
        Field("logConfig.enable", "logConfig.enable"),
        Field("logConfig.filter", "logConfig.filter"),
        Field("minPortsPerVm", "minPortsPerVm"),
        Field("enableEndpointIndependentMapping", "enableEndpointIndependentMapping"),
    ),
    CLUSTER: (
        Field("name", "name"),
        Field("location", "location"),
        Field("addonsConfig", "addonsConfig"),
        Field("controlPlaneEndpointsConfig", "controlPlaneEndpointsConfig"),
        Field("databaseEncryption.keyName", "databaseEncryption.keyName"),
        Field("databaseEncryption.state", "databaseEncryption.state"),
        Field("datapathProvider", "networkConfig.datapathProvider"),
        Field("enableLegacyAbac", "legacyAbac.enabled"),
        Field("enableShieldedNodes", "shieldedNodes.enabled"),
        Field("gatewayApiConfig.channel", "networkConfig.gatewayApiConfig.channel"),
        Field("ipAllocationPolicy.clusterSecondaryRangeName", "ipAllocationPolicy.clusterSecondaryRangeName"),
        Field("ipAllocationPolicy.servicesSecondaryRangeName", "ipAllocationPolicy.servicesSecondaryRangeName"),
        Field(
            "networkingMode",
            "ipAllocationPolicy.useIpAliases",
            lambda alias: "VPC_NATIVE" if alias else "ROUTES",
        ),
        Field("loggingConfig.enableComponents", "loggingConfig.componentConfig.enableComponents"),
        Field("monitoringConfig.enableComponents", "monitoringConfig.componentConfig.enableComponents"),
        Field("monitoringConfig.managedPrometheus.enabled", "monitoringConfig.managedPrometheusConfig.enabled"),
        Field(
            "masterAuth.clientCertificateConfig.issueClientCertificate",
            "masterAuth.clientCertificateConfig.issueClientCertificate",
        ),
        Field("masterAuthorizedNetworksConfig.cidrBlocks", "masterAuthorizedNetworksConfig.cidrBlocks"),
        Field(
            "masterAuthorizedNetworksConfig.gcpPublicCidrsAccessEnabled",
            "masterAuthorizedNetworksConfig.gcpPublicCidrsAccessEnabled",
        ),
        Field(
            "masterAuthorizedNetworksConfig.privateEndpointEnforcementEnabled",
            "masterAuthorizedNetworksConfig.privateEndpointEnforcementEnabled",
        ),
        # The version the control plane runs: the declared minimum is what it must be on.
        Field("minMasterVersion", "currentMasterVersion"),
        Field("network", "networkConfig.network", relative),
        Field("subnetwork", "networkConfig.subnetwork", relative),
        Field("privateClusterConfig.enablePrivateNodes", "privateClusterConfig.enablePrivateNodes"),
        Field("privateClusterConfig.enablePrivateEndpoint", "privateClusterConfig.enablePrivateEndpoint"),
        Field("privateClusterConfig.masterIpv4CidrBlock", "privateClusterConfig.masterIpv4CidrBlock"),
        Field("networkPolicy.enabled", "networkPolicy.enabled"),
        Field("networkPolicy.provider", "networkPolicy.provider"),
        Field("releaseChannel.channel", "releaseChannel.channel"),
        Field("resourceLabels", "resourceLabels"),
        Field("workloadIdentityConfig.workloadPool", "workloadIdentityConfig.workloadPool"),
    ),
    NODE_POOL: (
        Field("name", "name"),
        Field("version", "version"),
        Field("nodeCount", "initialNodeCount"),
        Field("nodeLocations", "locations"),
        Field("management", "management"),
        Field("autoscaling.minNodeCount", "autoscaling.minNodeCount"),
        Field("autoscaling.maxNodeCount", "autoscaling.maxNodeCount"),
        Field("autoscaling.totalMinNodeCount", "autoscaling.totalMinNodeCount"),
        Field("autoscaling.totalMaxNodeCount", "autoscaling.totalMaxNodeCount"),
        Field("autoscaling.locationPolicy", "autoscaling.locationPolicy"),
        Field("placementPolicy", "placementPolicy"),
        Field("upgradeSettings", "upgradeSettings"),
        Field("nodeConfig.machineType", "config.machineType"),
        Field("nodeConfig.diskSizeGb", "config.diskSizeGb"),
        Field("nodeConfig.diskType", "config.diskType"),
        Field("nodeConfig.labels", "config.labels"),
        Field("nodeConfig.resourceLabels", "config.resourceLabels"),
        Field("nodeConfig.taints", "config.taints"),
        Field("nodeConfig.metadata", "config.metadata"),
        Field("nodeConfig.oauthScopes", "config.oauthScopes"),
        Field("nodeConfig.serviceAccount", "config.serviceAccount"),
        Field("nodeConfig.spot", "config.spot"),
        Field("nodeConfig.reservationAffinity", "config.reservationAffinity"),
        Field("nodeConfig.shieldedInstanceConfig", "config.shieldedInstanceConfig"),
        Field("nodeConfig.workloadMetadataConfig", "config.workloadMetadataConfig"),
        Field(
            "nodeConfig.guestAccelerators",
            "config.accelerators",
            items=(
                Field("type", "acceleratorType"),
                Field("count", "acceleratorCount", _int),  # int64: a string on the wire
                Field("gpuDriverInstallationConfig", "gpuDriverInstallationConfig"),
            ),
        ),
    ),
}

FIELDS.update(
    {
        GLOBAL_ADDRESS: (
            Field("name", "name"),
            Field("address", "address"),
            Field("addressType", "addressType"),
            Field("description", "description"),
            Field("ipVersion", "ipVersion"),
            Field("labels", "labels"),
            Field("purpose", "purpose"),
        ),
        SSL_POLICY: (
            Field("name", "name"),
            Field("description", "description"),
            Field("minTlsVersion", "minTlsVersion"),
            Field("profile", "profile"),
            Field("customFeatures", "customFeatures"),
        ),
        SECURITY_POLICY: (
            Field("name", "name"),
            Field("description", "description"),
            Field("labels", "labels"),
            Field("type", "type"),
            Field(
                "rules",
                "rules",
                items=(
                    Field("action", "action"),
                    Field("description", "description"),
                    Field("priority", "priority"),
                    Field("preview", "preview"),
                    Field("match", "match"),
                    # The rate limit of a throttle / rate_based_ban rule: its threshold, key and actions.
                    Field("rateLimitOptions", "rateLimitOptions"),
                ),
            ),
        ),
    }
)

FIELDS.update(
    {
        KEY_RING: (Field("name", "name", last_segment), Field("location", "name", location_of)),
        CRYPTO_KEY: (
            Field("name", "name", last_segment),
            Field("keyRing", "name", parent_of),
            Field("labels", "labels"),
            Field("purpose", "purpose"),
            Field("rotationPeriod", "rotationPeriod"),
            Field("versionTemplate", "versionTemplate"),
            Field("destroyScheduledDuration", "destroyScheduledDuration"),
        ),
        SECRET: (
            Field("secretId", "name", last_segment),
            Field("labels", "labels"),
            Field("annotations", "annotations"),
            Field("replication", "replication"),
            Field("versionDestroyTtl", "versionDestroyTtl"),
            Field("topics", "topics"),
            Field("rotation", "rotation"),
        ),
        SERVICE_ACCOUNT: (
            Field("accountId", "email", account_id),
            Field("description", "description"),
            Field("displayName", "displayName"),
            Field("disabled", "disabled"),
        ),
        # A user-managed key (iam.v1 ServiceAccountKey): read only to report it, never declared.
        SERVICE_ACCOUNT_KEY: (
            Field("serviceAccountId", "name", key_account),
            Field("keyAlgorithm", "keyAlgorithm"),
            Field("validAfter", "validAfterTime"),
            Field("validBefore", "validBeforeTime"),
        ),
        # IAM grants: read from the resource's IAM policy, one live resource per declared grant.
        KEY_BINDING: (Field("cryptoKeyId", "cryptoKeyId"), Field("role", "role"), Field("members", "members")),
        SECRET_MEMBER: (Field("secretId", "secretId"), Field("role", "role"), Field("member", "member")),
        PROJECT_MEMBER: (Field("role", "role"), Field("member", "member")),
        # The secrets' rotation topic (pubsub.v1 Topic) and who may publish on it.
        TOPIC: (
            Field("name", "name", last_segment),
            Field("labels", "labels"),
            Field("messageRetentionDuration", "messageRetentionDuration"),
            Field("kmsKeyName", "kmsKeyName"),
        ),
        TOPIC_MEMBER: (Field("topic", "topic"), Field("role", "role"), Field("member", "member")),
    }
)

# pulumi-gcp's `withState` is the JSON API's `isLive`: LIVE true, ARCHIVED false, ANY unset.
_LIFECYCLE_ITEMS = (
    Field("action.type", "action.type"),
    Field("action.storageClass", "action.storageClass"),
    Field("condition.age", "condition.age"),
    Field("condition.createdBefore", "condition.createdBefore"),
    Field(
        "condition.withState",
        "condition.isLive",
        lambda live: "LIVE" if live else "ARCHIVED",
    ),
    Field("condition.numNewerVersions", "condition.numNewerVersions"),
    Field("condition.daysSinceNoncurrentTime", "condition.daysSinceNoncurrentTime"),
    Field("condition.matchesPrefixes", "condition.matchesPrefix"),
    Field("condition.matchesSuffixes", "condition.matchesSuffix"),
    Field("condition.matchesStorageClasses", "condition.matchesStorageClass"),
)

FIELDS.update(
    {
        BUCKET: (
            Field("name", "name"),
            # Cloud Storage answers locations in capitals (US-CENTRAL1); declarations write them small.
            Field("location", "location", lambda v: v.lower() if isinstance(v, str) else v),
            Field("storageClass", "storageClass"),
            Field("uniformBucketLevelAccess", "iamConfiguration.uniformBucketLevelAccess.enabled"),
            Field("publicAccessPrevention", "iamConfiguration.publicAccessPrevention"),
            Field("encryption.defaultKmsKeyName", "encryption.defaultKmsKeyName"),
            Field("versioning.enabled", "versioning.enabled"),
            Field("labels", "labels"),
            Field("lifecycleRules", "lifecycle.rule", items=_LIFECYCLE_ITEMS),
            Field("retentionPolicy.retentionPeriod", "retentionPolicy.retentionPeriod", _str),  # int64
            Field("retentionPolicy.isLocked", "retentionPolicy.isLocked"),
        ),
        BUCKET_MEMBER: (
            Field("bucket", "bucket"),
            Field("role", "role"),
            Field("member", "member"),
            Field("condition", "condition"),
        ),
    }
)

def map_of_entry(value: Any) -> Any:
    """`projects/p/locations/global/certificateMaps/M/certificateMapEntries/E` -> `M`."""
    parts = value.split("/") if isinstance(value, str) else []
    return parts[-3] if len(parts) >= 3 else value


FIELDS.update(
    {
        CERT_MAP: (
            Field("name", "name", last_segment),
            Field("description", "description"),
            Field("labels", "labels"),
        ),
        CERT_MAP_ENTRY: (
            Field("map", "name", map_of_entry),
            Field("description", "description"),
            Field("matcher", "matcher"),
            Field("hostname", "hostname"),
            Field("certificates", "certificates"),
            Field("labels", "labels"),
        ),
    }
)

FIELDS.update(
    {
        # One service's entry of the project IAM policy's `auditConfigs`: a member exempted from its
        # Data Access logs by hand (`exemptedMembers`) is drift, as is a log type turned off.
        AUDIT_CONFIG: (
            Field("service", "service"),
            Field("auditLogConfigs", "auditLogConfigs",
                  items=(Field("logType", "logType"), Field("exemptedMembers", "exemptedMembers"))),
        ),
        # logging.v2 LogBucket: `name` is projects/P/locations/L/buckets/ID.
        LOG_BUCKET: (
            Field("bucketId", "name", last_segment),
            Field("location", "name", location_of),
            Field("description", "description"),
            Field("retentionDays", "retentionDays"),
            Field("locked", "locked"),
        ),
        # logging.v2 LogSink: `name` is the sink's own id; a sink disabled or given an exclusion by hand
        # routes nothing, or less, to the locked bucket.
        LOG_SINK: (
            Field("name", "name"),
            Field("destination", "destination"),
            Field("filter", "filter"),
            Field("description", "description"),
            Field("disabled", "disabled"),
            Field("exclusions", "exclusions",
                  items=(Field("name", "name"), Field("filter", "filter"), Field("disabled", "disabled"),
                         Field("description", "description"))),
        ),
    }
)

# The Gateway's policies in the cluster (`live_cluster`): their `spec`, as the Kubernetes API returns it.
FIELDS.update({
    f"kubernetes:networking.gke.io/v1:{kind}": (Field("spec", "spec"),)
    for kind in ("GCPBackendPolicy", "GCPGatewayPolicy", "HealthCheckPolicy")
})

# Inputs that are no setting of the live resource (create-time choices about a default node pool the
# cluster removes, pulumi-gcp's own deletion protection): the live view carries the declared value,
# so the policy rules judge the same resource live as offline. Drift ignores them.
CARRIED: dict[str, tuple[str, ...]] = {
    CLUSTER: ("nodeConfig", "removeDefaultNodePool", "initialNodeCount", "deletionProtection"),
    NODE_POOL: ("cluster",),
}

API_SET: dict[str, tuple[tuple[str, str, Any], ...]] = {
    SUBNETWORK: (("logConfig", "logConfig.enable", True),),
    FIREWALL: (("logConfig", "logConfig.enable", True),),
    CLUSTER: (("masterAuthorizedNetworksConfig", "masterAuthorizedNetworksConfig.enabled", True),),
    NODE_POOL: (("autoscaling", "autoscaling.enabled", True),),
}
