"""A Kubernetes API server's object endpoints for Gateway API objects, over HTTPS on 127.0.0.1.

Why a fake: no kube-apiserver runs on these machines (Debian and PyPI package none; envtest's
binaries are downloaded from the internet, which is not reachable), and GKE's API server is only
reached with a Google access token, which a kind or k3s cluster would not take either.

What it keeps real: TLS with a cluster CA of its own (the client must trust exactly that CA, as it
trusts GKE's `masterAuth.clusterCaCertificate`); bearer-token authentication (401 without the
expected token); the REST paths (`/apis/{group}/{version}/namespaces/{ns}/{plural}/{name}`), GET,
PUT and JSON merge patch (`application/merge-patch+json`) with `resourceVersion` concurrency (409
on a stale one); the Status error bodies; and every stored object checked against its CRD's
OpenAPI schema (accelplane/k8s/crds, the same strict schemas the offline checks use): an invalid
write is a 422 `Invalid`, as from a real API server. `forbid(verb)` answers a verb with 403 as RBAC
would. The Service proxy (`/api/v1/namespaces/NS/services/NAME:PORT/proxy/...`) forwards to
the URL a test registers for the Service (`services["NS/NAME:PORT"]`), as the API server forwards
to the Service's pods.
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import ssl
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from accelplane.k8s.manifests import _validator

SCHEMA_VERSION = "1.33.0"
KINDS = {"httproutes": "HTTPRoute", "gateways": "Gateway", "gcpbackendpolicies": "GCPBackendPolicy",
         "gcpgatewaypolicies": "GCPGatewayPolicy", "healthcheckpolicies": "HealthCheckPolicy"}


def _certificates(directory: Path) -> tuple[bytes, Path, Path]:
    """A CA and a server certificate for 127.0.0.1 signed by it: (CA PEM, cert file, key file)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test cluster CA")])
    ca = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                     data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                     crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kube-apiserver")]))
        .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                       critical=False)
        # Python 3.13 verifies strictly (VERIFY_X509_STRICT): a leaf names its issuer's key.
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    cert_file, key_file = directory / "apiserver.crt", directory / "apiserver.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return ca.public_bytes(serialization.Encoding.PEM), cert_file, key_file


def _merge(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch."""
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = _merge(out.get(key), value)
    return out


def _status(code: int, reason: str, message: str) -> tuple[int, dict]:
    return code, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message, "reason": reason,
                  "code": code}


@dataclass
class KubernetesApiFake:
    token: str
    ca_pem: bytes = b""
    url: str = ""
    objects: dict[str, dict] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)  # (verb, path)
    forbidden: set[str] = field(default_factory=set)
    services: dict[str, str] = field(default_factory=dict)  # "ns/name:port" -> the URL its pods answer on
    _version: int = 1000
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def forbid(self, verb: str) -> None:
        self.forbidden.add(verb)

    def put(self, obj: dict) -> None:
        """Create or replace an object as `kubectl apply` would (checked against its schema)."""
        path = self.path_of(obj)
        code, answer = self._store(path, obj)
        assert code == 200, answer

    def path_of(self, obj: dict) -> str:
        group_version = obj["apiVersion"]
        plural = next(p for p, kind in KINDS.items() if kind == obj["kind"])
        meta = obj["metadata"]
        return f"/apis/{group_version}/namespaces/{meta['namespace']}/{plural}/{meta['name']}"

    def _proxy(self, verb: str, path: str, body: bytes) -> tuple[int, dict]:
        """The API server's Service proxy: the request goes to the Service's pods (here: a URL)."""
        service, rest = _proxy_target(path)
        if "create" in self.forbidden:  # RBAC's verb for POST on services/proxy
            return _status(403, "Forbidden", f'services "{service}" is forbidden: User "accelplane@example.com" '
                           'cannot create resource "services/proxy"')
        upstream = self.services.get(service)
        if upstream is None:
            return _status(503, "ServiceUnavailable", f'no endpoints available for service "{service}"')
        return _forward(upstream, verb, rest, body)

    def get(self, path: str) -> dict:
        return json.loads(json.dumps(self.objects[path]))

    def _store(self, path: str, obj: dict) -> tuple[int, dict]:
        errors = sorted(_validator(obj.get("kind", ""), obj.get("apiVersion", ""), SCHEMA_VERSION).iter_errors(obj),
                        key=str)
        if errors:
            where = "/".join(map(str, errors[0].absolute_path))
            return _status(422, "Invalid", f"{obj.get('kind')} {obj['metadata'].get('name')!r} is invalid: "
                           f"{where}: {errors[0].message}")
        self._version += 1
        obj = json.loads(json.dumps(obj))
        obj["metadata"]["resourceVersion"] = str(self._version)
        self.objects[path] = obj
        return 200, obj

    def serve(self, verb: str, path: str, headers: Any, body: bytes) -> tuple[int, dict]:
        self.requests.append((verb, path))
        if headers.get("Authorization") != f"Bearer {self.token}":
            return _status(401, "Unauthorized", "Unauthorized")
        if path.startswith("/api/v1/namespaces/") and "/proxy/" in path:
            return self._proxy(verb, path, body)
        parts = path.strip("/").split("/")
        if len(parts) != 7 or parts[0] != "apis" or parts[3] != "namespaces" or parts[5] not in KINDS:
            return _status(404, "NotFound", f"the server could not find the requested resource ({path})")
        plural, name, namespace = parts[5], parts[6], parts[4]
        resource = f"{plural}.{parts[1]}"
        if verb.lower() in self.forbidden:
            return _status(403, "Forbidden", f'{resource} "{name}" is forbidden: User "accelplane@example.com" cannot '
                           f'{verb.lower()} resource "{plural}" in API group "{parts[1]}" in the namespace '
                           f'"{namespace}"')
        with self._lock:
            current = self.objects.get(path)
            if current is None:
                return _status(404, "NotFound", f'{resource} "{name}" not found')
            if verb == "GET":
                return 200, current
            try:
                change = json.loads(body or b"{}")
            except ValueError as error:
                return _status(400, "BadRequest", f"the body is not JSON: {error}")
            if verb == "PATCH" and headers.get("Content-Type") != "application/merge-patch+json":
                return _status(415, "UnsupportedMediaType", f"unsupported patch type {headers.get('Content-Type')}")
            wanted = (change.get("metadata") or {}).get("resourceVersion")
            if wanted and wanted != current["metadata"]["resourceVersion"]:
                return _status(409, "Conflict", f'Operation cannot be fulfilled on {resource} "{name}": the object '
                               "has been modified; please apply your changes to the latest version and try again")
            updated = _merge(current, change) if verb == "PATCH" else change
            return self._store(path, updated)


def _proxy_target(path: str) -> tuple[str, str]:
    """`/api/v1/namespaces/NS/services/NAME:PORT/proxy/REST` -> ("NS/NAME:PORT", "/REST")."""
    head, _, rest = path.partition("/proxy")
    parts = head.strip("/").split("/")
    return f"{parts[3]}/{parts[5]}", rest or "/"


def _forward(upstream: str, verb: str, rest: str, body: bytes) -> tuple[int, dict]:
    request = urllib.request.Request(upstream + rest, data=body or None, method=verb,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, {"error": error.read().decode("utf-8", "replace")}
    except OSError as error:  # as the API server says when no endpoint answers
        return _status(503, "ServiceUnavailable", f"error trying to reach service: {error}")


@contextmanager
def kubernetes_api(work: Path, token: str) -> Iterator[KubernetesApiFake]:
    fake = KubernetesApiFake(token)
    fake.ca_pem, cert_file, key_file = _certificates(work)

    class Handler(BaseHTTPRequestHandler):
        disable_nagle_algorithm = True  # no ~40 ms delayed-ACK wait per answer on loopback

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            code, answer = fake.serve(self.command, self.path, self.headers, self.rfile.read(length))
            data = json.dumps(answer).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._answer()

        def do_PATCH(self) -> None:
            self._answer()

        def do_PUT(self) -> None:
            self._answer()

        def do_POST(self) -> None:
            self._answer()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    fake.url = f"https://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
