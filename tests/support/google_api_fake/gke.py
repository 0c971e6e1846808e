"""GKE's methods with semantics of their own, for the fake (`install(fake)`): a cluster answers
with its node pools inside it (as `clusters.get`/`list` do), `clusters.update` applies each
`desired…` field to the setting it names, and the node pool setters change what they say.
A `desired…` field or update field not mapped here answers 501, naming it."""

from __future__ import annotations

import copy

from tests.support.google_api_fake.state import ApiError, Call, State

_CONTAINER = "container.projects.locations.clusters"
# ClusterUpdate.desired… -> the Cluster field it sets (dotted).
_DESIRED = {
    "desiredAddonsConfig": "addonsConfig",
    "desiredControlPlaneEndpointsConfig": "controlPlaneEndpointsConfig",
    "desiredDatabaseEncryption": "databaseEncryption",
    "desiredDatapathProvider": "networkConfig.datapathProvider",
    "desiredEnablePrivateEndpoint": "privateClusterConfig.enablePrivateEndpoint",
    "desiredGatewayApiConfig": "networkConfig.gatewayApiConfig",
    "desiredLoggingConfig": "loggingConfig",
    "desiredMasterAuthorizedNetworksConfig": "masterAuthorizedNetworksConfig",
    "desiredMasterVersion": "currentMasterVersion",
    "desiredMonitoringConfig": "monitoringConfig",
    "desiredPrivateClusterConfig": "privateClusterConfig",
    "desiredReleaseChannel": "releaseChannel",
    "desiredShieldedNodes": "shieldedNodes",
    "desiredWorkloadIdentityConfig": "workloadIdentityConfig",
}
# UpdateNodePoolRequest field -> (NodePool field, the key inside the request's value or None).
_POOL_UPDATE = {
    "nodeVersion": ("version", None),
    "locations": ("locations", None),
    "machineType": ("config.machineType", None),
    "diskSizeGb": ("config.diskSizeGb", None),
    "diskType": ("config.diskType", None),
    "labels": ("config.labels", "labels"),
    "resourceLabels": ("config.resourceLabels", "labels"),
    "taints": ("config.taints", "taints"),
    "workloadMetadataConfig": ("config.workloadMetadataConfig", None),
    "upgradeSettings": ("upgradeSettings", None),
}
_IDENTITY = frozenset({"name", "projectId", "zone", "clusterId", "nodePoolId", "etag"})


def _set(document: dict, dotted: str, value: object) -> None:
    *parents, last = dotted.split(".")
    for part in parents:
        document = document.setdefault(part, {})
    document[last] = copy.deepcopy(value)


def _cluster_path(call: Call) -> str:
    return call.path.split(":", 1)[0]


def _with_pools(state: State, call: Call, path: str, cluster: dict) -> dict:
    prefix = f"container/v1/{path}/nodePools/"
    pools = [
        copy.deepcopy(pool)
        for key, pool in sorted(state.resources.items())
        if key.startswith(prefix) and "/" not in key[len(prefix) :]
    ]
    answer = copy.deepcopy(cluster)
    if pools:
        answer["nodePools"] = pools
    return answer


def _existing(state: State, path: str) -> dict:
    found = state.resources.get(f"container/v1/{path}")
    if found is None:
        raise ApiError(404, f"Not found: {path.removeprefix('v1/')}.")
    return found


def _operation(state: State, call: Call, kind: str) -> dict:
    return {
        "name": f"operation-{next(state._serial)}",
        "operationType": kind,
        "status": "DONE",
        "selfLink": f"https://container.googleapis.com/{call.path}",
        "targetLink": f"https://container.googleapis.com/{_cluster_path(call)}",
    }


def get_cluster(state: State, call: Call) -> dict:
    return _with_pools(state, call, call.path, _existing(state, call.path))


def list_clusters(state: State, call: Call) -> dict:
    prefix = f"container/v1/{call.path}/"
    clusters = [
        _with_pools(state, call, key.removeprefix("container/v1/"), cluster)
        for key, cluster in sorted(state.resources.items())
        if key.startswith(prefix) and "/" not in key[len(prefix) :]
    ]
    return {"clusters": clusters} if clusters else {}


def update_cluster(state: State, call: Call) -> dict:
    cluster = _existing(state, call.path)
    for field, value in ((call.body or {}).get("update") or {}).items():
        if field not in _DESIRED:
            raise ApiError(
                501, f"the fake does not apply ClusterUpdate.{field}; map it in tests/support/google_api_fake/gke.py"
            )
        _set(cluster, _DESIRED[field], value)
    return _operation(state, call, "UPDATE_CLUSTER")


def _setter(field: str, target: str, kind: str):
    """A `set…` method: the request's `field` becomes the resource's `target`."""

    def handler(state: State, call: Call) -> dict:
        _set(_existing(state, call.path.split(":", 1)[0]), target, (call.body or {}).get(field))
        return _operation(state, call, kind)

    return handler


def update_node_pool(state: State, call: Call) -> dict:
    pool = _existing(state, call.path)
    for field, value in (call.body or {}).items():
        if field in _IDENTITY:
            continue
        if field not in _POOL_UPDATE:
            raise ApiError(501, f"the fake does not apply UpdateNodePoolRequest.{field}; map it in gke.py")
        target, inner = _POOL_UPDATE[field]
        _set(pool, target, value.get(inner) if inner and isinstance(value, dict) else value)
    return _operation(state, call, "UPGRADE_NODES")


def set_size(state: State, call: Call) -> dict:
    """`nodePools.setSize`: every zone's managed instance group of the pool gets the new target size (what
    GKE changes; the pool's `initialNodeCount` stays the size it was created with)."""
    pool = _existing(state, call.path.split(":", 1)[0])
    count = (call.body or {}).get("nodeCount")
    if not isinstance(count, int) or count < 0:
        raise ApiError(400, "Invalid value for field 'nodeCount': must be a non-negative integer.")
    for url in pool.get("instanceGroupUrls") or []:
        key = "compute/v1/" + str(url).split("/compute/v1/", 1)[1]
        group = state.resources.get(key)
        if group is None:
            raise ApiError(500, f"the pool's instance group {url} is not in the fake's state")
        group["targetSize"] = count
    return _operation(state, call, "SET_NODE_POOL_SIZE")


def install(fake) -> None:
    fake.handle(f"{_CONTAINER}.get", get_cluster)
    fake.handle(f"{_CONTAINER}.list", list_clusters)
    fake.handle(f"{_CONTAINER}.update", update_cluster)
    fake.handle(f"{_CONTAINER}.setLegacyAbac", _setter("enabled", "legacyAbac.enabled", "SET_MASTER_AUTH"))
    fake.handle(f"{_CONTAINER}.setResourceLabels", _setter("resourceLabels", "resourceLabels", "SET_LABELS"))
    fake.handle(f"{_CONTAINER}.setLogging", _setter("loggingService", "loggingService", "UPDATE_CLUSTER"))
    fake.handle(f"{_CONTAINER}.setMonitoring", _setter("monitoringService", "monitoringService", "UPDATE_CLUSTER"))
    fake.handle(f"{_CONTAINER}.updateMaster", _setter("masterVersion", "currentMasterVersion", "UPGRADE_MASTER"))
    fake.handle(
        f"{_CONTAINER}.setNetworkPolicy", _setter("networkPolicy", "networkPolicy", "SET_NETWORK_POLICY")
    )
    pools = f"{_CONTAINER}.nodePools"
    fake.handle(f"{pools}.update", update_node_pool)
    fake.handle(f"{pools}.setAutoscaling", _setter("autoscaling", "autoscaling", "SET_NODE_POOL_MANAGEMENT"))
    fake.handle(f"{pools}.setManagement", _setter("management", "management", "SET_NODE_POOL_MANAGEMENT"))
    fake.handle(f"{pools}.setSize", set_size)
