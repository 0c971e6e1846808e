"""The fake's HTTP side: one server on a free loopback port serves every API under
`/{api}/{version}/`; `endpoint(api, version)` is what a client's `api_endpoint` is set to (as
users point a client at a private endpoint). Each request is routed by the discovery document,
its body checked against the method's request schema (400, as the real API answers an unknown
field) and every answer against the response schema: a mismatch is recorded in
`schema_errors`, which the tests' fixture asserts empty, so the fake cannot drift from the
API's shape. `calls` lists the method ids served, so a test can hold a command to reads only."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

from tests.support.google_api_fake import advice, aggregated, compute, dns, faults, gke, iam, pubsub, query, schema
from tests.support.google_api_fake.state import ApiError, Call, Handler, State
from tools import google_discovery as discovery


class GoogleApiFake:
    def __init__(self, *, page_size: int = 1) -> None:
        self.state = State(page_size=page_size)
        self.calls: list[str] = []
        self.schema_errors: list[str] = []
        self._faults: dict[str, faults.Fault] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_class(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        # The methods with semantics of their own that the fake serves like Google does.
        for methods in (gke, compute, iam, dns, pubsub, advice, aggregated):
            methods.install(self)

    # -- lifecycle ---------------------------------------------------------------------------

    def __enter__(self) -> GoogleApiFake:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def endpoint(self, api: str, version: str) -> str:
        return f"{self.url}/{api}/{version}/{discovery.load(api, version).service_path}"

    def client(self, api: str, version: str):
        """A plain google-api-python-client Resource against the fake, as a test writes drift."""
        from google.auth.credentials import AnonymousCredentials
        from googleapiclient import discovery as client_discovery

        return client_discovery.build(
            api,
            version,
            credentials=AnonymousCredentials(),
            client_options={"api_endpoint": self.endpoint(api, version)},
            static_discovery=True,
            cache_discovery=False,
        )

    # -- what tests arrange ------------------------------------------------------------------

    def fault(self, method_id: str, kind: str, *, permission: str = "", times: int | None = None) -> None:
        """Answer `method_id` (e.g. container.projects.locations.clusters.get) with a fault."""
        self._faults[method_id] = faults.Fault(kind, permission=permission, times=times)

    def put(self, api: str, version: str, path: str, resource: dict) -> None:
        """Seed a resource no standard method creates (the project itself)."""
        api_doc = discovery.load(api, version)
        self.state.resources[self.state.key(api_doc, path)] = resource

    def grant(self, api: str, version: str, path: str, *permissions: str) -> None:
        """Let testIamPermissions on `path` (below the service path; "*" for every resource)
        answer these permissions as held by the caller."""
        key = "*" if path == "*" else self.state.key(discovery.load(api, version), path)
        self.state.granted.setdefault(key, set()).update(permissions)

    def handle(self, method_id: str, handler: Handler) -> None:
        """Serve a method with semantics of its own."""
        self.state.handlers[method_id] = handler

    # -- serving -----------------------------------------------------------------------------

    def answer(self, http_method: str, raw_path: str, raw_body: bytes) -> tuple[int, str, bytes] | None:
        """The answer to one request; None to cut the connection."""
        split = urlsplit(raw_path)
        if http_method == "POST" and split.path == "/token":
            # Google's OAuth 2.0 token endpoint, for credentials whose token_uri points here (a
            # service account key signs a JWT; the fake does not check the signature).
            self.calls.append("oauth2.token")
            token = {"access_token": "ya29.fake-token", "expires_in": 3600, "token_type": "Bearer"}
            return 200, "application/json", json.dumps(token).encode()
        parts = split.path.lstrip("/").split("/", 2)
        if len(parts) < 3:
            return faults.status(404, f"no API at {split.path}")
        name, version, rest = parts
        try:
            api = discovery.load(name, version)
        except LookupError as error:
            return faults.status(404, str(error))
        below = unquote(rest[len(api.service_path) :] if rest.startswith(api.service_path) else rest)
        routed = api.route(http_method, below)
        if routed is None:
            return faults.status(404, f"{http_method} {below} is no method of {name} {version}")
        method, parameters = routed
        with self._lock:
            self.calls.append(method.id)
            fault = self._faults.get(method.id)
            if fault is not None and fault.take():
                if fault.kind == "cut":
                    return None
                if fault.kind == "truncated":
                    raw_query = parse_qs(split.query, keep_blank_values=True)
                    return faults.truncated(self._serve(api, method, below, raw_query, raw_body))
                project = parameters.get("project") or parameters.get("projectsId") or "unknown"
                return faults.body(fault, api=name, project=project, resource=below)
            return self._serve(api, method, below, parse_qs(split.query, keep_blank_values=True), raw_body)

    def _serve(self, api, method, path: str, raw_query: dict[str, list[str]],
               raw_body: bytes) -> tuple[int, str, bytes]:
        try:
            parameters = query.parse(api, method, raw_query)
        except ApiError as error:
            return faults.status(error.code, error.message)
        body = None
        if raw_body:
            try:
                body = json.loads(raw_body)
            except ValueError:
                return faults.status(400, "Invalid JSON payload received.")
        if method.request and body is not None:
            problems = schema.errors(api.schemas, method.request, body)
            if problems:
                return faults.status(400, "Invalid JSON payload received. " + "; ".join(problems))
        try:
            answer = self.state.serve(api, Call(api=api.name, method=method, path=path, query=parameters, body=body))
        except ApiError as error:
            return faults.status(error.code, error.message)
        if method.response:
            for problem in schema.errors(api.schemas, method.response, answer):
                self.schema_errors.append(f"{method.id}: {problem}")
        return 200, "application/json; charset=UTF-8", json.dumps(answer).encode()


def _handler_class(fake: GoogleApiFake) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in two writes: without TCP_NODELAY each answer waits ~40 ms on the
        # client's delayed ACK (Nagle), which was most of a verify run against the fake.
        disable_nagle_algorithm = True

        def log_message(self, *_args: object) -> None:  # the tests' output stays readable
            pass

        def _respond(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            answer = fake.answer(self.command, self.path, self.rfile.read(length) if length else b"")
            if answer is None:
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            code, content_type, payload = answer
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _respond  # noqa: N815 (http.server names them so)

    return Handler
