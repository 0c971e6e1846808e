"""boto3 clients for `verify`: read-only, retried with backoff, every API call counted.

- **Read-only by construction.** A `before-call` hook refuses any operation that is not a
  `Describe*`, `List*`, `Get*` or `Head*` call, and refuses `GetSecretValue` /
  `BatchGetSecretValue` outright: verify never reads a secret's value, whatever a later change asks.
- **Retries.** botocore's `adaptive` retry mode (exponential backoff with jitter on throttling and
  transient errors, plus a client-side token bucket that slows down when AWS throttles), up to
  `max_attempts` attempts per call. Streaming reads of checkpoint objects, which botocore does not
  retry once the body is flowing, are retried by `accelplane.clouds.aws.verify.checkpoint`.
- **Counting.** Hooks count each operation (`service.Operation`), the retries AWS made us do
  (`ResponseMetadata.RetryAttempts`) and the calls that ended in an error; the bench prints them.
- **Only AWS answers are parsed.** A proxy, captive portal or wrong `--endpoint-url` answers with an
  HTML page, which botocore would otherwise parse into an empty result (`DescribeVpcs` finding no
  VPC, `GetBucketPolicy` returning the page as the policy), a `KeyError` or an error carrying the
  raw page. A `before-parse` hook refuses such answers with `NotAnApiResponseError` (or, for the
  JSON protocols, any body that is not JSON), without retrying: a captive portal does not go away
  with backoff. Streaming bodies (checkpoint objects) are data, not answers, and are not judged.
- **Only readable answers are parsed.** botocore reads a JSON body it cannot parse as `{"message": ...}`
  and an empty one as `{}`: a body cut short would read as a list with nothing in it, a describe as
  nothing found. The same hook refuses, for the JSON protocols, a body that does not parse, that is not
  a JSON object, or an empty answer to a `Describe*`/`Get*` (`UnreadableAnswerError`); the collector
  retries such a call, then records a read error (the XML protocols' parser raises on a cut body).
- **A bounded run.** No attempt starts once `deadline` seconds have passed since the first call (a
  `before-send` hook, so botocore's own retries stop too; the clock is injected): a run reads the APIs
  for at most `deadline` plus one attempt (connect and read timeouts) plus one backoff
  (`ApiCalls.bound_seconds`). Object downloads (checkpoint files) are data and not bounded by it.
- **Endpoints are checked before use** (`endpoint_url_problem`): a malformed `--endpoint-url` is a
  usage error, not a `ValueError` from inside botocore.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError
from botocore.parsers import ResponseParserError
from botocore.utils import is_valid_endpoint_url, is_valid_ipv6_endpoint_url

from accelplane.urls import url_problem
from accelplane.verify.api_calls import ApiCalls
from accelplane.verify.text import API_MESSAGE_LIMIT, html_summary, looks_like_html, one_line

DEFAULT_ENDPOINTS = "AWS default endpoints"  # what a report names when no --endpoint-url was given

READ_ONLY_PREFIXES = ("Describe", "List", "Get", "Head")
# Read operations that return secret material: never called, by construction.
FORBIDDEN_OPERATIONS = frozenset({"GetSecretValue", "BatchGetSecretValue"})


# What a failed botocore call can raise: `ResponseParserError` (a body botocore cannot parse) is
# not a `BotoCoreError`.
API_ERRORS: tuple[type[Exception], ...] = (ClientError, BotoCoreError, ResponseParserError)
_JSON_PROTOCOLS = frozenset({"json", "rest-json"})
ENDPOINT_EXAMPLE = "an http:// or https:// URL with a host, e.g. http://127.0.0.1:5000 or https://sts.us-east-1.amazonaws.com"


class ReadOnlyError(RuntimeError):
    """A code path tried to call an AWS operation that changes or reveals something."""


class NotAnApiResponseError(BotoCoreError):
    """Something other than an AWS API answered (a proxy, a captive portal, a wrong endpoint)."""

    fmt = (
        "{endpoint} answered {operation} with {what} (HTTP {status}), not an AWS API response: "
        "is a proxy or captive portal in the way, or is the endpoint wrong?"
    )


class UnreadableAnswerError(NotAnApiResponseError):
    """An AWS API answer that cannot be read as one (a JSON body cut short, an array, an empty
    describe): transient, so the call is retried."""

    fmt = "{endpoint} answered {operation} with {what} (HTTP {status}): not read"


class DeadlineError(BotoCoreError):
    """An attempt that would start after the run's read deadline."""

    fmt = "not read: the run's {deadline:g} s read deadline passed (a slow or failing API)"


# What botocore's adaptive mode may sleep between two attempts at most (botocore.retries.standard:
# MAX_BACKOFF = 20 s), for the run's stated bound.
_MAX_BACKOFF_SECONDS = 20.0
DEFAULT_DEADLINE_SECONDS = 120.0
CONNECT_TIMEOUT_SECONDS = 10
READ_TIMEOUT_SECONDS = 60
_DATA_READS = (".GetObject",)  # before-send event names of reads whose body is data (S3 objects)


def endpoint_url_problem(url: str) -> str | None:
    """What is wrong with `url` as an AWS endpoint, with what is expected; None when it is usable.

    The same rules botocore applies when it builds a client (scheme, host, port), checked up
    front so a bad value is a usage error naming the option rather than a `ValueError`.
    """
    expected = f"expected {ENDPOINT_EXAMPLE}"
    problem = url_problem(url, expected, server_only=True, credentials_hint="give credentials through the AWS "
                          "credential chain")
    if problem is None and not (is_valid_endpoint_url(url) or is_valid_ipv6_endpoint_url(url)):
        return f"{expected} (got {url!r}: {urlsplit(url).hostname!r} is not a valid host name)"
    return problem


def describe_error(error: BaseException) -> tuple[str, str]:
    """(code, message) of a failed call, the message one bounded line whatever the API sent."""
    if isinstance(error, ClientError):
        details = error.response.get("Error", {})
        code = str(details.get("Code") or "Error")
        message = details.get("Message") or str(error)
    else:
        code, message = type(error).__name__, str(error)
    return one_line(code, 80), one_line(message, API_MESSAGE_LIMIT)


def check_read_only(operation: str) -> None:
    if operation in FORBIDDEN_OPERATIONS or not operation.startswith(READ_ONLY_PREFIXES):
        raise ReadOnlyError(f"accelplane verify is read-only: refusing to call {operation}")


class AwsClients:
    """One client per service, shared by the collector threads (boto3 clients are thread-safe)."""

    def __init__(
        self,
        region: str,
        *,
        endpoint_url: str | None = None,
        profile: str | None = None,
        max_attempts: int = 10,
        concurrency: int = 8,
        session: boto3.Session | None = None,
        deadline: float = DEFAULT_DEADLINE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.region = region
        self.deadline = deadline
        self.clock = clock
        self._started: float | None = None
        self.endpoint_url = endpoint_url
        self.session = session or boto3.Session(profile_name=profile, region_name=region)
        self.config = Config(
            region_name=region,
            retries={"mode": "adaptive", "max_attempts": max_attempts},
            connect_timeout=CONNECT_TIMEOUT_SECONDS,
            read_timeout=READ_TIMEOUT_SECONDS,
            max_pool_connections=max(10, concurrency * 2),
            user_agent_extra="accelplane-verify",
            # A local endpoint (moto, LocalStack) has no per-bucket DNS names.
            s3={"addressing_style": "path"} if endpoint_url else None,
        )
        # The first call (who am I) fails fast: an unreachable endpoint is a usage problem, not
        # something to retry ten times with backoff.
        self.quick_config = self.config.merge(
            Config(retries={"mode": "standard", "max_attempts": 2}, connect_timeout=5, read_timeout=20)
        )
        self.calls = ApiCalls()
        # The deadline, then one attempt that started just before it, then one backoff.
        self.calls.bound_seconds = deadline + CONNECT_TIMEOUT_SECONDS + READ_TIMEOUT_SECONDS + _MAX_BACKOFF_SECONDS
        self._clients: dict[tuple[str, bool], Any] = {}
        self._lock = threading.Lock()

    def __call__(self, service: str, *, quick: bool = False) -> Any:
        with self._lock:
            client = self._clients.get((service, quick))
            if client is None:
                config = self.quick_config if quick else self.config
                client = self.session.client(service, endpoint_url=self.endpoint_url, config=config)
                events = client.meta.events
                events.register("before-call", self._before_call)
                events.register("after-call", self._after_call)
                events.register("after-call-error", self._after_call_error)
                events.register("before-parse", self._refuse_non_api_answer(client.meta.endpoint_url))
                # First, before a stub or mock answers in place of the network (moto registers there too).
                events.register_first("before-send", self._within_deadline)
                self._clients[(service, quick)] = client
            return client

    @property
    def endpoint(self) -> str:
        """Where the calls go, for reports: `--endpoint-url` (without any user:password@) or AWS's own."""
        if not self.endpoint_url:
            return DEFAULT_ENDPOINTS
        parts = urlsplit(self.endpoint_url)
        host = parts.netloc.rsplit("@", 1)[-1]
        return parts._replace(netloc=host).geturl()

    @staticmethod
    def _refuse_non_api_answer(endpoint: str) -> Any:
        shown = one_line(endpoint, 120)

        def check(operation_model: Any, response_dict: dict[str, Any], **_: Any) -> None:
            if operation_model.has_streaming_output:
                return
            body = response_dict.get("body")
            status = response_dict.get("status_code", "?")
            operation = f"{operation_model.service_model.service_name}.{operation_model.name}"
            if not isinstance(body, bytes | bytearray) or not body.strip():
                if status == 200 and _answers_a_resource(operation_model):
                    raise UnreadableAnswerError(endpoint=shown, operation=operation, what="an empty body",
                                                status=status)
                return
            if looks_like_html(bytes(body)):
                what = f"an HTML page ({html_summary(bytes(body).decode('utf-8', 'replace'))})"
            elif (
                operation_model.service_model.resolved_protocol in _JSON_PROTOCOLS
                and body.lstrip()[:1] not in (b"{", b"[")
                and not (operation_model.output_shape and operation_model.output_shape.serialization.get("payload"))
            ):
                what = f"a body that is not JSON ({one_line(bytes(body[:200]), 60)!r})"
            else:
                unreadable = _unreadable_json(operation_model, bytes(body), status)
                if unreadable is None:
                    return
                raise UnreadableAnswerError(endpoint=shown, operation=operation, what=unreadable, status=status)
            raise NotAnApiResponseError(endpoint=shown, operation=operation, what=what, status=status)

        return check

    def _within_deadline(self, event_name: str = "", **_: Any) -> None:
        """Before each attempt (botocore's retries included): none starts past the run's deadline.
        Object downloads (the restore drill's checkpoint files, gigabytes each) are data, not answers:
        their time is the data's size, not the API's health, so the deadline does not stop them."""
        if event_name.endswith(_DATA_READS):
            return
        now = self.clock()
        if self._started is None:
            self._started = now
        if now - self._started >= self.deadline:
            raise DeadlineError(deadline=self.deadline)

    def _before_call(self, model: Any, context: dict[str, Any], **_: Any) -> None:
        check_read_only(model.name)
        context["accelplane_operation"] = f"{model.service_model.service_name}.{model.name}"

    def _after_call(self, model: Any, parsed: dict[str, Any], **_: Any) -> None:
        retries = (parsed.get("ResponseMetadata") or {}).get("RetryAttempts", 0)
        error = "Error" in parsed
        self.calls.record(f"{model.service_model.service_name}.{model.name}", retries=retries or 0, error=error)

    def _after_call_error(self, context: dict[str, Any], exception: Exception, **_: Any) -> None:
        # A connection-level failure after all retries: still a call we made.
        self.calls.record(context.get("accelplane_operation", "unknown"), error=True)


def _answers_a_resource(operation_model: Any) -> bool:
    """A JSON-protocol Describe*/Get* whose answer has members: never empty when AWS answers it."""
    shape = operation_model.output_shape
    return (operation_model.service_model.resolved_protocol in _JSON_PROTOCOLS
            and operation_model.name.startswith(("Describe", "Get"))
            and shape is not None and bool(shape.members) and not shape.serialization.get("payload"))


def _unreadable_json(operation_model: Any, body: bytes, status: Any) -> str | None:
    """Why a JSON-protocol answer cannot be read as one (its kind and size only, never its content);
    None when it can, or for the other protocols (their parsers raise on a body cut short)."""
    if operation_model.service_model.resolved_protocol not in _JSON_PROTOCOLS:
        return None
    shape = operation_model.output_shape
    if shape is not None and shape.serialization.get("payload"):
        return None  # the body is the payload itself (a document), not an answer object
    try:
        parsed = json.loads(body)
    except ValueError:
        return f"a JSON body cut short or malformed ({len(body)} bytes)"
    if not isinstance(parsed, dict):
        return f"a JSON {type(parsed).__name__} where the API answers with an object"
    if not parsed and status == 200 and _answers_a_resource(operation_model):
        return "an empty object where it answers with the resource"
    return None
