"""`accelplane verify` on Google Cloud: a read-only session for the stack's project and region.

1. the services (`GcpClients`: Application Default Credentials with the read-only scope, optional
   impersonation, `--api-endpoint SERVICE=URL` per service, `--ca-bundle`);
2. the project (`cloudresourcemanager.projects.get`): no credentials, a token that cannot be had,
   an endpoint that cannot be reached or that is not the API (an HTML page from a proxy), or
   credentials that cannot see the project are input problems (exit 2, naming what to fix);
3. the live view (`live_view`): the declared resources read and matched, in the declared shape.
"""

from __future__ import annotations

from datetime import datetime

import google.auth.exceptions

from accelplane.clouds.gcp.clients import GcpClients, GcpReadError, api_endpoint_problem
from accelplane.clouds.gcp.components.bucket import ROLE_LABEL
from accelplane.clouds.gcp.connection import gcp_connection
from accelplane.clouds.gcp.credentials import credentials_problem
from accelplane.clouds.gcp.declaration import gcp_platform
from accelplane.clouds.gcp.mocks import GcpLikeMocks
from accelplane.clouds.gcp.verify.drift_specs import DRIFT
from accelplane.clouds.gcp.verify.gcs_checkpoints import GcsCheckpoints
from accelplane.clouds.gcp.verify.live_view import GcpViewBuilder
from accelplane.clouds.gcp.verify.shapes import BUCKET, CLUSTER, GLOBAL_ADDRESS, NODE_POOL, SSL_POLICY
from accelplane.config.loader import StackConfig
from accelplane.engine.graph import OfflineGraph
from accelplane.errors import InputError
from accelplane.verify.checkpoint import CheckpointStore
from accelplane.verify.declared import DeclaredPlatform, declared_platform
from accelplane.verify.endpoint_policy import EndpointPolicy
from accelplane.verify.reader import CloudVerify, LiveRead, LiveReader, LiveSession, ProbeTarget, VerifyOptions
from accelplane.verify.results import CheckId, CheckResult, Status, Subject

_HERE = "accelplane verify"


class GcpReader(LiveReader):
    def __init__(self, clients: GcpClients | None = None) -> None:
        self.clients = clients  # tests hand in clients with their own credentials

    def option_problems(self, options: VerifyOptions) -> list[tuple[str, str]]:
        problems = []
        for service, url in gcp_connection(options.connection).api_endpoints.items():
            problem = api_endpoint_problem(f"{service}={url}")
            if problem:
                problems.append(("--api-endpoint", problem))
        return problems

    def connect(self, stack: StackConfig, graph: OfflineGraph, options: VerifyOptions) -> GcpSession:
        settings = gcp_platform(stack.platform).gcp
        assert settings is not None  # required on Google Cloud by the declaration checks
        connection = gcp_connection(options.connection)
        clients = self.clients or GcpClients(
            settings.project,
            stack.platform.region,
            endpoints=connection.api_endpoints,
            impersonate=connection.impersonate_service_account,
            ca_bundle=options.ca_bundle,
            max_attempts=options.max_attempts,
        )
        check_project(clients)
        declared = _declared(stack, graph)
        return GcpSession(clients, stack, declared)


def _declared(stack: StackConfig, graph: OfflineGraph) -> DeclaredPlatform:
    settings = gcp_platform(stack.platform).gcp
    assert settings is not None
    mocks = GcpLikeMocks(project=settings.project, region=stack.platform.region)
    return declared_platform(stack, graph, mocks, settings.project)


def check_project(clients: GcpClients, here: str = _HERE) -> None:
    """The first call: credentials, endpoint and the project, each failure an input problem."""
    where = "--api-endpoint" if "cloudresourcemanager" in clients.endpoints else "Google Cloud endpoint"
    try:
        projects = clients.service("cloudresourcemanager").projects()
        answer = clients.read(projects.get(name=f"projects/{clients.project}"))
        clients.project_number = str(answer.get("name", "")).removeprefix("projects/") or None
    except google.auth.exceptions.DefaultCredentialsError as error:
        raise InputError.single(credentials_problem(error), file=here, field="credentials") from None
    except GcpReadError as error:
        if error.code == "credentials":
            raise InputError.single(
                f"cannot get a Google access token: {error.message}", file=here, field="credentials"
            ) from None
        if error.code in ("connection", "not the API") or error.code.startswith("HTTP"):
            raise InputError.single(
                f"cannot read project {clients.project} at {clients.endpoint}: {error.message}", file=here, field=where
            ) from None
        raise InputError.single(
            f"the credentials cannot read project {clients.project}: {error.code}: {error.message}",
            file=here,
            field="credentials",
        ) from None


CERTIFICATE_WARN_DAYS = 30


def _certificate_state(name: str, item: dict, now: datetime) -> CheckResult:
    """A certificate the Gateway serves: provisioned (managed: ACTIVE) and not about to expire."""
    where: Subject = {"type": "certificatemanager.certificate", "name": name.rsplit("/", 1)[-1]}
    managed = item.get("managed")
    if managed and managed.get("state") != "ACTIVE":
        issues = "; ".join(str(i.get("details") or i.get("reason")) for i in managed.get("authorizationAttemptInfo")
                           or [] if i.get("state") != "AUTHORIZED")
        return CheckResult(CheckId.certificate, Status.failed,
                           f"managed certificate {name} is {managed.get('state')}" + (f": {issues}" if issues else ""),
                           **where)
    expires = item.get("expireTime")
    if not expires:
        return CheckResult(CheckId.certificate, Status.passed, f"{name}: no expiry reported yet", **where)
    try:
        moment = datetime.fromisoformat(str(expires).replace("Z", "+00:00"))
    except ValueError:
        return CheckResult(CheckId.certificate, Status.failed, f"{name}: unreadable expireTime {expires!r}", **where)
    days = (moment - now).total_seconds() / 86400
    if days < 0:
        return CheckResult(CheckId.certificate, Status.failed, f"{name} expired on {moment.date()}", **where)
    if days < CERTIFICATE_WARN_DAYS:
        return CheckResult(CheckId.certificate, Status.warning,
                           f"{name} expires in {int(days)} days ({moment.date()}): renew it", **where)
    return CheckResult(CheckId.certificate, Status.passed, f"{name} valid for {int(days)} more days", **where)


class GcpSession(LiveSession):
    drift = DRIFT

    def __init__(self, clients: GcpClients, stack: StackConfig, declared: DeclaredPlatform) -> None:
        self.clients = clients
        self.stack = stack
        self.declared = declared
        self.account = clients.project
        self.region = clients.region
        self.endpoint = clients.endpoint
        self.other_project_grants: list[tuple[str, str]] = []
        self.certificates: dict[str, dict] = {}

    def read(self) -> LiveRead:
        builder = GcpViewBuilder(self.clients, self.declared)
        view = builder.build()
        self.other_project_grants = builder.security.other_project_grants
        self.certificates = builder.certificates.certificates
        errors = [
            CheckResult(CheckId.read_error, Status.failed, f"{error.operation} failed: {error.code}: {error.message}")
            for error in builder.errors
        ]
        return LiveRead(self.declared, view, errors)

    def state_results(self, read: LiveRead, now: datetime) -> list[CheckResult]:
        """A cluster or node pool GKE does not report RUNNING (provisioning, repairing, in error)."""
        results = []
        for urn, raw in sorted(read.view.raw.items()):
            live = read.view.matched[urn]
            check = {CLUSTER: CheckId.cluster_status, NODE_POOL: CheckId.node_group_status}.get(live.type)
            if check is None:
                continue
            status = raw.get("status", "STATUS_UNSPECIFIED")
            where: Subject = {"type": live.type, "name": live.name, "urn": urn}
            if status == "RUNNING":
                results.append(CheckResult(check, Status.passed, "RUNNING", **where))
            else:
                detail = raw.get("statusMessage") or ""
                results.append(
                    CheckResult(check, Status.failed, f"{status}" + (f": {detail}" if detail else ""), **where)
                )
        results += [_certificate_state(name, item, now) for name, item in sorted(self.certificates.items())]
        if self.other_project_grants:
            roles = sorted({role for role, _ in self.other_project_grants})
            shown = ", ".join(roles[:8]) + (" …" if len(roles) > 8 else "")
            results.append(
                CheckResult(
                    CheckId.project_iam,
                    Status.passed,
                    f"{len(self.other_project_grants)} project grants to principals the stack does not create "
                    f"belong to the organisation, not judged here: {shown}",
                    type="gcp:projects/iAMMember:IAMMember",
                )
            )
        return results

    def probe_target(self, read: LiveRead, listener_port: int, health_path: str) -> ProbeTarget:
        address = next((r for r in read.view.matched.values() if r.type == GLOBAL_ADDRESS), None)
        subject: Subject = {"type": address.type, "name": address.name, "urn": address.urn} if address else {}
        ip = address.props.get("address") if address else None
        if not ip:
            return ProbeTarget(None, subject, "no live global address to probe (see drift results)")
        port = "" if listener_port == 443 else f":{listener_port}"
        return ProbeTarget(f"https://{ip}{port}{health_path}", subject)

    def endpoint_policy(self, read: LiveRead) -> EndpointPolicy:
        """The minimum TLS version of the declared SSL policy (the Gateway's target proxy uses it)."""
        spec = read.declared.platform.inference_endpoint
        redirect = bool(spec and spec.http_redirect)
        policy = next(iter(read.declared.of_type(SSL_POLICY)), None)
        if policy is None:
            return EndpointPolicy(None, "no SSL policy", redirect)
        return EndpointPolicy(str(policy.props.get("minTlsVersion") or "TLS_1_0"), f"SSL policy {policy.name}",
                              redirect)

    def checkpoint_store(self, read: LiveRead, options: VerifyOptions) -> tuple[CheckpointStore | None, Subject]:
        bucket = next(
            (live for live in read.view.matched.values()
             if live.type == BUCKET and (live.props.get("labels") or {}).get(ROLE_LABEL) == "checkpoints"),
            None,
        )
        if bucket is None:
            return None, {"type": BUCKET}
        store = GcsCheckpoints(self.clients, str(bucket.id), mode=options.checkpoint_drill,
                               concurrency=options.concurrency)
        return store, {"type": bucket.type, "name": bucket.name, "urn": bucket.urn}

    def api_calls(self) -> dict[str, object]:
        return self.clients.calls.to_json()


VERIFY = CloudVerify("gcp", GcpReader)  # this cloud's `accelplane.verify` entry point
