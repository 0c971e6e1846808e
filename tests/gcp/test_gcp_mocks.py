"""GcpLikeMocks answer like Google Cloud: the shapes the components' applies and the rules rely on."""

from __future__ import annotations

from typing import Any

import pulumi

from accelplane.clouds.gcp.mocks import FAKE_PROJECT_NUMBER, GcpLikeMocks


def _new(mocks: GcpLikeMocks, typ: str, name: str, inputs: dict[str, Any], custom: bool = True) -> tuple[Any, dict]:
    args = pulumi.runtime.MockResourceArgs(typ=typ, name=name, inputs=inputs, provider=None, resource_id=None,
                                           custom=custom)
    return mocks.new_resource(args)


def _call(mocks: GcpLikeMocks, token: str, args: dict[str, Any]) -> dict[str, Any]:
    outputs, failures = mocks.call(pulumi.runtime.MockCallArgs(token=token, args=args, provider=""))
    assert failures == []
    return outputs


def test_ids_names_and_self_links_follow_google_formats() -> None:
    mocks = GcpLikeMocks(project="p1", region="europe-west4")
    assert mocks.project_number == FAKE_PROJECT_NUMBER
    vpc_id, vpc = _new(mocks, "gcp:compute/network:Network", "net", {"autoCreateSubnetworks": False})
    assert vpc_id == f"projects/p1/global/networks/{vpc['name']}" and vpc["name"].startswith("net-")
    assert vpc["selfLink"] == f"https://www.googleapis.com/compute/v1/{vpc_id}"
    subnet_id, _ = _new(mocks, "gcp:compute/subnetwork:Subnetwork", "sub", {"name": "nodes"})
    assert subnet_id == "projects/p1/regions/europe-west4/subnetworks/nodes"
    ring_id, _ = _new(mocks, "gcp:kms/keyRing:KeyRing", "ring", {"name": "r", "location": "europe-west4"})
    key_id, _ = _new(mocks, "gcp:kms/cryptoKey:CryptoKey", "key", {"name": "k", "keyRing": ring_id})
    assert key_id == "projects/p1/locations/europe-west4/keyRings/r/cryptoKeys/k"
    _, account = _new(mocks, "gcp:serviceaccount/account:Account", "sa", {"accountId": "nodes-sa"})
    assert account["email"] == "nodes-sa@p1.iam.gserviceaccount.com"
    assert account["member"] == "serviceAccount:nodes-sa@p1.iam.gserviceaccount.com"
    bucket_id, bucket = _new(mocks, "gcp:storage/bucket:Bucket", "b", {"location": "EU"})
    assert bucket["url"] == f"gs://{bucket_id}" == f"gs://{bucket['name']}"
    secret_id, secret = _new(mocks, "gcp:secretmanager/secret:Secret", "s", {"secretId": "hf"})
    assert secret_id == "projects/p1/secrets/hf" and secret["name"] == f"projects/{FAKE_PROJECT_NUMBER}/secrets/hf"
    version_id, version = _new(mocks, "gcp:secretmanager/secretVersion:SecretVersion", "v", {"secret": secret_id})
    assert version_id == f"projects/{FAKE_PROJECT_NUMBER}/secrets/hf/versions/1" and version["version"] == "1"


def test_cluster_answers_with_endpoint_ca_and_version() -> None:
    mocks = GcpLikeMocks(project="p1", region="us-east5")
    cluster_id, cluster = _new(
        mocks, "gcp:container/cluster:Cluster", "c",
        {"name": "ml", "location": "us-east5", "minMasterVersion": "1.33", "privateClusterConfig": {}},
    )
    assert cluster_id == "projects/p1/locations/us-east5/clusters/ml"
    assert cluster["endpoint"].startswith("34.") and cluster["masterVersion"] == "1.33"
    assert cluster["masterAuth"]["clusterCaCertificate"].startswith("LS0tLS1CRUdJTi")
    private = _new(mocks, "gcp:container/cluster:Cluster", "c2",
                   {"name": "ml2", "privateClusterConfig": {"enablePrivateEndpoint": True}})[1]
    assert private["endpoint"].startswith("172.")
    pool_inputs = {"name": "tpu", "cluster": cluster_id, "location": "us-east5", "nodeLocations": ["us-east5-a"]}
    pool_id, pool = _new(mocks, "gcp:container/nodePool:NodePool", "np", pool_inputs)
    assert pool_id == f"{cluster_id}/nodePools/tpu" and len(pool["instanceGroupUrls"]) == 1


def test_results_are_deterministic_and_components_pass_through() -> None:
    first = _new(GcpLikeMocks("p", "r"), "gcp:compute/firewall:Firewall", "fw", {})
    assert first == _new(GcpLikeMocks("p", "r"), "gcp:compute/firewall:Firewall", "fw", {})
    assert _new(GcpLikeMocks("p", "r"), "accelplane:gcp:X", "x", {"a": 1}, custom=False) == (None, {"a": 1})


def test_invokes_answer_project_number_and_service_agents() -> None:
    mocks = GcpLikeMocks(project="p1", region="us-east5", project_number="42")
    project = _call(mocks, "gcp:organizations/getProject:getProject", {"projectId": "p1"})
    assert project["number"] == "42" and project["projectId"] == "p1"
    gcs = _call(mocks, "gcp:storage/getProjectServiceAccount:getProjectServiceAccount", {"project": "p1"})
    assert gcs["emailAddress"] == "service-42@gs-project-accounts.iam.gserviceaccount.com"
    _, identity = _new(mocks, "gcp:projects/serviceIdentity:ServiceIdentity", "sm",
                       {"service": "secretmanager.googleapis.com"})
    assert identity["email"] == "service-42@gcp-sa-secretmanager.iam.gserviceaccount.com"
    versions = _call(mocks, "gcp:container/getEngineVersions:getEngineVersions", {"location": "us-east5"})
    assert versions["latestMasterVersion"] in versions["validMasterVersions"]
    assert _call(mocks, "gcp:unknown/thing:thing", {}) == {}
