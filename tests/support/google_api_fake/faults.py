"""The failures a Google API answers with, in its own error format (google.rpc.Status with an
ErrorInfo detail, plus the legacy `errors` list Compute still sends), for the fake to answer a
chosen method with."""

from __future__ import annotations

import json
from dataclasses import dataclass

HTML_ERROR_PAGE = (
    "<!DOCTYPE html>\n<html lang=en><meta charset=utf-8><title>Error 500 (Server Error)!!1</title>"
    "<p><b>500.</b> <ins>That's an error.</ins><p>There was an error. Please try again later.</html>\n"
)


@dataclass
class Fault:
    """`kind`: denied (403, the permission named), disabled (403, the API not enabled), rate_limited
    (429), unavailable (503), html (500 with an HTML page), cut (the connection closed without an
    answer); and 200 answers that are not the method's: truncated (the real answer's JSON cut in
    half, as a connection that drops mid-body leaves it), text (a plain-text body), array (a JSON
    array), empty (an empty JSON object). `times`: how many calls it answers before the method works
    again; None for all of them."""

    kind: str
    permission: str = ""
    times: int | None = None

    def take(self) -> bool:
        if self.times is None:
            return True
        if self.times <= 0:
            return False
        self.times -= 1
        return True


def body(fault: Fault, *, api: str, project: str, resource: str) -> tuple[int, str, bytes]:
    """The status, content type and body of a fault's answer."""
    if fault.kind == "html":
        return 500, "text/html; charset=UTF-8", HTML_ERROR_PAGE.encode()
    service = f"{api}.googleapis.com"
    if fault.kind == "denied":
        code, status, reason = 403, "PERMISSION_DENIED", "IAM_PERMISSION_DENIED"
        message = f"Permission '{fault.permission}' denied on resource '{resource}' (or it may not exist)."
        metadata = {"permission": fault.permission, "resource": resource}
        domain = "iam.googleapis.com"
    elif fault.kind == "disabled":
        code, status, reason = 403, "PERMISSION_DENIED", "SERVICE_DISABLED"
        url = f"https://console.developers.google.com/apis/api/{service}/overview?project={project}"
        message = (
            f"{service} API has not been used in project {project} before or it is disabled. "
            f"Enable it by visiting {url} then retry."
        )
        metadata = {"service": service, "consumer": f"projects/{project}", "activationUrl": url}
        domain = "googleapis.com"
    elif fault.kind == "rate_limited":
        code, status, reason = 429, "RESOURCE_EXHAUSTED", "RATE_LIMIT_EXCEEDED"
        message = f"Quota exceeded for quota metric 'Read requests' of service '{service}' for consumer 'project'."
        metadata = {"service": service, "quota_metric": f"{service}/read_requests"}
        domain = "googleapis.com"
    elif fault.kind == "unavailable":
        code, status, reason = 503, "UNAVAILABLE", "SERVICE_UNAVAILABLE"
        message = "The service is currently unavailable."
        metadata = {"service": service}
        domain = "googleapis.com"
    elif fault.kind == "text":
        return 200, "text/plain; charset=UTF-8", b"OK\n"
    elif fault.kind == "array":
        return 200, "application/json; charset=UTF-8", b"[]"
    elif fault.kind == "empty":
        return 200, "application/json; charset=UTF-8", b"{}"
    else:
        raise ValueError(f"unknown fault kind {fault.kind!r}")
    payload = {
        "error": {
            "code": code,
            "message": message,
            "status": status,
            "errors": [
                {"message": message, "domain": "global", "reason": "forbidden" if code == 403 else "rateLimitExceeded"}
            ],
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": reason,
                    "domain": domain,
                    "metadata": metadata,
                }
            ],
        }
    }
    return code, "application/json; charset=UTF-8", json.dumps(payload).encode()


def truncated(answer: tuple[int, str, bytes]) -> tuple[int, str, bytes]:
    """The real answer with its body cut in half (a 200 whose JSON ends mid-way)."""
    code, content_type, payload = answer
    return code, content_type, payload[: len(payload) // 2]


def status(code: int, message: str) -> tuple[int, str, bytes]:
    """An ordinary error (404, 409, 400 ...) in the same format."""
    names = {
        400: "INVALID_ARGUMENT",
        404: "NOT_FOUND",
        409: "ALREADY_EXISTS",
        412: "FAILED_PRECONDITION",
        501: "UNIMPLEMENTED",
    }
    payload = {"error": {"code": code, "message": message, "status": names.get(code, "UNKNOWN")}}
    return code, "application/json; charset=UTF-8", json.dumps(payload).encode()
