"""tests/support/google_api_fake: the stand-in for Google APIs without an emulator answers plain
google-api-python-client calls as the real API's shape says, keeps what they write, refuses a
body the API would refuse, and answers chosen methods with Google's own faults."""

from __future__ import annotations

import http.client

import pytest
from googleapiclient.errors import HttpError

from tests.support.google_api_fake import GoogleApiFake, schema
from tools import google_discovery as discovery

PROJECT = "accelplane-test"


@pytest.fixture
def fake():
    with GoogleApiFake() as running:
        yield running
        assert running.schema_errors == []


def _firewall(name: str, ports: list[str]) -> dict:
    return {
        "name": name,
        "network": f"projects/{PROJECT}/global/networks/main",
        "direction": "INGRESS",
        "sourceRanges": ["10.0.0.0/8"],
        "allowed": [{"IPProtocol": "tcp", "ports": ports}],
    }


def test_compute_insert_get_list_patch_delete(fake):
    compute = fake.client("compute", "v1")
    operation = compute.firewalls().insert(project=PROJECT, body=_firewall("allow-ssh", ["22"])).execute()
    assert operation["status"] == "DONE" and operation["kind"] == "compute#operation"
    got = compute.firewalls().get(project=PROJECT, firewall="allow-ssh").execute()
    assert got["allowed"] == [{"IPProtocol": "tcp", "ports": ["22"]}] and got["kind"] == "compute#firewall"
    compute.firewalls().patch(project=PROJECT, firewall="allow-ssh", body={"sourceRanges": ["0.0.0.0/0"]}).execute()
    listed = compute.firewalls().list(project=PROJECT).execute()
    assert [item["sourceRanges"] for item in listed["items"]] == [["0.0.0.0/0"]]
    compute.firewalls().delete(project=PROJECT, firewall="allow-ssh").execute()
    with pytest.raises(HttpError) as missing:
        compute.firewalls().get(project=PROJECT, firewall="allow-ssh").execute()
    assert missing.value.status_code == 404
    assert fake.calls[0] == "compute.firewalls.insert" and fake.calls[-1] == "compute.firewalls.get"


def test_wrapped_create_and_resource_names_of_path_style_apis(fake):
    container = fake.client("container", "v1")
    parent = f"projects/{PROJECT}/locations/us-central2"
    container.projects().locations().clusters().create(parent=parent, body={"cluster": {"name": "prod"}}).execute()
    cluster = container.projects().locations().clusters().get(name=f"{parent}/clusters/prod").execute()
    assert cluster["name"] == "prod"
    secrets = fake.client("secretmanager", "v1")
    secrets.projects().secrets().create(
        parent=f"projects/{PROJECT}", secretId="hf-token", body={"replication": {"automatic": {}}}
    ).execute()
    secret = secrets.projects().secrets().get(name=f"projects/{PROJECT}/secrets/hf-token").execute()
    assert secret["name"] == f"projects/{PROJECT}/secrets/hf-token"


def test_iam_policy_round_trip_with_etag(fake):
    secrets = fake.client("secretmanager", "v1")
    name = f"projects/{PROJECT}/secrets/hf-token"
    secrets.projects().secrets().create(parent=f"projects/{PROJECT}", secretId="hf-token", body={}).execute()
    policy = secrets.projects().secrets().getIamPolicy(resource=name).execute()
    policy["bindings"] = [{"role": "roles/secretmanager.secretAccessor", "members": ["user:someone@example.com"]}]
    written = secrets.projects().secrets().setIamPolicy(resource=name, body={"policy": policy}).execute()
    assert secrets.projects().secrets().getIamPolicy(resource=name).execute() == written
    with pytest.raises(HttpError) as stale:  # the old etag: someone else wrote in between
        secrets.projects().secrets().setIamPolicy(resource=name, body={"policy": policy}).execute()
    assert stale.value.status_code == 409


def test_set_iam_policy_changes_audit_configs_only_when_the_mask_names_them(fake):
    # SetIamPolicyRequest.updateMask, default "bindings, etag": a policy written without a mask keeps
    # the project's audit configs, whatever the body says (what a careless read-modify-write relies on).
    fake.put("cloudresourcemanager", "v3", f"v3/projects/{PROJECT}", {"name": "projects/1", "projectId": PROJECT})
    projects = fake.client("cloudresourcemanager", "v3").projects()
    resource = f"projects/{PROJECT}"
    audit = [{"service": "storage.googleapis.com", "auditLogConfigs": [{"logType": "DATA_READ"}]}]
    owner = [{"role": "roles/owner", "members": ["group:admins@example.com"]}]
    projects.setIamPolicy(resource=resource, body={"policy": {"bindings": owner, "auditConfigs": audit}}).execute()
    assert "auditConfigs" not in projects.getIamPolicy(resource=resource, body={}).execute()

    projects.setIamPolicy(resource=resource, body={"policy": {"bindings": owner, "auditConfigs": audit},
                                                  "updateMask": "bindings,etag,auditConfigs"}).execute()
    projects.setIamPolicy(resource=resource, body={"policy": {"bindings": []}}).execute()  # default mask
    policy = projects.getIamPolicy(resource=resource, body={}).execute()
    assert policy["auditConfigs"] == audit and policy.get("bindings", []) == []


def test_a_pubsub_topic_is_created_at_its_name_once(fake):
    # topics.create is a PUT to the topic's own name (pubsub.v1 `v1/{+name}`); a second create of the same
    # name is refused as Pub/Sub does (409 ALREADY_EXISTS), and so is a name starting with "goog".
    topics = fake.client("pubsub", "v1").projects().topics()
    name = f"projects/{PROJECT}/topics/rotation"
    assert topics.create(name=name, body={"labels": {"owner": "ml"}}).execute() == {
        "name": name, "labels": {"owner": "ml"}}
    assert topics.list(project=f"projects/{PROJECT}").execute()["topics"] == [{"name": name, "labels": {"owner": "ml"}}]
    with pytest.raises(HttpError) as again:
        topics.create(name=name, body={}).execute()
    assert again.value.status_code == 409
    with pytest.raises(HttpError) as reserved:
        topics.create(name=f"projects/{PROJECT}/topics/google-things", body={}).execute()
    assert reserved.value.status_code == 400


def test_a_body_the_api_would_refuse_is_a_400(fake):
    compute = fake.client("compute", "v1")
    body = {**_firewall("bad", ["22"]), "sourceRange": ["0.0.0.0/0"]}
    with pytest.raises(HttpError) as refused:
        compute.firewalls().insert(project=PROJECT, body=body).execute()
    assert refused.value.status_code == 400 and "unknown field 'sourceRange'" in str(refused.value)


def test_a_method_the_fake_does_not_serve_says_so(fake):
    container = fake.client("container", "v1")
    with pytest.raises(HttpError) as unserved:
        container.projects().locations().getServerConfig(name=f"projects/{PROJECT}/locations/us-central2").execute()
    assert unserved.value.status_code == 501 and "getServerConfig" in str(unserved.value)


def test_a_registered_handler_serves_a_custom_method_and_its_answer_is_checked(fake):
    fake.handle("container.projects.locations.getServerConfig", lambda state, call: {"defaultClusterVersion": 133})
    container = fake.client("container", "v1")
    container.projects().locations().getServerConfig(name=f"projects/{PROJECT}/locations/us-central2").execute()
    assert fake.schema_errors == [
        "container.projects.locations.getServerConfig: $.defaultClusterVersion: expected string, got int"
    ]
    fake.schema_errors.clear()


@pytest.mark.parametrize(
    ("kind", "status", "text"),
    [
        ("denied", 403, "Permission 'container.clusters.get' denied"),
        ("disabled", 403, "container.googleapis.com API has not been used in project accelplane-test"),
        ("rate_limited", 429, "Quota exceeded"),
        ("html", 500, "<!DOCTYPE html>"),
    ],
)
def test_faults_in_google_s_error_format(fake, kind, status, text):
    fake.fault("container.projects.locations.clusters.get", kind, permission="container.clusters.get", times=1)
    clusters = fake.client("container", "v1").projects().locations().clusters()
    name = f"projects/{PROJECT}/locations/us-central2/clusters/prod"
    with pytest.raises(HttpError) as failed:
        clusters.get(name=name).execute()
    assert failed.value.status_code == status and text in failed.value.content.decode()
    with pytest.raises(HttpError) as after:  # times=1: the next call reaches the state (no cluster: 404)
        clusters.get(name=name).execute()
    assert after.value.status_code == 404


def test_a_cut_connection(fake):
    fake.fault("compute.networks.get", "cut")
    connection = http.client.HTTPConnection(fake.url.removeprefix("http://"), timeout=5)
    connection.request("GET", f"/compute/v1/compute/v1/projects/{PROJECT}/global/networks/main")
    with pytest.raises((http.client.RemoteDisconnected, ConnectionResetError)):
        connection.getresponse()


def test_routes_pick_the_most_literal_template():
    api = discovery.load("secretmanager", "v1")
    method, parameters = api.route("GET", f"v1/projects/{PROJECT}/secrets/hf:getIamPolicy")
    assert method.id == "secretmanager.projects.secrets.getIamPolicy"
    assert parameters == {"projectsId": PROJECT, "secretsId": "hf"}


def test_schema_errors_name_the_json_path():
    schemas = discovery.load("compute", "v1").schemas
    problems = schema.errors(schemas, "Firewall", {"allowed": [{"IPProtocol": 6}], "direction": "SIDEWAYS"})
    assert problems == [
        "$.allowed[0].IPProtocol: expected string, got int",
        "$.direction: 'SIDEWAYS' is not one of ['EGRESS', 'INGRESS']",
    ]
