"""The Google Cloud reads preflight makes: one `GcpReadError` per failed call (named permission,
disabled API, throttled past the retries), which the caller reports as unknown, never as fit."""

from __future__ import annotations

from typing import Any

from accelplane.clouds.gcp.clients import GcpClients, GcpReadError

NOT_FOUND = frozenset({"NOT_FOUND", "HTTP 404", "notFound"})


def why(error: GcpReadError) -> str:
    if error.code in ("RATE_LIMIT_EXCEEDED", "RESOURCE_EXHAUSTED", "HTTP 429"):
        return f"{error.operation} was throttled past its retries: rerun later"
    return f"{error.operation}: {error.code}: {error.message} (docs/gcp/preflight-role.yaml)"


def get(clients: GcpClients, request: Any) -> dict | None:
    """The resource, or None when the API answers that it does not exist."""
    try:
        return clients.read(request)
    except GcpReadError as error:
        if error.code in NOT_FOUND:
            return None
        raise
