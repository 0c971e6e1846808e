"""What is wrong with a URL a user gave as an option, in one bounded sentence; None when usable.

One checker for every URL option (an API endpoint, Prometheus, the URL to probe), so each refuses
the same things the same way: spaces, a port out of range, a scheme it cannot use, no host, and,
where the URL names a server rather than a page, credentials, a query or a fragment.
"""

from __future__ import annotations

from urllib.parse import urlsplit


def url_problem(
    url: str,
    expected: str,
    *,
    schemes: tuple[str, ...] = ("http", "https"),
    scheme_hint: str = "",
    server_only: bool = False,
    credentials_hint: str = "",
) -> str | None:
    """`expected` opens every message ("expected an https:// URL …"); `server_only` refuses
    user:password@, ?query and #fragment (`credentials_hint` says where credentials go instead)."""
    if not url or url != url.strip() or any(c.isspace() for c in url):
        return f"{expected} (got {url!r}: empty or contains spaces)"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:  # "Port out of range 0-65535", an unclosed [IPv6 address, ...
        return f"{expected} (got {url!r}: {error})"
    if parts.scheme.lower() not in schemes:
        why = scheme_hint or (
            f"scheme {parts.scheme!r} is not {' or '.join(schemes)}" if parts.scheme
            else f"no {' or '.join(s + '://' for s in schemes)}"
        )
        return f"{expected} (got {url!r}: {why})"
    if not parts.hostname:
        return f"{expected} (got {url!r}: no host)"
    if port is not None and not 1 <= port <= 65535:
        return f"{expected} (got {url!r}: port {port} is not in 1-65535)"
    if server_only and (parts.username is not None or parts.password is not None):
        return f"{expected} (got a URL with user:password@{': ' + credentials_hint if credentials_hint else ''})"
    if server_only and (parts.query or parts.fragment):
        return f"{expected} (got {url!r}: no ?query or #fragment belongs in it)"
    return None
