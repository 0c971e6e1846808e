"""What a load balancer listener does with a request, read from its `protocol` and `defaultActions`.

Shared by AP-LB-002 (plain HTTP only redirects) and AP-NET-001 (which listener ports may be open to
the internet).
"""

from __future__ import annotations

from accelplane.rules.view import Resource, as_list, as_str, get


def protocol(listener: Resource) -> str:
    return as_str(listener.get("protocol")).upper()


def redirect_problems(listener: Resource) -> list[str]:
    """Why a plain-HTTP listener does more than redirect every request to HTTPS (empty: it only redirects)."""
    actions = as_list(listener.get("defaultActions"))
    if not actions:
        return ["HTTP listener has no default action"]
    problems = []
    for action in actions:
        kind = as_str(get(action, "type")) or "unknown action"
        if kind != "redirect":
            problems.append(f"HTTP listener serves traffic ({kind}) instead of redirecting to HTTPS")
        elif as_str(get(action, "redirect", "protocol")).upper() != "HTTPS":
            problems.append("HTTP listener redirects, but not to HTTPS")
    return problems


def only_redirects_to_https(listener: Resource) -> bool:
    return protocol(listener) == "HTTP" and not redirect_problems(listener)
