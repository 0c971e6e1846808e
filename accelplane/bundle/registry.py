"""The little of the OCI distribution API a lock needs: a manifest's digest and size for a tag or a
digest (anonymous bearer tokens, as public registries hand out). Loopback registries are spoken to
over plain HTTP, as Docker and skopeo do for them by default."""

from __future__ import annotations

import hashlib
import json
import re
import urllib.error
import urllib.parse
import urllib.request

from accelplane.bundle import net
from accelplane.errors import InputError
from accelplane.oci_reference import Reference

ACCEPT = ", ".join(
    (
        "application/vnd.oci.image.index.v1+json",
        "application/vnd.oci.image.manifest.v1+json",
        "application/vnd.docker.distribution.manifest.list.v2+json",
        "application/vnd.docker.distribution.manifest.v2+json",
    )
)
def _token(challenge: str) -> str | None:
    fields = dict(re.findall(r'(\w+)="([^"]*)"', challenge))
    if not challenge.lower().startswith("bearer") or "realm" not in fields:
        return None
    query = urllib.parse.urlencode({k: v for k, v in fields.items() if k in ("service", "scope")})
    body, _ = net.read(f"{fields['realm']}?{query}")
    data = json.loads(body)
    return data.get("token") or data.get("access_token")


def manifest(reference: Reference) -> tuple[str, int, str]:
    """(digest, size, media type) of the manifest `reference` names; a digest it names must match."""
    scheme = "http" if reference.insecure else "https"
    target = reference.digest or reference.tag or "latest"
    url = f"{scheme}://{reference.registry}/v2/{reference.repository}/manifests/{target}"
    headers = {"Accept": ACCEPT}
    for _attempt in range(2):
        request = urllib.request.Request(url, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=net.TIMEOUT_S) as response:
                body = response.read(16 * 1024 * 1024)
                media_type = json.loads(body).get("mediaType") or response.headers.get("Content-Type", "")
                digest = "sha256:" + hashlib.sha256(body).hexdigest()
                if reference.digest and digest != reference.digest:
                    raise InputError.single(f"{reference.name}: the registry served {digest} for {reference.digest}")
                return digest, len(body), media_type
        except urllib.error.HTTPError as error:
            challenge = error.headers.get("WWW-Authenticate", "")
            if error.code == 401 and "Authorization" not in headers and (token := _token(challenge)):
                headers["Authorization"] = f"Bearer {token}"
                continue
            raise InputError.single(f"{reference.name}:{target}: the registry answered {error.code}") from None
        except (urllib.error.URLError, OSError) as error:
            raise InputError.single(f"cannot reach {reference.registry}: {getattr(error, 'reason', error)}") from None
    raise InputError.single(f"{reference.name}:{target}: the registry refused anonymous access")
