"""Prometheus' HTTP API as the commands that read the cluster's metrics use it (`rollout`'s gates,
`cost idle`): instant queries at an explicit time, a cloud's authorization for the Prometheus it serves
itself, and what is wrong with a base URL.

Any failure to get an answer (no connection, a timeout, an HTTP error, a body that is not the API's JSON,
`status: error`) is an `InputError` naming the URL: an unreachable metrics endpoint is a usage problem
(exit 2), never a verdict.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from accelplane.cloud_support import Connection, cloud_facet
from accelplane.errors import InputError
from accelplane.urls import url_problem

# An instant vector per backend is a few hundred bytes; anything near this is not our answer.
_ANSWER_LIMIT = 8 * 1024 * 1024
OPTION = "--prometheus-url"


def prometheus_url_problem(url: str) -> str | None:
    """What is wrong with `url` as Prometheus' base URL; None when usable."""
    return url_problem(url, "expected an http:// or https:// URL of Prometheus, e.g. http://127.0.0.1:9090",
                       server_only=True)


def instant_samples(base: str, promql: str, now: datetime, *, command: str, timeout: float = 10.0,
                    authorization: Callable[[], str] | None = None) -> list[tuple[dict[str, str], float]]:
    """One instant query at `now`: each sample's labels and value."""
    endpoint = base.rstrip("/") + "/api/v1/query?" + urllib.parse.urlencode(
        {"query": promql, "time": f"{now.timestamp():.3f}"}
    )

    def refuse(why: str) -> InputError:
        return InputError.single(f"cannot read metrics from Prometheus at {base}: {why}", field=OPTION,
                                 file=command)

    headers = {"Accept": "application/json"}
    if authorization is not None:
        headers["Authorization"] = authorization()
    request = urllib.request.Request(endpoint, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            body = answer.read(_ANSWER_LIMIT + 1)
    except urllib.error.HTTPError as error:
        # Prometheus answers a bad query with 400/422 and a JSON body naming the problem.
        detail = _api_error(error.read(64 * 1024)) or error.reason
        raise refuse(f"HTTP {error.code} for {promql!r}: {detail}") from None
    except urllib.error.URLError as error:
        raise refuse(f"{error.reason}") from None
    except TimeoutError:
        raise refuse(f"no answer within {timeout:g} seconds") from None
    except OSError as error:
        raise refuse(str(error)) from None
    if len(body) > _ANSWER_LIMIT:
        raise refuse(f"the answer is larger than {_ANSWER_LIMIT // (1024 * 1024)} MiB: is this Prometheus?")
    try:
        data: Any = json.loads(body)
    except ValueError:
        raise refuse("the answer is not JSON: is this Prometheus' HTTP API?") from None
    if not isinstance(data, dict) or data.get("status") != "success":
        detail = data.get("error") if isinstance(data, dict) else None
        raise refuse(f"the query {promql!r} failed: {detail or 'no success status'}")
    result = data.get("data") or {}
    if result.get("resultType") != "vector" or not isinstance(result.get("result"), list):
        raise refuse(f"expected an instant vector for {promql!r}, got {result.get('resultType')!r}")
    samples: list[tuple[dict[str, str], float]] = []
    for sample in result["result"]:
        try:
            metric = {str(k): str(v) for k, v in sample["metric"].items()}
            value = float(sample["value"][1])  # "NaN", "+Inf" parse too
        except (KeyError, TypeError, IndexError, ValueError, AttributeError):
            raise refuse(f"a sample of {promql!r} is not [time, value]: {str(sample)[:120]}") from None
        samples.append((metric, value))
    return samples


def _api_error(body: bytes) -> str | None:
    try:
        data = json.loads(body)
    except ValueError:
        return None
    return str(data.get("error")) if isinstance(data, dict) and data.get("error") else None


METRICS_AUTHORIZATION_GROUP = "accelplane.metrics_authorization"


@dataclass(frozen=True)
class CloudMetricsAuthorization:
    """The `Authorization` header for a Prometheus query API a cloud serves itself (its managed
    Prometheus): its `accelplane.metrics_authorization` entry point (an optional facet)."""

    cloud: str
    # (query URL, connection) -> a function called per query, or None for a Prometheus the cloud does not serve
    authorization: Callable[[str, Connection], Callable[[], str] | None]


def authorization_for(cloud: str, url: str, connection: Connection) -> Callable[[], str] | None:
    facet = cloud_facet(METRICS_AUTHORIZATION_GROUP, cloud, CloudMetricsAuthorization)
    return facet.authorization(url, connection) if facet else None
