"""What a load balancer listener does with a request, read from its `protocol` and `defaultActions`.

Shared by AP-LB-002 (plain HTTP only redirects), AP-NET-001 (which listener ports may be open to
the internet) and the client-authentication rules AP-LB-020 and AP-LB-021 (an action list authenticates
when an authenticating action comes before its forward, in the actions' `order`; mutual TLS is the
listener's `mutualAuthentication.mode`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelplane.rules.view import Resource, as_list, as_str, get

# Listener actions that authenticate the client before the next action runs (botocore elbv2 ActionTypeEnum).
AUTHENTICATING_ACTIONS = frozenset({"jwt-validation", "authenticate-oidc", "authenticate-cognito"})


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


def mutual_tls_mode(listener: Resource) -> str:
    """off, passthrough or verify (`off` when the listener has no mutual authentication)."""
    return as_str(get(listener.get("mutualAuthentication") or {}, "mode")).lower() or "off"


def forwards_unauthenticated(actions: Any) -> bool:
    """Whether some forward in `actions` runs with no authenticating action before it."""
    listed = [action for action in as_list(actions) if isinstance(action, Mapping)]
    ranked = sorted(enumerate(listed), key=lambda pair: (_order(pair[1], pair[0]), pair[0]))
    authenticated = False
    for _, action in ranked:
        kind = as_str(action.get("type"))
        if kind in AUTHENTICATING_ACTIONS:
            authenticated = True
        elif kind == "forward" and not authenticated:
            return True
    return False


def _order(action: Mapping[str, Any], position: int) -> int:
    order = action.get("order")
    return order if isinstance(order, int) else position + 1
