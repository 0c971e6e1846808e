"""The Google API fake refuses what Google refuses and serves the methods Google has for a change,
as compute.v1 / container.v1 / iam.v1's own reference (their discovery documents) states it. Each
test here failed on the fake before it paged, filtered, validated query parameters, denied
testIamPermissions and served the rule and setter methods."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from googleapiclient.errors import HttpError

from tests.support.google_api_fake import GoogleApiFake

PROJECT = "accelplane-test"
REGION = "us-central2"


@pytest.fixture
def fake():
    with GoogleApiFake() as running:
        yield running
        assert running.schema_errors == []


def _firewall(name: str, priority: int = 1000) -> dict:
    return {
        "name": name,
        "network": f"projects/{PROJECT}/global/networks/main",
        "priority": priority,
        "sourceRanges": ["10.0.0.0/8"],
        "allowed": [{"IPProtocol": "tcp", "ports": ["22"]}],
    }


def _three_firewalls(compute) -> None:
    for name, priority in (("allow-a", 900), ("allow-b", 1000), ("deny-c", 1100)):
        compute.firewalls().insert(project=PROJECT, body=_firewall(name, priority)).execute()


def _raw(fake: GoogleApiFake, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(
        fake.url + path, method=method, data=json.dumps(body).encode() if body is not None else None,
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


# -- lists: pages and filters ---------------------------------------------------------------


def test_a_list_answers_one_page_and_the_client_follows_next_page_tokens(fake):
    compute = fake.client("compute", "v1")
    _three_firewalls(compute)
    first = compute.firewalls().list(project=PROJECT).execute()
    assert [item["name"] for item in first["items"]] == ["allow-a"] and "nextPageToken" in first
    names, request = [], compute.firewalls().list(project=PROJECT)
    while request is not None:
        answer = request.execute()
        names += [item["name"] for item in answer.get("items", [])]
        request = compute.firewalls().list_next(request, answer)
    assert names == ["allow-a", "allow-b", "deny-c"]


def test_a_page_token_the_api_did_not_hand_out_is_a_400(fake):
    compute = fake.client("compute", "v1")
    _three_firewalls(compute)
    with pytest.raises(HttpError) as refused:
        compute.firewalls().list(project=PROJECT, pageToken="made-up").execute()
    assert refused.value.status_code == 400 and "page token" in str(refused.value)


def test_a_larger_page_size_still_pages_by_what_the_request_asks():
    with GoogleApiFake(page_size=500) as fake:
        compute = fake.client("compute", "v1")
        _three_firewalls(compute)
        two = compute.firewalls().list(project=PROJECT, maxResults=2).execute()
        assert [item["name"] for item in two["items"]] == ["allow-a", "allow-b"] and two["nextPageToken"]
        everything = compute.firewalls().list(project=PROJECT).execute()
        assert len(everything["items"]) == 3 and "nextPageToken" not in everything


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('name = "allow-b"', ["allow-b"]),
        ("name != allow-b", ["allow-a", "deny-c"]),
        ("name eq allow-.*", ["allow-a", "allow-b"]),  # Compute's RE2 form: the whole name must match
        ("name ne allow-.*", ["deny-c"]),
        ("priority > 950", ["allow-b", "deny-c"]),
        ('(priority >= 1000) (name = "deny-c")', ["deny-c"]),
        ("priority < 950 OR name = deny-c", ["allow-a", "deny-c"]),
        ("NOT name = allow-a", ["allow-b", "deny-c"]),
        ("sourceRanges = 10.0.0.0/8", ["allow-a", "allow-b", "deny-c"]),
        ("description:*", []),
    ],
)
def test_a_filter_selects_the_members_it_names(fake, expression, expected):
    compute = fake.client("compute", "v1")
    _three_firewalls(compute)
    names, request = [], compute.firewalls().list(project=PROJECT, filter=expression)
    while request is not None:
        answer = request.execute()
        names += [item["name"] for item in answer.get("items", [])]
        request = compute.firewalls().list_next(request, answer)
    assert names == expected


@pytest.mark.parametrize("expression", ["name = ", "(name = a", "name eq a AND priority > 1", "name ~ a"])
def test_a_filter_google_cannot_parse_is_a_400_never_ignored(fake, expression):
    compute = fake.client("compute", "v1")
    _three_firewalls(compute)
    with pytest.raises(HttpError) as refused:
        compute.firewalls().list(project=PROJECT, filter=expression).execute()
    assert refused.value.status_code == 400 and "filter" in str(refused.value)


def test_secret_manager_lists_filter_by_label_and_page(fake):
    secrets = fake.client("secretmanager", "v1").projects().secrets()
    for name, team in (("a", "ml"), ("b", "web"), ("c", "ml")):
        secrets.create(parent=f"projects/{PROJECT}", secretId=name,
                       body={"replication": {"automatic": {}}, "labels": {"team": team}}).execute()
    first = secrets.list(parent=f"projects/{PROJECT}", filter="labels.team=ml").execute()
    assert [s["name"].rsplit("/", 1)[-1] for s in first["secrets"]] == ["a"] and first["nextPageToken"]
    second = secrets.list(parent=f"projects/{PROJECT}", filter="labels.team=ml",
                          pageToken=first["nextPageToken"]).execute()
    assert [s["name"].rsplit("/", 1)[-1] for s in second["secrets"]] == ["c"] and "nextPageToken" not in second


# -- query parameters -------------------------------------------------------------------------


def test_a_query_parameter_the_method_does_not_have_is_a_400(fake):
    # The client library refuses unknown keyword arguments itself, so the request is sent by hand.
    status, body = _raw(fake, "GET", f"/compute/v1/compute/v1/projects/{PROJECT}/global/firewalls?pageSize=2")
    assert status == 400 and 'Unknown name "pageSize"' in body["error"]["message"]
    status, body = _raw(fake, "GET", f"/compute/v1/compute/v1/projects/{PROJECT}/global/firewalls?maxResults=two")
    assert status == 400 and "maxResults" in body["error"]["message"]
    status, _ = _raw(fake, "GET", f"/compute/v1/compute/v1/projects/{PROJECT}/global/firewalls?maxResults=2&alt=json")
    assert status == 200  # the API-wide parameters are everyone's


def test_a_create_takes_only_the_id_parameter_its_method_documents(fake):
    base = f"/secretmanager/v1/v1/projects/{PROJECT}/secrets"
    status, body = _raw(fake, "POST", f"{base}?keyRingId=hf-token", {"replication": {"automatic": {}}})
    assert status == 400 and 'Unknown name "keyRingId"' in body["error"]["message"]
    status, body = _raw(fake, "POST", base, {"replication": {"automatic": {}}})
    assert status == 400 and "secretId" in body["error"]["message"]
    status, body = _raw(fake, "POST", f"{base}?secretId=hf-token", {"replication": {"automatic": {}}})
    assert status == 200 and body["name"] == f"projects/{PROJECT}/secrets/hf-token"


# -- testIamPermissions -------------------------------------------------------------------------


def test_test_iam_permissions_holds_only_what_a_test_granted(fake):
    secrets = fake.client("secretmanager", "v1").projects().secrets()
    secrets.create(parent=f"projects/{PROJECT}", secretId="hf-token", body={"replication": {"automatic": {}}}).execute()
    name = f"projects/{PROJECT}/secrets/hf-token"
    asked = {"permissions": ["secretmanager.versions.access", "secretmanager.secrets.delete"]}
    assert secrets.testIamPermissions(resource=name, body=asked).execute() == {}
    fake.grant("secretmanager", "v1", f"v1/{name}", "secretmanager.versions.access")
    assert secrets.testIamPermissions(resource=name, body=asked).execute() == {
        "permissions": ["secretmanager.versions.access"]}


# -- Compute: optimistic locking, fields with methods of their own, security policy rules -------------


def _subnetwork(compute) -> dict:
    compute.subnetworks().insert(project=PROJECT, region=REGION, body={
        "name": "nodes", "network": f"projects/{PROJECT}/global/networks/main", "ipCidrRange": "10.0.0.0/20",
        "privateIpGoogleAccess": True}).execute()
    return compute.subnetworks().get(project=PROJECT, region=REGION, subnetwork="nodes").execute()


def test_a_subnetwork_patch_needs_the_current_fingerprint(fake):
    compute = fake.client("compute", "v1")
    current = _subnetwork(compute)
    with pytest.raises(HttpError) as stale:
        compute.subnetworks().patch(project=PROJECT, region=REGION, subnetwork="nodes",
                                    body={"description": "x"}).execute()
    assert stale.value.status_code == 412
    compute.subnetworks().patch(project=PROJECT, region=REGION, subnetwork="nodes",
                                body={"description": "x", "fingerprint": current["fingerprint"]}).execute()
    after = compute.subnetworks().get(project=PROJECT, region=REGION, subnetwork="nodes").execute()
    assert after["description"] == "x" and after["fingerprint"] != current["fingerprint"]


def test_private_google_access_changes_only_through_its_own_method(fake):
    compute = fake.client("compute", "v1")
    current = _subnetwork(compute)
    with pytest.raises(HttpError) as refused:
        compute.subnetworks().patch(project=PROJECT, region=REGION, subnetwork="nodes", body={
            "privateIpGoogleAccess": False, "fingerprint": current["fingerprint"]}).execute()
    assert refused.value.status_code == 400 and "setPrivateIpGoogleAccess" in str(refused.value)
    compute.subnetworks().setPrivateIpGoogleAccess(project=PROJECT, region=REGION, subnetwork="nodes",
                                                   body={"privateIpGoogleAccess": False}).execute()
    assert compute.subnetworks().get(project=PROJECT, region=REGION, subnetwork="nodes").execute()[
        "privateIpGoogleAccess"] is False


def _security_policy(compute) -> dict:
    rules = [
        {"priority": 1000, "action": "throttle", "match": {"expr": {"expression": "true"}},
         "rateLimitOptions": {"conformAction": "allow", "exceedAction": "deny(429)", "enforceOnKey": "IP",
                              "rateLimitThreshold": {"count": 600, "intervalSec": 60}}},
        {"priority": 2147483647, "action": "allow", "match": {"versionedExpr": "SRC_IPS_V1",
                                                                "config": {"srcIpRanges": ["*"]}}},
    ]
    compute.securityPolicies().insert(project=PROJECT, body={"name": "edge", "rules": rules}).execute()
    return compute.securityPolicies().get(project=PROJECT, securityPolicy="edge").execute()


def test_a_security_policy_patch_cannot_change_its_rules(fake):
    compute = fake.client("compute", "v1")
    policy = _security_policy(compute)
    changed = [dict(policy["rules"][0], action="allow"), policy["rules"][1]]
    with pytest.raises(HttpError) as refused:
        compute.securityPolicies().patch(project=PROJECT, securityPolicy="edge", body={
            "rules": changed, "fingerprint": policy["fingerprint"]}).execute()
    assert refused.value.status_code == 400 and "patchRule" in str(refused.value)


def test_security_policy_rules_change_through_add_patch_and_remove_rule(fake):
    compute = fake.client("compute", "v1")
    _security_policy(compute)
    policies = compute.securityPolicies()
    policies.patchRule(project=PROJECT, securityPolicy="edge", priority=1000, body={
        "rateLimitOptions": {"conformAction": "allow", "exceedAction": "deny(429)", "enforceOnKey": "IP",
                             "rateLimitThreshold": {"count": 6000, "intervalSec": 60}}}).execute()
    rule = policies.getRule(project=PROJECT, securityPolicy="edge", priority=1000).execute()
    assert rule["rateLimitOptions"]["rateLimitThreshold"]["count"] == 6000 and rule["action"] == "throttle"
    policies.addRule(project=PROJECT, securityPolicy="edge", body={
        "priority": 500, "action": "deny(403)", "match": {"versionedExpr": "SRC_IPS_V1",
                                                          "config": {"srcIpRanges": ["203.0.113.0/24"]}}}).execute()
    with pytest.raises(HttpError) as duplicate:
        policies.addRule(project=PROJECT, securityPolicy="edge", body={"priority": 500, "action": "allow"}).execute()
    assert duplicate.value.status_code == 400
    policies.removeRule(project=PROJECT, securityPolicy="edge", priority=1000).execute()
    with pytest.raises(HttpError) as default_rule:
        policies.removeRule(project=PROJECT, securityPolicy="edge", priority=2147483647).execute()
    assert default_rule.value.status_code == 400
    rules = policies.get(project=PROJECT, securityPolicy="edge").execute()["rules"]
    assert [(r["priority"], r["action"]) for r in rules] == [(500, "deny(403)"), (2147483647, "allow")]


# -- GKE and IAM methods the fake used to refuse -------------------------------------------------------


def test_gke_set_logging_and_update_master_change_what_they_name(fake):
    clusters = fake.client("container", "v1").projects().locations().clusters()
    parent = f"projects/{PROJECT}/locations/{REGION}"
    name = f"{parent}/clusters/prod"
    clusters.create(parent=parent, body={"cluster": {
        "name": "prod", "loggingService": "logging.googleapis.com/kubernetes", "initialClusterVersion": "1.33",
    }}).execute()
    clusters.setLogging(name=name, body={"loggingService": "none"}).execute()
    clusters.updateMaster(name=name, body={"masterVersion": "1.34.1-gke.100"}).execute()
    cluster = clusters.get(name=name).execute()
    assert cluster["loggingService"] == "none" and cluster["currentMasterVersion"] == "1.34.1-gke.100"


def test_a_service_account_key_is_created_and_listed_without_its_private_part(fake):
    iam = fake.client("iam", "v1").projects().serviceAccounts()
    iam.create(name=f"projects/{PROJECT}", body={"accountId": "trainer", "serviceAccount": {}}).execute()
    account = f"projects/{PROJECT}/serviceAccounts/trainer"
    created = iam.keys().create(name=account, body={}).execute()
    assert created["keyType"] == "USER_MANAGED" and created["privateKeyData"]
    listed = iam.keys().list(name=account).execute()["keys"]
    assert [key["name"] for key in listed] == [created["name"]] and "privateKeyData" not in listed[0]
