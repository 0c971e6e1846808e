"""Create a declared Google Cloud platform in the Google API fake with plain google-api-python-client
calls, the way `pulumi up` would leave it: each resource verify reads, in dependency order, with
the request body written out as the REST API takes it in `tests/support/gcp_live/<stack>.json`
(keyed by the resource's logical name; the fake checks each against the API's request schema).
Those bodies are data, not produced by the code under test: verify reads them back through its
own field table (`shapes.to_wire`), so a field mapped to the wrong API field fails the clean
platform instead of round-tripping. Live names follow Pulumi autonaming (`<logical name>-<7
hex>`, a different suffix from the offline mocks', so matching is tested for real).

When a stack file changes what it declares, the clean test names the resource that no longer
matches: change its body here by hand, reading the REST reference, never by printing what the
code would send.

What Google does on its own after a create is done on the fake's state, each in one place here:
a cluster and its node pools become RUNNING with the versions asked for; a global address gets
its IP; a key gets its enabled primary version. The project itself is seeded
(`cloudresourcemanager.projects.get` answers it).

A drift case is then a plain client call on `Deployment.client(...)`, e.g.

    compute = deployment.client("compute")
    compute.firewalls().insert(project=deployment.project, body={...}).execute()
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accelplane.clouds.gcp.clients import API_VERSIONS, GcpClients
from accelplane.clouds.gcp.mocks import FAKE_PROJECT_NUMBER
from accelplane.clouds.gcp.verify import shapes
from accelplane.clouds.gcp.verify.reader import GcpReader, _declared
from accelplane.config.loader import StackConfig, load_stack
from accelplane.engine.graph import OfflineGraph
from accelplane.program import offline_graph
from accelplane.rules.view import Resource
from accelplane.verify.declared import DeclaredPlatform
from accelplane.verify.reader import VerifyOptions
from accelplane.verify.results import VerifyReport
from accelplane.verify.verification import verify
from tests.support.gcs_emulator import GcsEmulator
from tests.support.google_api_fake import GoogleApiFake

LIVE_ADDRESS = "34.120.0.10"
LIVE_PROJECT_NUMBER = "314159265358"
ORGANISATION_GRANT = ("roles/owner", "group:cloud-admins@example.com")  # the organisation's, not the stack's
LIVE_BODIES = Path(__file__).parent / "gcp_live"


@functools.cache
def _bodies(stack_name: str) -> dict[str, dict[str, Any]]:
    return json.loads((LIVE_BODIES / f"{stack_name}.json").read_text())


@functools.cache
def _stack(name: str) -> tuple[StackConfig, OfflineGraph]:
    stack = load_stack(name)
    return stack, offline_graph(stack)


@dataclass
class Deployment:
    fake: GoogleApiFake
    gcs: GcsEmulator  # Cloud Storage: the real emulator, not the fake
    stack: StackConfig
    graph: OfflineGraph
    declared: DeclaredPlatform
    live_names: dict[str, str] = field(default_factory=dict)  # declared (mock) name -> live name
    bodies: dict[str, dict[str, Any]] = field(default_factory=dict)  # logical name -> the API's request body
    _clients: dict[str, Any] = field(default_factory=dict)

    @property
    def project(self) -> str:
        assert self.stack.platform.gcp is not None
        return self.stack.platform.gcp.project

    @property
    def region(self) -> str:
        return self.stack.platform.region

    def client(self, service: str) -> Any:
        if service not in self._clients:
            self._clients[service] = (
                self.gcs.client() if service == "storage" else self.fake.client(service, API_VERSIONS[service])
            )
        return self._clients[service]

    def live_name(self, logical: str) -> str:
        """The live name of the declared resource with this logical name."""
        resource = next(r for r in self.declared.resources if r.name == logical)
        name = resource.props.get("name") or resource.outputs.get("name")
        return self.live_names.get(str(name), str(name))

    def clients(self, **overrides: Any) -> GcpClients:
        from google.auth.credentials import AnonymousCredentials

        options: dict[str, Any] = {
            "credentials": AnonymousCredentials(),
            "endpoints": {
                **{service: self.fake.endpoint(service, version) for service, version in API_VERSIONS.items()},
                "storage": self.gcs.url,
            },
            "sleep": lambda _seconds: None,
            "max_attempts": 3,
        }
        options.update(overrides)
        return GcpClients(self.project, self.region, **options)

    def verify(self, **options: Any) -> VerifyReport:
        clients = options.pop("clients", None) or self.clients()
        settings = {"probes": 0, "checkpoint_drill": "off", **options}
        return verify(self.stack, VerifyOptions(**settings), reader=GcpReader(clients), graph=self.graph)


def deploy(fake: GoogleApiFake, gcs: GcsEmulator, stack_name: str) -> Deployment:
    stack, graph = _stack(stack_name)
    deployment = Deployment(fake, gcs, stack, graph, _declared(stack, graph), bodies=_bodies(stack_name))
    fake.put(
        "cloudresourcemanager",
        "v3",
        f"v3/projects/{deployment.project}",
        {"name": f"projects/{LIVE_PROJECT_NUMBER}", "projectId": deployment.project, "state": "ACTIVE"},
    )
    deployment.live_names[FAKE_PROJECT_NUMBER] = LIVE_PROJECT_NUMBER
    for resource in deployment.declared.resources:
        if resource.type in shapes.FIELDS and "name" not in resource.props and resource.outputs.get("name"):
            mock = str(resource.outputs["name"])
            suffix = hashlib.sha256(f"live/{resource.name}".encode()).hexdigest()[:7]
            deployment.live_names[mock] = f"{resource.name}-{suffix}"
    deployed = _DEPLOYED.get(stack_name)
    if deployed is None:
        _network(deployment)
        _endpoint(deployment)
        _cluster(deployment)
        _kms(deployment)
        _secrets(deployment)
        _identities(deployment)
        _audit(deployment)
        _certificates(deployment)
        _DEPLOYED[stack_name] = fake.state.snapshot()
    else:
        fake.state.restore(deployed)  # the same calls' result, copied: the fake's state is plain data
    _storage(deployment)  # the real Cloud Storage emulator, wiped per test
    return deployment


# Stack name -> the fake's state once deployed, built by the first test of the session that needs it.
_DEPLOYED: dict[str, Any] = {}


def _live(deployment: Deployment, value: Any) -> Any:
    """`value` with every mock name (autonamed names, the project number) replaced by the live one."""
    text = json.dumps(value)
    for mock, live in deployment.live_names.items():
        text = text.replace(mock, live)
    return json.loads(text)


def _body(deployment: Deployment, resource: Resource, *, named: bool = True) -> dict[str, Any]:
    """The request body `pulumi up` sent for this resource, as written in gcp_live/<stack>.json."""
    if resource.name not in deployment.bodies:
        raise LookupError(f"{LIVE_BODIES.name}/: no API body for {resource.type} {resource.name}; write the one "
                          "the REST reference gives for what the stack declares")
    body = copy.deepcopy(deployment.bodies[resource.name])
    if not named:
        body.pop("name", None)
    return body


def _policy(deployment: Deployment, grants: list[tuple[str, str]]) -> dict[str, Any]:
    roles: dict[str, list[str]] = {}
    for role, member in grants:
        roles.setdefault(role, []).append(member)
    bindings = [{"role": role, "members": members} for role, members in sorted(roles.items())]
    return {"policy": _live(deployment, {"bindings": bindings})}


def _kms(deployment: Deployment) -> None:
    rings = deployment.client("cloudkms").projects().locations().keyRings()
    for resource in deployment.declared.of_type(shapes.KEY_RING):
        parent = f"projects/{deployment.project}/locations/{resource.props['location']}"
        rings.create(parent=parent, keyRingId=resource.props["name"], body={}).execute()
    for resource in deployment.declared.of_type(shapes.CRYPTO_KEY):
        body = _body(deployment, resource, named=False)
        rings.cryptoKeys().create(
            parent=resource.props["keyRing"], cryptoKeyId=resource.props["name"], body=body
        ).execute()
        key = f"{resource.props['keyRing']}/cryptoKeys/{resource.props['name']}"
        # KMS creates the first version with the key and makes it primary.
        deployment.fake.state.resources[f"cloudkms/v1/v1/{key}"]["primary"] = {
            "name": f"{key}/cryptoKeyVersions/1", "state": "ENABLED"
        }
        grants = [
            (binding.props["role"], member)
            for binding in deployment.declared.of_type(shapes.KEY_BINDING)
            if binding.props["cryptoKeyId"] == key
            for member in binding.props["members"]
        ]
        if grants:
            rings.cryptoKeys().setIamPolicy(resource=key, body=_policy(deployment, grants)).execute()


def _topics(deployment: Deployment) -> None:
    """The rotation topic (a PUT to its name, as Pub/Sub's create is) and its publisher grant, made
    before the secrets that name it."""
    topics = deployment.client("pubsub").projects().topics()
    for resource in deployment.declared.of_type(shapes.TOPIC):
        name = f"projects/{deployment.project}/topics/{resource.props['name']}"
        topics.create(name=name, body=_body(deployment, resource)).execute()
        grants = [(member.props["role"], member.props["member"])
                  for member in deployment.declared.of_type(shapes.TOPIC_MEMBER) if member.props["topic"] == name]
        if grants:
            topics.setIamPolicy(resource=name, body=_policy(deployment, grants)).execute()


def _secrets(deployment: Deployment) -> None:
    _topics(deployment)
    secrets = deployment.client("secretmanager").projects().secrets()
    for resource in deployment.declared.of_type(shapes.SECRET):
        secret_id = resource.props["secretId"]
        secrets.create(
            parent=f"projects/{deployment.project}", secretId=secret_id, body=_body(deployment, resource, named=False)
        ).execute()
        name = f"projects/{deployment.project}/secrets/{secret_id}"
        grants = [
            (member.props["role"], member.props["member"])
            for member in deployment.declared.of_type(shapes.SECRET_MEMBER)
            if member.props["secretId"] == name
        ]
        if grants:
            secrets.setIamPolicy(resource=name, body=_policy(deployment, grants)).execute()


def _storage(deployment: Deployment) -> None:
    """Buckets as Cloud Storage keeps them (the emulator's insert takes the name only: the settings
    follow in a patch, as `gcloud storage buckets update` would), then each bucket's grants."""
    buckets = deployment.client("storage").buckets()
    for resource in deployment.declared.of_type(shapes.BUCKET):
        body = _body(deployment, resource)
        buckets.insert(project=deployment.project, body={"name": body["name"]}).execute()
        buckets.patch(bucket=body["name"], body=body).execute()
        grants: dict[tuple[str, str], dict[str, Any]] = {}
        for member in deployment.declared.of_type(shapes.BUCKET_MEMBER):
            if _live(deployment, member.props["bucket"]) != body["name"]:
                continue
            condition = _live(deployment, member.props.get("condition"))
            key = (member.props["role"], json.dumps(condition, sort_keys=True))
            binding = grants.setdefault(key, {"role": member.props["role"], "members": []})
            binding["members"].append(_live(deployment, member.props["member"]))
            if condition:
                binding["condition"] = condition
        if grants:
            policy = {"version": 3, "bindings": list(grants.values())}
            buckets.setIamPolicy(bucket=body["name"], body=policy).execute()


CERTIFICATE_EXPIRES = "2027-09-01T00:00:00Z"


def _certificates(deployment: Deployment) -> None:
    """The Gateway's certificate map and its entries; the certificates they name exist already
    (uploaded or Google-managed outside the stack): created here as the operator left them."""
    manager = deployment.client("certificatemanager").projects().locations()
    parent = f"projects/{deployment.project}/locations/global"
    named: set[str] = set()
    for resource in deployment.declared.of_type(shapes.CERT_MAP):
        manager.certificateMaps().create(
            parent=parent, certificateMapId=resource.props["name"], body=_body(deployment, resource, named=False)
        ).execute()
    for resource in deployment.declared.of_type(shapes.CERT_MAP_ENTRY):
        entry_id = deployment.live_name(resource.name)
        manager.certificateMaps().certificateMapEntries().create(
            parent=f"{parent}/certificateMaps/{resource.props['map']}", certificateMapEntryId=entry_id,
            body=_body(deployment, resource, named=False),
        ).execute()
        named.update(resource.props.get("certificates") or [])
    for name in sorted(named):
        manager.certificates().create(
            parent=parent, certificateId=name.rsplit("/", 1)[-1],
            body={"description": "the inference endpoint's certificate", "scope": "DEFAULT"},
        ).execute()
        deployment.fake.state.resources[f"certificatemanager/v1/v1/{name}"]["expireTime"] = CERTIFICATE_EXPIRES


def _identities(deployment: Deployment) -> None:
    accounts = deployment.client("iam").projects().serviceAccounts()
    for resource in deployment.declared.of_type(shapes.SERVICE_ACCOUNT):
        account = _body(deployment, resource, named=False)
        accounts.create(
            name=f"projects/{deployment.project}",
            body={"accountId": resource.props["accountId"], "serviceAccount": account},
        ).execute()
        live = deployment.fake.state.resources.pop(
            f"iam/v1/v1/projects/{deployment.project}/serviceAccounts/{resource.props['accountId']}"
        )
        email = f"{resource.props['accountId']}@{deployment.project}.iam.gserviceaccount.com"
        live.update(email=email, name=f"projects/{deployment.project}/serviceAccounts/{email}")  # IAM names it
        # ... and answers at that name (an account is addressed by its email or unique id, never the bare
        # accountId the create call took).
        deployment.fake.state.resources[f"iam/v1/v1/{live['name']}"] = live
    grants = [
        (member.props["role"], member.props["member"]) for member in deployment.declared.of_type(shapes.PROJECT_MEMBER)
    ]
    projects = deployment.client("cloudresourcemanager").projects()
    projects.setIamPolicy(
        resource=f"projects/{deployment.project}", body=_policy(deployment, [*grants, ORGANISATION_GRANT])
    ).execute()


def _audit(deployment: Deployment) -> None:
    """What pulumi-gcp's IAMAuditConfig does (a read-modify-write of the project policy whose mask names
    `auditConfigs`: the default mask would leave them out), then the locked log bucket and the sink."""
    configs = [_body(deployment, resource) for resource in deployment.declared.of_type(shapes.AUDIT_CONFIG)]
    if configs:
        projects = deployment.client("cloudresourcemanager").projects()
        resource = f"projects/{deployment.project}"
        policy = projects.getIamPolicy(resource=resource, body={}).execute()
        policy["auditConfigs"] = configs
        projects.setIamPolicy(resource=resource, body={"policy": policy, "updateMask": "auditConfigs"}).execute()
    logging = deployment.client("logging").projects()
    for resource in deployment.declared.of_type(shapes.LOG_BUCKET):
        logging.locations().buckets().create(
            parent=f"projects/{deployment.project}/locations/{resource.props['location']}",
            bucketId=resource.props["bucketId"], body=_body(deployment, resource),
        ).execute()
    for resource in deployment.declared.of_type(shapes.LOG_SINK):
        logging.sinks().create(parent=f"projects/{deployment.project}", uniqueWriterIdentity=True,
                               body=_body(deployment, resource)).execute()
        # Google gives a sink with a unique writer identity a service account of its own.
        sink_key = f"logging/v2/v2/projects/{deployment.project}/sinks/{resource.props['name']}"
        sink = deployment.fake.state.resources[sink_key]
        sink["writerIdentity"] = f"serviceAccount:service-{LIVE_PROJECT_NUMBER}@gcp-sa-logging.iam.gserviceaccount.com"


def _network(deployment: Deployment) -> None:
    compute, project, region = deployment.client("compute"), deployment.project, deployment.region
    of_type = deployment.declared.of_type
    for resource in of_type(shapes.NETWORK):
        compute.networks().insert(project=project, body=_body(deployment, resource)).execute()
    for resource in of_type(shapes.SUBNETWORK):
        compute.subnetworks().insert(project=project, region=region, body=_body(deployment, resource)).execute()
    for resource in of_type(shapes.FIREWALL):
        compute.firewalls().insert(project=project, body=_body(deployment, resource)).execute()
    for resource in of_type(shapes.ROUTER):
        router = _body(deployment, resource)
        mock_name = str(resource.outputs.get("name"))
        router["nats"] = [
            {key: value for key, value in _body(deployment, nat).items() if key not in ("region", "router")}
            for nat in of_type(shapes.ROUTER_NAT)
            if nat.props.get("router") == mock_name
        ]
        compute.routers().insert(project=project, region=region, body=router).execute()


def _endpoint(deployment: Deployment) -> None:
    compute, project = deployment.client("compute"), deployment.project
    for type_token, collection in (
        (shapes.GLOBAL_ADDRESS, compute.globalAddresses),
        (shapes.SSL_POLICY, compute.sslPolicies),
        (shapes.SECURITY_POLICY, compute.securityPolicies),
    ):
        for resource in deployment.declared.of_type(type_token):
            body = _body(deployment, resource)
            if type_token == shapes.GLOBAL_ADDRESS:
                body["address"] = LIVE_ADDRESS  # Google assigns the address
            collection().insert(project=project, body=body).execute()


def _cluster(deployment: Deployment) -> None:
    clusters = deployment.client("container").projects().locations().clusters()
    for resource in deployment.declared.of_type(shapes.CLUSTER):
        location = resource.props.get("location") or deployment.region
        parent = f"projects/{deployment.project}/locations/{location}"
        cluster = _body(deployment, resource)
        clusters.create(parent=parent, body={"cluster": cluster}).execute()
        live = deployment.fake.state.resources[f"container/v1/v1/{parent}/clusters/{cluster['name']}"]
        live.update(status="RUNNING", location=location)  # GKE finishes provisioning
    for resource in deployment.declared.of_type(shapes.NODE_POOL):
        parent = str(resource.props["cluster"])
        pool = _body(deployment, resource)
        clusters.nodePools().create(parent=parent, body={"nodePool": pool}).execute()
        live = deployment.fake.state.resources[f"container/v1/v1/{parent}/nodePools/{pool['name']}"]
        live.update(status="RUNNING")
