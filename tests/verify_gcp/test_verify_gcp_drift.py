"""Every class of hand-made change verify finds on Google Cloud, each made with a plain
google-api-python-client call on the deployed tpu-prod platform, as an operator would make it in
the console or with gcloud; and each is reported as the drift it is (the check and the input)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from accelplane.verify.results import CheckId, Status
from tests.support.gcp_platform import Deployment

CLUSTER = "projects/acme-ml-tpu-prod/locations/us-central1/clusters/acme-tpu"


def _compute(d: Deployment):
    return d.client("compute")


def _clusters(d: Deployment):
    return d.client("container").projects().locations().clusters()


def _firewall(d: Deployment, logical: str) -> dict:
    return {"project": d.project, "firewall": d.live_name(logical)}


def _patch_firewall(logical: str, body: dict) -> Callable[[Deployment], None]:
    return lambda d: _compute(d).firewalls().patch(**_firewall(d, logical), body=body).execute()


def _network_link(d: Deployment) -> str:
    return f"projects/{d.project}/global/networks/{d.live_name('acme-tpu-network-vpc')}"


def _extra_firewall(d: Deployment) -> None:
    body = {
        "name": "allow-ssh-debug",
        "network": _network_link(d),
        "direction": "INGRESS",
        "sourceRanges": ["0.0.0.0/0"],
        "allowed": [{"IPProtocol": "tcp", "ports": ["22"]}],
    }
    _compute(d).firewalls().insert(project=d.project, body=body).execute()


def _extra_subnetwork(d: Deployment) -> None:
    body = {"name": "scratch", "network": _network_link(d), "ipCidrRange": "10.99.0.0/24"}
    _compute(d).subnetworks().insert(project=d.project, region=d.region, body=body).execute()


def _subnetwork(d: Deployment) -> dict:
    return {"project": d.project, "region": d.region, "subnetwork": d.live_name("acme-tpu-network-nodes")}


def _patch_subnetwork(body: dict) -> Callable[[Deployment], None]:
    """A patch with the subnetwork's current fingerprint, as `gcloud compute networks subnets update` sends."""

    def apply(d: Deployment) -> None:
        current = _compute(d).subnetworks().get(**_subnetwork(d)).execute()
        change = {**body, "fingerprint": current["fingerprint"]}
        _compute(d).subnetworks().patch(**_subnetwork(d), body=change).execute()

    return apply


def _private_google_access_off(d: Deployment) -> None:
    body = {"privateIpGoogleAccess": False}
    _compute(d).subnetworks().setPrivateIpGoogleAccess(**_subnetwork(d), body=body).execute()


def _router(d: Deployment) -> dict:
    return {"project": d.project, "region": d.region, "router": d.live_name("acme-tpu-network-router")}


def _nats(change: Callable[[list[dict]], list[dict]]) -> Callable[[Deployment], None]:
    def apply(d: Deployment) -> None:
        router = _compute(d).routers().get(**_router(d)).execute()
        _compute(d).routers().patch(**_router(d), body={"nats": change(router["nats"])}).execute()

    return apply


def _nat_logs_all(nats: list[dict]) -> list[dict]:
    return [{**nats[0], "logConfig": {"enable": True, "filter": "ALL"}}]


def _extra_nat(nats: list[dict]) -> list[dict]:
    return [
        *nats,
        {
            "name": "debug-nat",
            "natIpAllocateOption": "AUTO_ONLY",
            "sourceSubnetworkIpRangesToNat": "ALL_SUBNETWORKS_ALL_IP_RANGES",
        },
    ]


def _update_cluster(update: dict) -> Callable[[Deployment], None]:
    return lambda d: _clusters(d).update(name=CLUSTER, body={"update": update}).execute()


def _pool(name: str) -> str:
    return f"{CLUSTER}/nodePools/{name}"


def _update_pool(name: str, body: dict) -> Callable[[Deployment], None]:
    return lambda d: _clusters(d).nodePools().update(name=_pool(name), body=body).execute()


def _extra_pool(d: Deployment) -> None:
    body = {"nodePool": {"name": "debug", "initialNodeCount": 1, "config": {"machineType": "a3-highgpu-8g"}}}
    _clusters(d).nodePools().create(parent=CLUSTER, body=body).execute()


def _ssl(d: Deployment) -> None:
    name = d.live_name("acme-tpu-inference-ssl")
    current = _compute(d).sslPolicies().get(project=d.project, sslPolicy=name).execute()
    body = {"minTlsVersion": "TLS_1_0", "fingerprint": current["fingerprint"]}
    _compute(d).sslPolicies().patch(project=d.project, sslPolicy=name, body=body).execute()


def _armor(change: Callable[[list[dict]], list[dict]], logical: str = "acme-tpu-inference-armor"
           ) -> Callable[[Deployment], None]:
    """The policy's rules changed one by one, as `gcloud compute security-policies rules update /
    create / delete` does: a policy's patch cannot change its rules."""

    def apply(d: Deployment) -> None:
        policies, name = _compute(d).securityPolicies(), d.live_name(logical)
        where = {"project": d.project, "securityPolicy": name}
        before = {rule["priority"]: rule for rule in policies.get(**where).execute()["rules"]}
        after = {rule["priority"]: rule for rule in change(list(before.values()))}
        for priority in sorted(before.keys() - after.keys()):
            policies.removeRule(**where, priority=priority).execute()
        for priority, rule in sorted(after.items()):
            if priority not in before:
                policies.addRule(**where, body=rule).execute()
            elif rule != before[priority]:
                policies.patchRule(**where, priority=priority, body=rule).execute()

    return apply


def _widen_allow_list(rules: list[dict]) -> list[dict]:
    allow = next(rule for rule in rules if rule["action"] == "allow")
    widened = {**allow, "match": {**allow["match"], "config": {"srcIpRanges": ["0.0.0.0/0"]}}}
    return [widened if rule is allow else rule for rule in rules]


def _throttle_previewed(rules: list[dict]) -> list[dict]:
    """The service's rate limit switched to preview by hand: it logs, and lets everyone through."""
    return [{**rule, "preview": True} if rule["action"] == "throttle" else rule for rule in rules]


def _throttle_removed(rules: list[dict]) -> list[dict]:
    return [rule for rule in rules if rule["action"] != "throttle"]


def _default_allows(rules: list[dict]) -> list[dict]:
    return [{**rule, "action": "allow"} if rule["priority"] == 2147483647 else rule for rule in rules]


KEYS = "projects/acme-ml-tpu-prod/locations/us-central1/keyRings/acme-tpu"
SECRET = "projects/acme-ml-tpu-prod/secrets/acme-tpu-secrets-hf-token"
NODES = "serviceAccount:acme-tpu-nodes@acme-ml-tpu-prod.iam.gserviceaccount.com"


def _keys(d: Deployment):
    return d.client("cloudkms").projects().locations().keyRings().cryptoKeys()


def _grant(
    get_service: Callable[[Deployment], object],
    resource: str,
    role: str,
    member: str | None,
    *,
    drop: str | None = None,
) -> Callable[[Deployment], None]:
    """Read-modify-write of an IAM policy, as `gcloud … add-iam-policy-binding` does."""

    def apply(d: Deployment) -> None:
        service = get_service(d)
        policy = service.getIamPolicy(resource=resource).execute()
        bindings = policy.setdefault("bindings", [])
        if member is not None:
            binding = next((b for b in bindings if b["role"] == role), None)
            if binding is None:
                bindings.append({"role": role, "members": [member]})
            else:
                binding["members"].append(member)
        if drop is not None:
            for binding in bindings:
                binding["members"] = [m for m in binding["members"] if m != drop]
            policy["bindings"] = [b for b in bindings if b["members"]]
        service.setIamPolicy(resource=resource, body={"policy": policy}).execute()

    return apply


def _secrets(d: Deployment):
    return d.client("secretmanager").projects().secrets()


def _project(d: Deployment):
    projects = d.client("cloudresourcemanager").projects()

    class _Project:  # the v3 methods take the policy request in a body
        def getIamPolicy(self, resource):  # noqa: N802 - Google's method name
            return projects.getIamPolicy(resource=resource, body={})

        def setIamPolicy(self, resource, body):  # noqa: N802 - Google's method name
            return projects.setIamPolicy(resource=resource, body=body)

    return _Project()


def _extra_key(d: Deployment) -> None:
    _keys(d).create(parent=KEYS, cryptoKeyId="debug", body={"purpose": "ENCRYPT_DECRYPT"}).execute()


def _patch_key(body: dict, mask: str) -> Callable[[Deployment], None]:
    return lambda d: _keys(d).patch(name=f"{KEYS}/cryptoKeys/secrets", updateMask=mask, body=body).execute()


def _accounts(d: Deployment):
    return d.client("iam").projects().serviceAccounts()


def _patch_account(body: dict) -> Callable[[Deployment], None]:
    name = "projects/acme-ml-tpu-prod/serviceAccounts/acme-tpu-nodes@acme-ml-tpu-prod.iam.gserviceaccount.com"
    return lambda d: _accounts(d).patch(name=name, body={"serviceAccount": body}).execute()


CHANGED, UNEXPECTED, MISSING = CheckId.drift_changed, CheckId.drift_unexpected, CheckId.drift_missing
# (drift class, the change, the check it must fail, the logical name or live name, the input path)
CASES: list[tuple[str, Callable[[Deployment], None], CheckId, str, str]] = [
    ("extra ingress firewall rule", _extra_firewall, UNEXPECTED, "allow-ssh-debug", ""),
    (
        "firewall source range widened",
        _patch_firewall("acme-tpu-network-allow-lb", {"sourceRanges": ["0.0.0.0/0"]}),
        CHANGED,
        "acme-tpu-network-allow-lb",
        "sourceRanges",
    ),
    (
        "firewall port range widened",
        _patch_firewall("acme-tpu-network-allow-lb", {"allowed": [{"IPProtocol": "tcp", "ports": ["8000-9000"]}]}),
        CHANGED,
        "acme-tpu-network-allow-lb",
        "allows",
    ),
    (
        "firewall deny rule narrowed",
        _patch_firewall("acme-tpu-network-deny-ssh-rdp", {"denied": [{"IPProtocol": "tcp", "ports": ["3389"]}]}),
        CHANGED,
        "acme-tpu-network-deny-ssh-rdp",
        "denies",
    ),
    (
        "firewall disabled",
        _patch_firewall("acme-tpu-network-deny-ssh-rdp", {"disabled": True}),
        CHANGED,
        "acme-tpu-network-deny-ssh-rdp",
        "disabled",
    ),
    (
        "firewall priority changed",
        _patch_firewall("acme-tpu-network-deny-ssh-rdp", {"priority": 65000}),
        CHANGED,
        "acme-tpu-network-deny-ssh-rdp",
        "priority",
    ),
    (
        "firewall source tags added",
        _patch_firewall("acme-tpu-network-allow-lb", {"sourceTags": ["debug"]}),
        CHANGED,
        "acme-tpu-network-allow-lb",
        "sourceTags",
    ),
    (
        "firewall rule deleted",
        lambda d: _compute(d).firewalls().delete(**_firewall(d, "acme-tpu-network-deny-ssh-rdp")).execute(),
        MISSING,
        "acme-tpu-network-deny-ssh-rdp",
        "",
    ),
    (
        "network routing mode",
        lambda d: (
            _compute(d)
            .networks()
            .patch(
                project=d.project,
                network=d.live_name("acme-tpu-network-vpc"),
                body={"routingConfig": {"routingMode": "GLOBAL"}},
            )
            .execute()
        ),
        CHANGED,
        "acme-tpu-network-vpc",
        "routingMode",
    ),
    ("subnetwork nobody declared", _extra_subnetwork, UNEXPECTED, "scratch", ""),
    (
        "secondary range changed",
        _patch_subnetwork(
            {
                "secondaryIpRanges": [
                    {"rangeName": "pods", "ipCidrRange": "10.32.0.0/14"},
                    {"rangeName": "services", "ipCidrRange": "10.40.0.0/20"},
                ]
            }
        ),
        CHANGED,
        "acme-tpu-network-nodes",
        "secondaryIpRanges",
    ),
    (
        "private Google access off",
        _private_google_access_off,
        CHANGED,
        "acme-tpu-network-nodes",
        "privateIpGoogleAccess",
    ),
    (
        "flow logs off",
        _patch_subnetwork({"logConfig": {"enable": False}}),
        CHANGED,
        "acme-tpu-network-nodes",
        "logConfig",
    ),
    ("NAT logging changed", _nats(_nat_logs_all), CHANGED, "acme-tpu-network-nat", "logConfig.filter"),
    ("NAT nobody declared", _nats(_extra_nat), UNEXPECTED, "debug-nat", ""),
    (
        "authorized networks widened",
        _update_cluster(
            {
                "desiredMasterAuthorizedNetworksConfig": {
                    "enabled": True,
                    "cidrBlocks": [{"cidrBlock": "0.0.0.0/0", "displayName": "anywhere"}],
                    "privateEndpointEnforcementEnabled": True,
                }
            }
        ),
        CHANGED,
        "acme-tpu-gke-cluster",
        "masterAuthorizedNetworksConfig.cidrBlocks",
    ),
    (
        "authorized networks off",
        _update_cluster({"desiredMasterAuthorizedNetworksConfig": {"enabled": False}}),
        CHANGED,
        "acme-tpu-gke-cluster",
        "masterAuthorizedNetworksConfig",
    ),
    (
        "release channel",
        _update_cluster({"desiredReleaseChannel": {"channel": "RAPID"}}),
        CHANGED,
        "acme-tpu-gke-cluster",
        "releaseChannel.channel",
    ),
    (
        "control plane version",
        _update_cluster({"desiredMasterVersion": "1.34.1-gke.1000000"}),
        CHANGED,
        "acme-tpu-gke-cluster",
        "minMasterVersion",
    ),
    (
        "private nodes off",
        _update_cluster({"desiredPrivateClusterConfig": {"enablePrivateNodes": False}}),
        CHANGED,
        "acme-tpu-gke-cluster",
        "privateClusterConfig.enablePrivateNodes",
    ),
    (
        "workload identity off",
        _update_cluster({"desiredWorkloadIdentityConfig": {}}),
        CHANGED,
        "acme-tpu-gke-cluster",
        "workloadIdentityConfig",
    ),
    (
        "shielded nodes off",
        _update_cluster({"desiredShieldedNodes": {"enabled": False}}),
        CHANGED,
        "acme-tpu-gke-cluster",
        "enableShieldedNodes",
    ),
    (
        "dataplane v1",
        _update_cluster({"desiredDatapathProvider": "LEGACY_DATAPATH"}),
        CHANGED,
        "acme-tpu-gke-cluster",
        "datapathProvider",
    ),
    (
        "logging components cut",
        _update_cluster({"desiredLoggingConfig": {"componentConfig": {"enableComponents": ["SYSTEM_COMPONENTS"]}}}),
        CHANGED,
        "acme-tpu-gke-cluster",
        "loggingConfig.enableComponents",
    ),
    (
        "legacy ABAC on",
        lambda d: _clusters(d).setLegacyAbac(name=CLUSTER, body={"enabled": True}).execute(),
        CHANGED,
        "acme-tpu-gke-cluster",
        "enableLegacyAbac",
    ),
    (
        "cluster labels",
        lambda d: (
            _clusters(d).setResourceLabels(name=CLUSTER, body={"resourceLabels": {"owner": "someone-else"}}).execute()
        ),
        CHANGED,
        "acme-tpu-gke-cluster",
        "resourceLabels",
    ),
    ("node pool nobody declared", _extra_pool, UNEXPECTED, "debug", ""),
    (
        "node pool deleted",
        lambda d: _clusters(d).nodePools().delete(name=_pool("train-h100")).execute(),
        MISSING,
        "acme-tpu-train-h100-pool",
        "",
    ),
    (
        "autoscaling maximum raised",
        lambda d: (
            _clusters(d)
            .nodePools()
            .setAutoscaling(
                name=_pool("infer-v5e"),
                body={"autoscaling": {"enabled": True, "totalMinNodeCount": 1, "totalMaxNodeCount": 20}},
            )
            .execute()
        ),
        CHANGED,
        "acme-tpu-infer-v5e-pool",
        "autoscaling.totalMaxNodeCount",
    ),
    (
        "auto-upgrade turned on",
        lambda d: (
            _clusters(d)
            .nodePools()
            .setManagement(name=_pool("train-v5p-s0"), body={"management": {"autoRepair": True, "autoUpgrade": True}})
            .execute()
        ),
        CHANGED,
        "acme-tpu-train-v5p-s0-pool",
        "management.autoUpgrade",
    ),
    (
        "node label added",
        _update_pool(
            "system",
            {
                "labels": {
                    "labels": {
                        "accelplane.io/accelerator": "none",
                        "accelplane.io/efa": "false",
                        "accelplane.io/pool": "system",
                        "accelplane.io/purpose": "general",
                        "debug": "true",
                    }
                }
            },
        ),
        CHANGED,
        "acme-tpu-system-pool",
        "nodeConfig.labels",
    ),
    (
        "taint added",
        _update_pool(
            "infer-h100", {"taints": {"taints": [{"key": "debug", "value": "true", "effect": "NO_SCHEDULE"}]}}
        ),
        CHANGED,
        "acme-tpu-infer-h100-pool",
        "nodeConfig.taints",
    ),
    (
        "node version",
        _update_pool("system", {"nodeVersion": "1.32.9-gke.1072000"}),
        CHANGED,
        "acme-tpu-system-pool",
        "version",
    ),
    (
        "node locations",
        _update_pool("system", {"locations": ["us-central1-a"]}),
        CHANGED,
        "acme-tpu-system-pool",
        "nodeLocations",
    ),
    (
        "machine type",
        _update_pool("system", {"machineType": "n2-standard-32"}),
        CHANGED,
        "acme-tpu-system-pool",
        "nodeConfig.machineType",
    ),
    ("TLS minimum lowered", _ssl, CHANGED, "acme-tpu-inference-ssl", "minTlsVersion"),
    ("Cloud Armor allow-list widened", _armor(_widen_allow_list), CHANGED, "acme-tpu-inference-armor", "rules"),
    ("Cloud Armor default rule allows", _armor(_default_allows), CHANGED, "acme-tpu-inference-armor", "rules"),
    ("rate limit switched to preview", _armor(_throttle_previewed, "acme-tpu-inference-armor-llm-server"), CHANGED,
     "acme-tpu-inference-armor-llm-server", "rules"),
    ("rate limit removed", _armor(_throttle_removed, "acme-tpu-inference-armor-llm-server"), CHANGED,
     "acme-tpu-inference-armor-llm-server", "rules"),
    (
        "key rotation lengthened",
        _patch_key({"rotationPeriod": "31536000s"}, "rotationPeriod"),
        CHANGED,
        "acme-tpu-secrets-key",
        "rotationPeriod",
    ),
    (
        "key protection level",
        _patch_key(
            {"versionTemplate": {"algorithm": "GOOGLE_SYMMETRIC_ENCRYPTION", "protectionLevel": "HSM"}},
            "versionTemplate",
        ),
        CHANGED,
        "acme-tpu-secrets-key",
        "versionTemplate",
    ),
    (
        "key labels",
        _patch_key({"labels": {"owner": "someone-else"}}, "labels"),
        CHANGED,
        "acme-tpu-secrets-key",
        "labels",
    ),
    ("a key nobody declared in the ring", _extra_key, UNEXPECTED, f"{KEYS}/cryptoKeys/debug", ""),
    (
        "extra member of a key binding",
        _grant(
            _keys, f"{KEYS}/cryptoKeys/data", "roles/cloudkms.cryptoKeyEncrypterDecrypter", "user:someone@example.com"
        ),
        CHANGED,
        "acme-tpu-data-encrypter-decrypter",
        "members",
    ),
    (
        "another role on a key",
        _grant(_keys, f"{KEYS}/cryptoKeys/gke", "roles/cloudkms.admin", "user:someone@example.com"),
        UNEXPECTED,
        "roles/cloudkms.admin user:someone@example.com",
        "",
    ),
    (
        "secret labels",
        lambda d: _secrets(d).patch(name=SECRET, updateMask="labels", body={"labels": {"owner": "x"}}).execute(),
        CHANGED,
        "acme-tpu-secrets-hf-token",
        "labels",
    ),
    # `gcloud secrets update --remove-rotation-schedule` / `--remove-topics`: updateMask rotation, topics.
    (
        "secret rotation schedule removed",
        lambda d: _secrets(d).patch(name=SECRET, updateMask="rotation", body={}).execute(),
        CHANGED,
        "acme-tpu-secrets-hf-token",
        "rotation",
    ),
    (
        "secret rotation topics removed",
        lambda d: _secrets(d).patch(name=SECRET, updateMask="topics", body={}).execute(),
        CHANGED,
        "acme-tpu-secrets-hf-token",
        "topics",
    ),
    (
        "extra accessor on a secret",
        _grant(_secrets, SECRET, "roles/secretmanager.secretAccessor", "user:someone@example.com"),
        UNEXPECTED,
        "roles/secretmanager.secretAccessor user:someone@example.com",
        "",
    ),
    (
        "declared accessor removed",
        _grant(
            _secrets,
            SECRET,
            "",
            None,
            drop=(
                "principal://iam.googleapis.com/projects/314159265358/locations/global/workloadIdentityPools/"
                "acme-ml-tpu-prod.svc.id.goog/subject/ns/training/sa/pretrain"
            ),
        ),
        MISSING,
        "acme-tpu-pretrain-secret-hf-token",
        "",
    ),
    ("service account disabled", _patch_account({"disabled": True}), CHANGED, "acme-tpu-nodes-account", "disabled"),
    (
        "service account description",
        _patch_account({"description": "changed"}),
        CHANGED,
        "acme-tpu-nodes-account",
        "description",
    ),
    (
        "node service account made editor",
        _grant(_project, "projects/acme-ml-tpu-prod", "roles/editor", NODES),
        UNEXPECTED,
        f"roles/editor {NODES}",
        "",
    ),
    (
        "declared project role removed",
        _grant(_project, "projects/acme-ml-tpu-prod", "", None, drop=NODES),
        MISSING,
        "acme-tpu-nodes-node-role",
        "",
    ),
]


@pytest.mark.parametrize(
    ("change", "check", "name", "path"), [case[1:] for case in CASES], ids=[case[0] for case in CASES]
)
def test_drift_class_is_reported(tpu_prod, change, check, name, path):
    change(tpu_prod)
    report = tpu_prod.verify()
    failed = [r for r in report.results if r.status is Status.failed]
    hits = [r for r in failed if r.check == check and r.name == name and (r.path or "").startswith(path)]
    if check == CHANGED and not hits:  # a default the program leaves unset reads `path: not set by ...`
        hits = [r for r in failed if r.check == check and r.name == name and r.message.startswith(path)]
    assert hits, [f"{r.check} {r.name} {r.path}: {r.message}" for r in failed]
    assert report.failed
    drift = {r.check for r in failed} - {CheckId.read_error}
    assert CheckId.read_error not in {r.check for r in failed}, failed
    assert drift, failed


def test_project_grants_of_other_principals_are_information_only(tpu_prod):
    _grant(_project, "projects/acme-ml-tpu-prod", "roles/viewer", "user:auditor@example.com")(tpu_prod)
    report = tpu_prod.verify()
    assert not report.failed
    info = [r for r in report.results if r.check == CheckId.project_iam]
    assert info and info[0].status is Status.passed and "roles/viewer" in info[0].message


def test_a_user_managed_key_on_a_declared_service_account_is_reported(tpu_prod):
    """A key created on the nodes' service account (`gcloud iam service-accounts keys create`) was not
    reported: verify never listed keys. It is what an attacker leaves behind to act as the account."""
    email = "acme-tpu-nodes@acme-ml-tpu-prod.iam.gserviceaccount.com"
    # The account's resource name as IAM lists it (what `keys create` is called on).
    listed = _accounts(tpu_prod).list(name="projects/acme-ml-tpu-prod").execute()["accounts"]
    [account] = [a for a in listed if a["email"] == email]
    keys = _accounts(tpu_prod).keys()
    created = keys.create(name=account["name"], body={"keyAlgorithm": "KEY_ALG_RSA_2048"}).execute()
    report = tpu_prod.verify()
    failed = [r for r in report.results if r.status is Status.failed]
    [hit] = [r for r in failed if r.check == UNEXPECTED and r.name == created["name"]]
    assert f"a user-managed key of service account {email}" in hit.message, hit.message
    assert "privateKeyData" not in hit.message and created["privateKeyData"] not in str(report)
    assert CheckId.read_error not in {r.check for r in failed}
