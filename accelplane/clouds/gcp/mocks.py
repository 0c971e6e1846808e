"""Pulumi mocks that answer like Google Cloud would: ids, self links, emails, endpoints, key names.

Mocks accept any input (docs/design.md pitfalls): what is sent is checked elsewhere (the config
layer, and tests against Google's discovery documents). What the mocks must do is return outputs
shaped like the real provider's, so that every `apply` in the components sees what it sees in a
real deployment: a cluster's `masterAuth.clusterCaCertificate`, a service account's `email`, a
crypto key id `projects/<p>/locations/<l>/keyRings/<r>/cryptoKeys/<k>`, a bucket's `gs://` url.

Ids follow the provider's import formats (the `id` Terraform stores), names the autonaming of
pulumi-gcp (`<resource name>-<7 hex>`) when no `name` input is given.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pulumi

FAKE_PROJECT_NUMBER = "123456789012"
_COMPUTE = "https://www.googleapis.com/compute/v1"

# Service agents of the services the layer uses (Google's "service agents" reference): the domain
# part of `service-<project number>@<domain>`.
SERVICE_AGENT_DOMAINS = {
    "container.googleapis.com": "container-engine-robot.iam.gserviceaccount.com",
    "storage.googleapis.com": "gs-project-accounts.iam.gserviceaccount.com",
    "secretmanager.googleapis.com": "gcp-sa-secretmanager.iam.gserviceaccount.com",
    "cloudkms.googleapis.com": "gcp-sa-cloudkms.iam.gserviceaccount.com",
}

# A syntactically valid PEM body, base64-encoded as GKE returns `clusterCaCertificate`.
_FAKE_CA = base64.b64encode(
    b"-----BEGIN CERTIFICATE-----\nTUlJQk9mZmxpbmVQcmV2aWV3Q0E=\n-----END CERTIFICATE-----\n"
).decode()


def _digest(*parts: str, length: int = 7) -> str:
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:length]


def _address(*parts: str, first: int = 34) -> str:
    raw = hashlib.sha256("/".join(parts).encode()).digest()
    return f"{first}.{raw[0]}.{raw[1]}.{raw[2] or 1}"


def _last(path: object) -> str:
    """`projects/p/global/networks/n` or a self link or a bare name -> `n`."""
    return str(path).rstrip("/").rsplit("/", 1)[-1]


class GcpLikeMocks(pulumi.runtime.Mocks):
    """Deterministic, Google-shaped outputs: the same program gives the same ids every run."""

    def __init__(self, project: str, region: str, project_number: str = FAKE_PROJECT_NUMBER) -> None:
        self.project = project
        self.region = region
        self.project_number = project_number

    def agent_email(self, service: str) -> str:
        return f"service-{self.project_number}@{SERVICE_AGENT_DOMAINS[service]}"

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        inputs = dict(args.inputs)
        if not args.custom:
            return None, inputs
        project = str(inputs.get("project") or self.project)
        # pulumi-gcp autonames `name` as `<resource name>-<7 hex>` when the program gives none.
        name = str(inputs.get("name") or f"{args.name}-{_digest(args.typ, args.name)}")
        resource_id, extra = self._shape(args.typ, args.name, inputs, project, name)
        state: dict[str, Any] = {**inputs, **extra, "id": resource_id}
        return resource_id, state

    def _shape(
        self, typ: str, logical: str, inputs: dict[str, Any], project: str, name: str
    ) -> tuple[str, dict[str, Any]]:
        """(id, outputs) of a new resource, shaped per type by the table below."""
        new = _New(self, typ, logical, inputs, project, name)
        if typ in _GLOBAL_COMPUTE:
            return _global_compute(new)
        if typ in _REGIONAL_COMPUTE:
            return _regional_compute(new)
        if typ in _IAM_TYPES:
            return _iam_member(new)
        shaper = _SHAPERS.get(typ)
        if shaper is not None:
            return shaper(new)
        return f"projects/{project}/{logical}-{_digest(typ, logical)}", {"name": name}

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        return self._invoke(args.token, dict(args.args)), []  # (outputs, failures), as AwsLikeMocks

    def _invoke(self, token: str, inputs: dict[str, Any]) -> dict[str, Any]:
        project = str(inputs.get("projectId") or inputs.get("project") or self.project)
        if token == "gcp:organizations/getProject:getProject":
            return {
                "id": f"projects/{project}",
                "projectId": project,
                "number": self.project_number,
                "name": project,
                "labels": {},
                "effectiveLabels": {},
            }
        if token == "gcp:storage/getProjectServiceAccount:getProjectServiceAccount":
            email = self.agent_email("storage.googleapis.com")
            return {"id": email, "emailAddress": email, "member": f"serviceAccount:{email}", "project": project}
        if token == "gcp:storage/getTransferProjectServiceAccount:getTransferProjectServiceAccount":
            # Storage Transfer Service's service agent: project-NUMBER@storage-transfer-service.iam.gserviceaccount.com,
            # and its OpenID Connect subject (a 21-digit unique id; this one is the mocks' own).
            email = f"project-{self.project_number}@storage-transfer-service.iam.gserviceaccount.com"
            return {"id": email, "email": email, "member": f"serviceAccount:{email}", "project": project,
                    "subjectId": f"1{self.project_number:0>20}"}
        if token == "gcp:secretmanager/getSecretVersionAccess:getSecretVersionAccess":
            # The latest version's payload (projects.secrets.versions.access): the mocks' own text, which a
            # plan must only ever show as a secret.
            secret = str(inputs.get("secret", ""))
            version = f"projects/{self.project_number}/secrets/{_last(secret)}/versions/1"
            return {"id": version, "name": version, "project": project, "secret": secret, "version": "1",
                    "secretData": f"mock-secret-of-{_last(secret)}"}
        if token == "gcp:container/getEngineVersions:getEngineVersions":
            versions = ["1.33.5-gke.1080000", "1.32.9-gke.1072000"]
            return {
                "id": project,
                "project": project,
                "location": inputs.get("location", self.region),
                "defaultClusterVersion": versions[0],
                "latestMasterVersion": versions[0],
                "latestNodeVersion": versions[0],
                "validMasterVersions": versions,
                "validNodeVersions": versions,
                "releaseChannelDefaultVersion": {"STABLE": versions[1], "REGULAR": versions[0]},
            }
        return {}


# Type token -> the collection in `projects/<p>/global/<collection>/<name>`.
_GLOBAL_COMPUTE = {
    "gcp:compute/network:Network": "networks",
    "gcp:compute/firewall:Firewall": "firewalls",
    "gcp:compute/globalAddress:GlobalAddress": "addresses",
    "gcp:compute/sSLPolicy:SSLPolicy": "sslPolicies",
    "gcp:compute/securityPolicy:SecurityPolicy": "securityPolicies",
}
# Type token -> the collection in `projects/<p>/regions/<r>/<collection>/<name>`.
_REGIONAL_COMPUTE = {
    "gcp:compute/subnetwork:Subnetwork": "subnetworks",
    "gcp:compute/router:Router": "routers",
}
# IAM member/binding types -> the input naming what they grant on.
_IAM_TYPES = {
    "gcp:kms/cryptoKeyIAMBinding:CryptoKeyIAMBinding": "cryptoKeyId",
    "gcp:kms/cryptoKeyIAMMember:CryptoKeyIAMMember": "cryptoKeyId",
    "gcp:projects/iAMMember:IAMMember": "project",
    "gcp:storage/bucketIAMMember:BucketIAMMember": "bucket",
    "gcp:secretmanager/secretIamMember:SecretIamMember": "secretId",
    "gcp:pubsub/topicIAMMember:TopicIAMMember": "topic",
}


@dataclass(frozen=True)
class _New:
    """One resource the engine asks the mocks to create."""

    mocks: GcpLikeMocks
    typ: str
    logical: str
    inputs: dict[str, Any]
    project: str
    name: str

    @property
    def region(self) -> str:
        return str(self.inputs.get("region") or self.mocks.region)

    @property
    def location(self) -> str:
        return str(self.inputs.get("location") or self.mocks.region)


Shaped = tuple[str, dict[str, Any]]


def _global_compute(new: _New) -> Shaped:
    path = f"projects/{new.project}/global/{_GLOBAL_COMPUTE[new.typ]}/{new.name}"
    extra: dict[str, Any] = {"name": new.name, "selfLink": f"{_COMPUTE}/{path}"}
    if new.typ == "gcp:compute/globalAddress:GlobalAddress":
        extra["address"] = _address(new.project, new.name)
    if new.typ in ("gcp:compute/sSLPolicy:SSLPolicy", "gcp:compute/securityPolicy:SecurityPolicy"):
        extra["fingerprint"] = _digest(path, length=11)
    if new.typ == "gcp:compute/network:Network":
        extra["numericId"] = str(int(_digest(path, length=12), 16))
    return path, extra


def _regional_compute(new: _New) -> Shaped:
    path = f"projects/{new.project}/regions/{new.region}/{_REGIONAL_COMPUTE[new.typ]}/{new.name}"
    extra = {"name": new.name, "region": new.region, "selfLink": f"{_COMPUTE}/{path}"}
    if new.typ == "gcp:compute/subnetwork:Subnetwork":
        extra["gatewayAddress"] = _address(path, first=10)
    return path, extra


def _router_nat(new: _New) -> Shaped:
    return (f"{new.project}/{new.region}/{_last(new.inputs.get('router', ''))}/{new.name}",
            {"name": new.name, "region": new.region})


def _cluster(new: _New) -> Shaped:
    path = f"projects/{new.project}/locations/{new.location}/clusters/{new.name}"
    private_only = bool(new.inputs.get("privateClusterConfig", {}).get("enablePrivateEndpoint"))
    return path, {
        "name": new.name,
        "location": new.location,
        "selfLink": f"https://container.googleapis.com/v1/{path}",
        "endpoint": _address(path, first=172 if private_only else 34),
        "masterVersion": new.inputs.get("minMasterVersion", ""),
        "masterAuth": {**new.inputs.get("masterAuth", {}), "clusterCaCertificate": _FAKE_CA},
    }


def _node_pool(new: _New) -> Shaped:
    cluster = _last(new.inputs.get("cluster", ""))
    path = f"projects/{new.project}/locations/{new.location}/clusters/{cluster}/nodePools/{new.name}"
    return path, {
        "name": new.name,
        "location": new.location,
        "version": new.inputs.get("version", ""),
        "instanceGroupUrls": [
            f"{_COMPUTE}/projects/{new.project}/zones/{zone}/instanceGroupManagers/gke-{cluster}-{new.name}-"
            f"{_digest(zone)}"
            for zone in new.inputs.get("nodeLocations", [])
        ],
    }


def _future_reservation(new: _New) -> Shaped:
    # The provider's id is the request's path; Google reviews a submitted request (PENDING_APPROVAL).
    zone = str(new.inputs.get("zone") or "")
    path = f"projects/{new.project}/zones/{zone}/futureReservations/{new.name}"
    return path, {"name": new.name, "selfLink": f"{_COMPUTE}/{path}",
                  "statuses": [{"procurementStatus": "PENDING_APPROVAL"}]}


def _key_ring(new: _New) -> Shaped:
    return (f"projects/{new.project}/locations/{new.location}/keyRings/{new.name}",
            {"name": new.name, "location": new.location})


def _topic(new: _New) -> Shaped:
    # pulumi-gcp's Topic id: projects/{{project}}/topics/{{name}}
    return f"projects/{new.project}/topics/{new.name}", {"name": new.name}


def _crypto_key(new: _New) -> Shaped:
    return f"{new.inputs.get('keyRing', '')}/cryptoKeys/{new.name}", {"name": new.name}


def _iam_member(new: _New) -> Shaped:
    target = new.inputs.get(_IAM_TYPES[new.typ], "")
    member = new.inputs.get("member") or ",".join(new.inputs.get("members", []))
    return f"{target}/{new.inputs.get('role', '')}/{member}", {"etag": "BwY" + _digest(new.typ, new.logical, length=9)}


def _service_account(new: _New) -> Shaped:
    email = f"{new.inputs.get('accountId', new.name)}@{new.project}.iam.gserviceaccount.com"
    path = f"projects/{new.project}/serviceAccounts/{email}"
    return path, {
        "email": email,
        "name": path,
        "member": f"serviceAccount:{email}",
        "uniqueId": str(10**20 + int(_digest(email, length=12), 16)),
    }


def _service_identity(new: _New) -> Shaped:
    service = str(new.inputs.get("service", ""))
    email = new.mocks.agent_email(service)
    return f"projects/{new.project}/services/{service}", {"email": email, "member": f"serviceAccount:{email}"}


def _bucket(new: _New) -> Shaped:
    return new.name, {
        "name": new.name,
        "url": f"gs://{new.name}",
        "selfLink": f"https://www.googleapis.com/storage/v1/b/{new.name}",
        "project": new.project,
    }


def _secret(new: _New) -> Shaped:
    secret_id = str(new.inputs.get("secretId", new.name))
    return f"projects/{new.project}/secrets/{secret_id}", {"name": f"projects/{new.mocks.project_number}/secrets/"
                                                                   f"{secret_id}"}


def _secret_version(new: _New) -> Shaped:
    version = f"projects/{new.mocks.project_number}/secrets/{_last(new.inputs.get('secret', ''))}/versions/1"
    return version, {"name": version, "version": "1", "enabled": True}


def _hmac_key(new: _New) -> Shaped:
    # A service account's access id is GOOG1E and 55 more characters; the secret 40 base64 characters
    # (Cloud Storage "HMAC keys"). Both made up here: the offline plan shows the secret masked.
    access_id = "GOOG1E" + _digest(new.typ, new.logical, length=55).upper()
    secret = base64.b64encode(hashlib.sha256(access_id.encode()).digest()[:30]).decode()
    return (f"projects/{new.project}/hmacKeys/{access_id}",
            {"accessId": access_id, "secret": secret, "state": "ACTIVE", "project": new.project})


# Type token -> how its id and outputs look (compute types by family, IAM members by their target above).
_SHAPERS: dict[str, Callable[[_New], Shaped]] = {
    "gcp:compute/routerNat:RouterNat": _router_nat,
    "gcp:container/cluster:Cluster": _cluster,
    "gcp:container/nodePool:NodePool": _node_pool,
    "gcp:compute/futureReservation:FutureReservation": _future_reservation,
    "gcp:kms/keyRing:KeyRing": _key_ring,
    "gcp:kms/cryptoKey:CryptoKey": _crypto_key,
    "gcp:pubsub/topic:Topic": _topic,
    "gcp:serviceaccount/account:Account": _service_account,
    "gcp:projects/serviceIdentity:ServiceIdentity": _service_identity,
    "gcp:storage/bucket:Bucket": _bucket,
    "gcp:storage/hmacKey:HmacKey": _hmac_key,
    "gcp:secretmanager/secret:Secret": _secret,
    "gcp:secretmanager/secretVersion:SecretVersion": _secret_version,
}
