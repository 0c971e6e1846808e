"""The few Kubernetes API calls rollout makes (get an object, JSON-merge-patch it, POST through a
Service's proxy), over HTTPS.

Reached one of two ways (`ClusterAccess`):
- the cloud's own (GKE: the cluster's endpoint and CA from `clusters.get`, with a Google access
  token from the same credentials verify uses; GKE kubeconfig contexts authenticate through
  gke-gcloud-auth-plugin, an exec plugin that is not packaged here, so this is the default);
- `--context NAME`: a kubeconfig context (`KUBECONFIG`, else ~/.kube/config) whose user holds a
  bearer token or a client certificate. A context that needs an exec plugin is refused, naming why.

Failures are `KubernetesApiError`s carrying the API server's own Status message (RBAC's "cannot
patch resource", a 409 on a stale resourceVersion) in one line.
"""

from __future__ import annotations

import base64
import json
import os
import ssl
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from accelplane.cloud_support import Capability, Connection, NotSupportedError, required_facet
from accelplane.declaration import Platform
from accelplane.verify.text import API_MESSAGE_LIMIT, one_line


class KubernetesApiError(Exception):
    def __init__(self, code: int | str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class ClusterAccess:
    server: str  # https://host[:port]
    ca_pem: bytes | None  # None: the system's CAs
    token: Callable[[], str] | None = None
    client_cert: tuple[bytes, bytes] | None = None  # (certificate PEM, key PEM)
    where: str = ""  # for messages: the cluster or context


class KubernetesApi:
    def __init__(self, access: ClusterAccess, timeout: float = 15.0) -> None:
        self.access = access
        self.timeout = timeout
        try:
            self._context = ssl.create_default_context(cadata=access.ca_pem.decode() if access.ca_pem else None)
        except (UnicodeDecodeError, ssl.SSLError, ValueError) as error:
            raise KubernetesApiError("ca", f"the cluster CA of {access.where} is not a PEM certificate "
                                     f"({one_line(error, API_MESSAGE_LIMIT)})") from None
        if access.client_cert:
            self._load_client_cert(*access.client_cert)

    def _load_client_cert(self, cert: bytes, key: bytes) -> None:
        # ssl loads a chain only from files: written to a private temporary directory, then removed.
        with tempfile.TemporaryDirectory() as directory:
            cert_file, key_file = Path(directory, "client.crt"), Path(directory, "client.key")
            cert_file.write_bytes(cert)
            key_file.touch(mode=0o600)
            key_file.write_bytes(key)
            self._context.load_cert_chain(cert_file, key_file)

    def get(self, path: str) -> dict[str, Any]:
        return self._call("GET", path)

    def merge_patch(self, path: str, patch: dict[str, Any]) -> dict[str, Any]:
        return self._call("PATCH", path, patch, "application/merge-patch+json")

    def service_post(self, namespace: str, service: str, port: int, path: str, body: Any) -> dict[str, Any]:
        """POST `body` to `path` on a Service's port through the API server's proxy
        (`/api/v1/namespaces/{ns}/services/{name}:{port}/proxy/...`): the backend itself, not the route."""
        proxy = f"/api/v1/namespaces/{namespace}/services/{service}:{port}/proxy"
        return self._call("POST", proxy + path, body, "application/json")

    def _call(self, verb: str, path: str, body: Any = None, content_type: str = "") -> dict[str, Any]:
        headers = {"Accept": "application/json"}
        if self.access.token is not None:
            headers["Authorization"] = f"Bearer {self.access.token()}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = content_type
        request = urllib.request.Request(self.access.server + path, data=data, method=verb, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout, context=self._context) as answer:
                return json.loads(answer.read() or b"{}")
        except urllib.error.HTTPError as error:
            raise KubernetesApiError(error.code, _status_message(error.read())) from None
        except (urllib.error.URLError, OSError) as error:
            reason = one_line(getattr(error, "reason", error), API_MESSAGE_LIMIT)
            raise KubernetesApiError("connection", f"{self.access.server}: {reason}") from None
        except ValueError as error:
            raise KubernetesApiError("not the API", one_line(error, API_MESSAGE_LIMIT)) from None


def _status_message(body: bytes) -> str:
    try:
        status = json.loads(body)
    except ValueError:
        return one_line(body.decode("utf-8", "replace") or "no message", API_MESSAGE_LIMIT)
    return one_line(status.get("message") or status.get("reason") or "no message", API_MESSAGE_LIMIT)


def from_kubeconfig(context: str, path: str | None = None) -> ClusterAccess:
    """The access a kubeconfig context gives; `ValueError` naming what is missing or unsupported."""
    file = Path(path or os.environ.get("KUBECONFIG", "").split(os.pathsep)[0] or Path.home() / ".kube" / "config")
    try:
        config = yaml.safe_load(file.read_text()) or {}
    except (OSError, yaml.YAMLError) as error:
        raise ValueError(f"cannot read kubeconfig {file}: {one_line(error, API_MESSAGE_LIMIT)}") from None

    def named(kind: str, name: str) -> dict[str, Any]:
        for entry in config.get(kind + "s") or []:
            if entry.get("name") == name:
                return entry.get(kind) or {}
        raise ValueError(f"kubeconfig {file} has no {kind} {name!r}")

    ctx = named("context", context)
    cluster, user = named("cluster", str(ctx.get("cluster"))), named("user", str(ctx.get("user")))
    if "exec" in user or "auth-provider" in user:
        plugin = (user.get("exec") or {}).get("command") or "an auth provider"
        raise ValueError(f"context {context!r} authenticates through {plugin}, which accelplane does not run: "
                         "leave out --context to reach GKE with your Google credentials")
    ca = _data_or_file(cluster, "certificate-authority")
    token = user.get("token")
    if not token and user.get("tokenFile"):
        token = Path(user["tokenFile"]).read_text().strip()
    cert, key = _data_or_file(user, "client-certificate"), _data_or_file(user, "client-key")
    if not token and not (cert and key):
        raise ValueError(f"context {context!r}: its user has neither a token nor a client certificate and key")
    return ClusterAccess(
        server=str(cluster.get("server", "")).rstrip("/"),
        ca_pem=ca,
        token=(lambda: str(token)) if token else None,
        client_cert=(cert, key) if cert and key else None,
        where=f"context {context}",
    )


def _data_or_file(section: dict[str, Any], key: str) -> bytes | None:
    if section.get(f"{key}-data"):
        return base64.b64decode(section[f"{key}-data"])
    if section.get(key):
        return Path(section[key]).read_bytes()
    return None


CLUSTER_ACCESS_GROUP = "accelplane.cluster_access"


@dataclass(frozen=True)
class CloudClusterAccess:
    """How to reach a platform's Kubernetes API with the cloud's own credentials: its
    `accelplane.cluster_access` entry point."""

    cloud: str
    access: Callable[[Platform, Connection], ClusterAccess]  # `ValueError` or a cloud error when it cannot


def cluster_access(platform: Platform, connection: Connection) -> ClusterAccess:
    """`ValueError` where the cloud offers no way in (give a kubeconfig context instead)."""
    try:
        facet = required_facet(CLUSTER_ACCESS_GROUP, platform.cloud, CloudClusterAccess, Capability.cluster_access)
    except NotSupportedError as error:
        raise ValueError(str(error)) from None
    return facet.access(platform, connection)
