"""google-api-python-client services for `verify` on Google Cloud: read-only, retried with
bounded backoff, every call counted, every failure named.

- **Credentials.** Application Default Credentials (`GOOGLE_APPLICATION_CREDENTIALS`, the gcloud
  user's ADC file, a workload identity federation config, the metadata server), asked for the
  read-only scope `cloud-platform.read-only`; `--impersonate-service-account` (or gcloud's
  `CLOUDSDK_AUTH_IMPERSONATE_SERVICE_ACCOUNT`) reads as that account, with short-lived tokens.
- **Endpoints.** Google's own per service, or `--api-endpoint SERVICE=URL` per service (a Private
  Service Connect endpoint, an emulator); the usual proxy variables (httplib2 reads
  `https_proxy`/`no_proxy`) and `--ca-bundle` for a TLS-inspecting proxy.
- **Read-only by construction.** `read()` refuses any method that is not a `get`, `list`,
  `aggregatedList` or `getIamPolicy`: verify never changes anything, and never reads a secret's
  value (`secretmanager…versions.access` is not a read it makes).
- **Retries.** 429 and 5xx answers (except an HTML page: a proxy does not go away with backoff) and
  cut connections are retried up to `max_attempts` times with capped exponential backoff and
  jitter; what still fails is a `GcpReadError` naming the permission, the API to enable, or what
  answered instead of the API.
- **Readable answers only.** The pinned client hands back a 200 answer's raw text when its body is not
  JSON (a truncated body, a proxy's page); `answer_problem()` is the one place that decides whether an
  answer has the shape its method promises (a JSON object; a list method's list field a list or
  absent; a get's resource with its identifying field; a policy with its etag). Anything else is a
  `GcpReadError` ("unreadable answer"), retried like a cut connection: the resources it would have
  shown are not verified, never missing or changed.
- **A bounded run.** No call starts once `deadline` seconds have passed since the first (an injected
  clock), and backoff never sleeps past it: a run takes at most `deadline + timeout` seconds of reading
  whatever the API does (`ApiCalls.bound_seconds`, which the report states). Media downloads (checkpoint
  files) are data, not answers, and are not stopped by it.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import socket
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import google.auth
import google_auth_httplib2
import httplib2
from google.auth import impersonated_credentials
from google.auth.exceptions import GoogleAuthError
from googleapiclient import discovery
from googleapiclient.errors import HttpError

from accelplane.verify.api_calls import ApiCalls
from accelplane.verify.text import API_MESSAGE_LIMIT, html_summary, looks_like_html, one_line

READ_ONLY_SCOPE = "https://www.googleapis.com/auth/cloud-platform.read-only"
# testIamPermissions answers which of the caller's own permissions hold: it changes and reveals nothing;
# getServerConfig lists the GKE versions a location offers.
READ_METHODS = frozenset({"get", "list", "aggregatedList", "getIamPolicy", "testIamPermissions", "getServerConfig"})
DEFAULT_ENDPOINTS = "Google Cloud default endpoints"
# The API versions verify reads, by service name (what `--api-endpoint SERVICE=URL` names).
API_VERSIONS = {
    "cloudresourcemanager": "v3",
    "compute": "v1",
    "container": "v1",
    "cloudkms": "v1",
    "secretmanager": "v1",
    "iam": "v1",
    "certificatemanager": "v1",
    "storage": "v1",
    "cloudquotas": "v1",
    "dns": "v1",  # a migration's weighted records (`accelplane migrate`)
    "logging": "v2",  # the audit logs' sink and locked log bucket
    "pubsub": "v1",  # the secrets' rotation topic
}
# The IAM permission each read needs (Google's "IAM permissions reference"): named in a denied
# read's message where Google's answer does not, and the source of docs/gcp/verify-role.yaml.
PERMISSIONS = {
    "cloudresourcemanager.projects.get": "resourcemanager.projects.get",
    "compute.firewalls.list": "compute.firewalls.list",
    "compute.globalAddresses.list": "compute.globalAddresses.list",
    "compute.networks.list": "compute.networks.list",
    "compute.routers.list": "compute.routers.list",
    "compute.securityPolicies.list": "compute.securityPolicies.list",
    "compute.sslPolicies.list": "compute.sslPolicies.list",
    "compute.subnetworks.list": "compute.subnetworks.list",
    "container.projects.locations.clusters.list": "container.clusters.list",
    "cloudkms.projects.locations.keyRings.list": "cloudkms.keyRings.list",
    "cloudkms.projects.locations.keyRings.cryptoKeys.list": "cloudkms.cryptoKeys.list",
    "cloudkms.projects.locations.keyRings.cryptoKeys.getIamPolicy": "cloudkms.cryptoKeys.getIamPolicy",
    "cloudresourcemanager.projects.getIamPolicy": "resourcemanager.projects.getIamPolicy",
    "iam.projects.serviceAccounts.list": "iam.serviceAccounts.list",
    # User-managed keys on the stack's service accounts: what an attacker leaves behind.
    "iam.projects.serviceAccounts.keys.list": "iam.serviceAccountKeys.list",
    "secretmanager.projects.secrets.list": "secretmanager.secrets.list",
    "secretmanager.projects.secrets.getIamPolicy": "secretmanager.secrets.getIamPolicy",
    "storage.buckets.list": "storage.buckets.list",
    "storage.buckets.getIamPolicy": "storage.buckets.getIamPolicy",
    "certificatemanager.projects.locations.certificateMaps.list": "certificatemanager.certmaps.list",
    "certificatemanager.projects.locations.certificateMaps.certificateMapEntries.list":
        "certificatemanager.certmapentries.list",
    "certificatemanager.projects.locations.certificates.get": "certificatemanager.certs.get",
    "pubsub.projects.topics.list": "pubsub.topics.list",
    "pubsub.projects.topics.getIamPolicy": "pubsub.topics.getIamPolicy",
    "logging.projects.sinks.list": "logging.sinks.list",
    "logging.projects.locations.buckets.list": "logging.buckets.list",
    "storage.objects.list": "storage.objects.list",  # the checkpoint drill
    "storage.objects.get": "storage.objects.get",
}
# What `--checkpoint-drill restore` needs beyond verify's reads (docs/gcp/restore-drill-role.yaml);
# testIamPermissions needs no permission of its own.
RESTORE_DRILL_PERMISSIONS = {
    "storage.buckets.get": "storage.buckets.get",
    "cloudkms.projects.locations.keyRings.cryptoKeys.get": "cloudkms.cryptoKeys.get",
    "storage.buckets.testIamPermissions": None,
    "storage.objects.insert": "storage.objects.create",
    "storage.objects.rewrite": "storage.objects.create",
    "storage.objects.delete": "storage.objects.delete",
}
# What `accelplane preflight` reads beyond the project (docs/gcp/preflight-role.yaml); the IAM
# permission each needs, from Google's "IAM permissions reference" (Compute Engine, GKE, Cloud Quotas).
PREFLIGHT_PERMISSIONS = {
    "cloudresourcemanager.projects.get": "resourcemanager.projects.get",
    "compute.regions.get": "compute.regions.get",
    "compute.machineTypes.get": "compute.machineTypes.get",
    "compute.acceleratorTypes.get": "compute.acceleratorTypes.get",
    "compute.reservations.get": "compute.reservations.get",
    # Where a reservation the pool's zones lack is instead.
    "compute.reservations.aggregatedList": "compute.reservations.list",
    # A pool's requested calendar-mode future reservation.
    "compute.futureReservations.get": "compute.futureReservations.get",
    "container.projects.locations.getServerConfig": "container.clusters.list",
    "cloudquotas.projects.locations.services.quotaInfos.get": "cloudquotas.quotas.get",
}
# What `accelplane migrate` calls on the Cloud DNS zone holding a migration's records (Google's "IAM
# permissions reference", Cloud DNS): a change that replaces a record set needs its create and delete.
MIGRATION_PERMISSIONS = {
    "dns.resourceRecordSets.list": "dns.resourceRecordSets.list",
    "dns.changes.create": "dns.changes.create, dns.resourceRecordSets.create, dns.resourceRecordSets.delete",
}
# Services whose discovery document google-api-python-client does not ship: the project commits one
# (accelplane/clouds/gcp/discovery/, each naming its source).
LOCAL_DOCUMENTS = Path(__file__).resolve().parent / "discovery"
_RETRIED_STATUS = frozenset({429, 500, 502, 503, 504})
_CONNECTION_ERRORS: tuple[type[BaseException], ...] = (
    http.client.HTTPException,
    ConnectionError,
    socket.timeout,
    ssl.SSLError,
    OSError,
)


class ReadOnlyError(RuntimeError):
    """A code path tried to call a Google API method that changes or reveals something."""


@dataclass
class GcpReadError(Exception):
    """A call that failed for good: `code` is short (PERMISSION_DENIED, SERVICE_DISABLED, HTTP 500,
    connection), `message` one bounded line that says what to do where Google says it."""

    operation: str
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.operation}: {self.code}: {self.message}"


def api_endpoint_problem(text: str) -> str | None:
    """`SERVICE=URL` with a service verify reads; None when usable."""
    service, sep, url = text.partition("=")
    if not sep or not url.startswith(("http://", "https://")):
        return f"expected SERVICE=URL, e.g. compute=https://compute.example.p.googleapis.com/compute/v1/ (got {text!r})"
    if service not in API_VERSIONS:
        return f"no service {service!r} here; verify reads {', '.join(sorted(API_VERSIONS))}"
    return None


def describe_http_error(status: int, content: bytes | str, content_type: str = "") -> tuple[str, str]:
    """(code, message) of an error answer, from Google's error format where it is one."""
    text = content.decode("utf-8", "replace") if isinstance(content, bytes) else content
    if "html" in content_type.lower() or looks_like_html(text):
        return f"HTTP {status}", f"an HTML page ({html_summary(text)}), not the API's answer: is a proxy in the way?"
    try:
        error = json.loads(text)["error"]
    except (ValueError, KeyError, TypeError):
        return f"HTTP {status}", one_line(text or "an empty answer", API_MESSAGE_LIMIT)
    if not isinstance(error, dict):
        return f"HTTP {status}", one_line(error, API_MESSAGE_LIMIT)
    info = next(
        (
            detail
            for detail in error.get("details") or []
            if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("ErrorInfo")
        ),
        {},
    )
    reason = str(info.get("reason") or error.get("status") or f"HTTP {status}")
    metadata = info.get("metadata") or {}
    message = one_line(error.get("message", ""), API_MESSAGE_LIMIT)
    if reason == "SERVICE_DISABLED" and metadata.get("service"):
        service = metadata["service"]
        message = f"the {service} API is not enabled in this project: gcloud services enable {service}"
    elif reason == "IAM_PERMISSION_DENIED" and metadata.get("permission"):
        message = f"missing permission {metadata['permission']}"
    elif status == 403 and "Permission '" in message:
        message = f"missing permission {message.split(chr(39))[1]}"
    return one_line(reason, 80), message


def _at_endpoint(request: Any, endpoints: Mapping[str, str]) -> None:
    """Send a media upload to `--api-endpoint` too: google-api-python-client builds upload URLs
    from the discovery document's root and keeps its `https` scheme where the endpoint is plain
    `http` (an emulator, a loopback proxy)."""
    uri = str(getattr(request, "uri", ""))
    if "/upload/" not in uri:
        return
    for url in endpoints.values():
        plain = url.rstrip("/")
        if plain.startswith("http://") and uri.startswith("https://" + plain.removeprefix("http://") + "/"):
            request.uri = "http://" + uri.removeprefix("https://")
            return


# How long a run may keep starting calls, from its first (see the module docstring: a bounded run).
DEFAULT_DEADLINE_SECONDS = 120.0


class GcpClients:
    """One set of services per thread (httplib2 is not thread-safe), calls counted across them."""

    def __init__(
        self,
        project: str,
        region: str,
        *,
        credentials: Any = None,
        endpoints: Mapping[str, str] | None = None,
        impersonate: str | None = None,
        ca_bundle: str | None = None,
        timeout: float = 30.0,
        max_attempts: int = 6,
        deadline: float = DEFAULT_DEADLINE_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        scope: str = READ_ONLY_SCOPE,
        write_methods: frozenset[str] = frozenset(),
    ) -> None:
        self.project = project
        self.scope = scope
        self.write_methods = write_methods  # method ids allowed beyond the reads (the restore drill's)
        self.region = region
        self.endpoints = dict(endpoints or {})
        self.impersonate = impersonate or os.environ.get("CLOUDSDK_AUTH_IMPERSONATE_SERVICE_ACCOUNT") or None
        self.ca_bundle = ca_bundle
        self.timeout = timeout
        self.max_attempts = max(1, max_attempts)
        self.sleep = sleep
        self.clock = clock
        self.deadline = deadline
        self.calls = ApiCalls()
        self.calls.bound_seconds = deadline + timeout
        self._started: float | None = None  # the clock at the first call: the deadline counts from it
        self.methods: set[str] = set()  # API method ids called (the permissions a run needs)
        self.project_number: str | None = None  # from the first call (projects.get)
        self._credentials = credentials
        self._given_credentials = credentials
        self._local = threading.local()  # services per thread: httplib2 connections are not thread-safe

    @property
    def endpoint(self) -> str:
        """Where the calls go, for reports."""
        if not self.endpoints:
            return DEFAULT_ENDPOINTS
        return ", ".join(f"{service}={url}" for service, url in sorted(self.endpoints.items()))

    def credentials(self) -> Any:
        """ADC with the read-only scope (raises google.auth's DefaultCredentialsError without any)."""
        if self._credentials is None:
            self._credentials = self._default_credentials(self.scope)
        return self._credentials

    def credentials_for(self, scope: str) -> Any:
        """The same identity with another scope (the cluster's API takes `userinfo.email`): the credentials
        this client was given, else ADC (impersonating as the client does)."""
        if self._given_credentials is not None:
            return self._given_credentials
        return self._default_credentials(scope)

    def _default_credentials(self, scope: str) -> Any:
        credentials, _ = google.auth.default(scopes=[scope])
        if self.impersonate:
            credentials = impersonated_credentials.Credentials(
                source_credentials=credentials, target_principal=self.impersonate, target_scopes=[scope])
        return credentials

    def service(self, name: str) -> Any:
        services: dict[str, Any] = self._local.__dict__.setdefault("services", {})
        if name not in services:
            transport = httplib2.Http(timeout=self.timeout, ca_certs=self.ca_bundle)
            options = {"api_endpoint": self.endpoints[name]} if name in self.endpoints else None
            http = google_auth_httplib2.AuthorizedHttp(self.credentials(), http=transport)
            local = LOCAL_DOCUMENTS / f"{name}.{API_VERSIONS[name]}.json"
            if local.is_file():
                services[name] = discovery.build_from_document(local.read_text(encoding="utf-8"), http=http,
                                                               client_options=options)
            else:
                services[name] = discovery.build(name, API_VERSIONS[name], http=http, client_options=options,
                                                 static_discovery=True, cache_discovery=False)
        return services[name]

    def writer(self, scope: str, methods: frozenset[str]) -> GcpClients:
        """Clients for the same project and endpoints that may also call `methods`, with credentials
        for `scope`: the one place verify writes (the restore drill, under its scratch prefix)."""
        writer = GcpClients(
            self.project,
            self.region,
            credentials=self._given_credentials,
            endpoints=self.endpoints,
            impersonate=self.impersonate,
            ca_bundle=self.ca_bundle,
            timeout=self.timeout,
            max_attempts=self.max_attempts,
            deadline=self.deadline,
            sleep=self.sleep,
            clock=self.clock,
            scope=scope,
            write_methods=methods,
        )
        writer.calls, writer.methods, writer.project_number = self.calls, self.methods, self.project_number
        writer._started = self._started
        return writer

    def read(self, request: Any, *, list_field: str | None = None) -> dict:
        """Execute one read (a googleapiclient HttpRequest), retried; its JSON answer, in the shape its
        method promises (`answer_problem`; `list_field`: the list a list method answers with)."""
        method = str(getattr(request, "methodId", "") or "")
        answer = self.execute(request, check=lambda found: answer_problem(method, found, list_field))
        assert isinstance(answer, dict)  # answer_problem let nothing else through
        return answer

    def media(self, request: Any) -> bytes:
        """Execute one media download (`objects().get_media(...)`), retried; the object's bytes."""
        answer = self.execute(request, bounded=False)  # data, not an answer: its time is its size
        return answer if isinstance(answer, bytes) else str(answer).encode()

    def execute(self, request: Any, check: Callable[[Any], str | None] | None = None, *, bounded: bool = True) -> Any:
        """Execute one allowed call, retried; its decoded answer (JSON, or bytes for media). `check`
        names what makes an answer unreadable (None: readable); such an answer is retried, then a
        `GcpReadError`."""
        method_id = str(getattr(request, "methodId", "") or "")
        short = method_id.rsplit(".", 1)[-1]
        if short not in READ_METHODS and method_id not in self.write_methods:
            raise ReadOnlyError(f"accelplane verify is read-only: refusing to call {method_id}")
        _at_endpoint(request, self.endpoints)
        operation = method_id.split(".", 1)[0] + "." + ".".join(method_id.split(".")[-2:])
        self.methods.add(method_id)
        for attempt in range(1, self.max_attempts + 1):
            late = self._past_deadline(operation, attempt) if bounded else None
            if late is not None:
                raise late
            try:
                answer = request.execute(num_retries=0)
                problem = check(answer) if check is not None else None
                if problem is None:
                    self.calls.record(operation, retries=attempt - 1)
                    return answer
                # A 200 whose body is not what the method answers (cut short, another server's): as a
                # cut connection, retried; never read as an empty or changed resource.
                retry, failure = True, GcpReadError(operation, "unreadable answer", problem)
            except HttpError as error:
                status = int(error.resp.status)
                content_type = str(error.resp.get("content-type", ""))
                code, message = describe_http_error(status, error.content, content_type)
                # An HTML page is a proxy or portal answering: backoff does not make it go away.
                html = "html" in content_type.lower() or looks_like_html(error.content or b"")
                retry = status in _RETRIED_STATUS and not html
                if status == 403 and code != "SERVICE_DISABLED" and "missing permission" not in message:
                    needed = (PERMISSIONS.get(method_id) or PREFLIGHT_PERMISSIONS.get(method_id)
                              or MIGRATION_PERMISSIONS.get(method_id) or "a read permission")
                    message += f" (needs {needed} here)"
                failure = GcpReadError(operation, code, message)
            except _CONNECTION_ERRORS as error:
                reason = one_line(error, API_MESSAGE_LIMIT) or type(error).__name__
                retry, failure = True, GcpReadError(operation, "connection", f"no complete answer: {reason}")
            except GoogleAuthError as error:  # the token could not be had or refreshed
                retry, failure = False, GcpReadError(operation, "credentials", one_line(error, API_MESSAGE_LIMIT))
            except ValueError as error:  # a body that is not JSON: something else answered
                retry, failure = False, GcpReadError(operation, "not the API", one_line(error, API_MESSAGE_LIMIT))
            if not retry or attempt == self.max_attempts:
                self.calls.record(operation, retries=attempt - 1, error=True)
                if retry:
                    failure.message += f" (after {attempt} attempts)"
                raise failure
            backoff = min(8.0, 0.25 * 2 ** (attempt - 1)) * (0.5 + random.random() / 2)
            self.sleep(max(0.0, min(backoff, self._time_left())))
        raise AssertionError("unreachable")

    def _time_left(self) -> float:
        if self._started is None:
            return self.deadline
        return self.deadline - (self.clock() - self._started)

    def _past_deadline(self, operation: str, attempt: int) -> GcpReadError | None:
        """The error for a call (or retry) that would start after the run's deadline; None in time."""
        if self._started is None:
            self._started = self.clock()
        if self._time_left() > 0:
            return None
        self.calls.record(operation, retries=attempt - 1, error=True)
        tried = f" after {attempt - 1} attempts" if attempt > 1 else ""
        return GcpReadError(operation, "deadline", f"not read{tried}: the run's {self.deadline:g} s read deadline "
                            "passed (a slow or failing API); the rest of the run is not verified")

    def pages_aggregated(self, collection: Any, **params: Any) -> dict[str, list[dict]]:
        """A Compute `aggregatedList`'s members by scope (`zones/<zone>`), every page followed; the list field
        of each scope is the collection's own (`reservations`), found as the one list in the scope."""
        found: dict[str, list[dict]] = {}
        request = collection.aggregatedList(**params)
        while request is not None:
            answer = self.read(request)
            for scope, value in (answer.get("items") or {}).items():
                lists = [items for key, items in (value or {}).items() if isinstance(items, list) and key != "warning"]
                found.setdefault(scope, []).extend(lists[0] if lists else [])
            request = collection.aggregatedList_next(request, answer) if answer.get("nextPageToken") else None
        return found

    def pages(self, collection: Any, field: str, **params: Any) -> list[dict]:
        """Every item of a list method, following nextPageToken."""
        items: list[dict] = []
        request = collection.list(**params)
        while request is not None:
            answer = self.read(request, list_field=field)
            items.extend(answer.get(field) or [])
            request = collection.list_next(request, answer) if answer.get("nextPageToken") else None
        return items


# What a get's resource always carries (name: most APIs; id/selfLink: Compute; email: a service account).
_IDENTIFYING_FIELDS = ("name", "id", "selfLink", "email")


def answer_problem(method_id: str, answer: Any, list_field: str | None = None) -> str | None:
    """Why `answer` is not the shape `method_id` promises; None when it is. The one place that decides
    what a readable answer is: a JSON object; a list method's `list_field` a list of objects, or absent
    (Google leaves an empty list out); a get's resource with an identifying field; a policy with its
    etag. Only the answer's kind and size are named, never its content."""
    if not isinstance(answer, dict):
        if isinstance(answer, (str, bytes)):
            return (f"a 200 answer that is not JSON ({len(answer)} characters: a truncated body, or something "
                    "other than the API answered)")
        return f"a JSON {type(answer).__name__} where the method answers with an object"
    short = method_id.rsplit(".", 1)[-1]
    if list_field is not None:
        found = answer.get(list_field)
        if found is not None and not (isinstance(found, list) and all(isinstance(i, dict) for i in found)):
            return f"its {list_field} is not a list of objects"
    elif short == "get" and not any(answer.get(key) for key in _IDENTIFYING_FIELDS):
        return "a get answered without the resource (" + ("an empty object" if not answer else "no name or id") + ")"
    elif short == "getIamPolicy" and not answer.get("etag"):
        return "a policy without its etag (every IAM policy Google answers carries one)"
    return None
