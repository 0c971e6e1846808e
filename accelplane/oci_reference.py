"""An OCI image reference, `registry/repository[:tag][@sha256:…]`, parsed (no network, no registry).

The Kubernetes layer rewrites references to an air-gapped mirror with it and the bundle lock
resolves them to digests; neither owns the other, so the parser stands alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accelplane.errors import InputError

_REFERENCE = re.compile(
    r"^(?P<registry>[a-z0-9.-]+(:[0-9]+)?)/(?P<repository>[a-z0-9._/-]+)(:(?P<tag>[\w.-]+))?(@(?P<digest>sha256:[0-9a-f]{64}))?$"
)


@dataclass(frozen=True)
class Reference:
    registry: str
    repository: str
    tag: str | None
    digest: str | None

    @property
    def name(self) -> str:
        return f"{self.registry}/{self.repository}"

    @property
    def insecure(self) -> bool:
        """A loopback registry, spoken to over plain HTTP as Docker and skopeo do by default."""
        host = self.registry.split(":")[0]
        return host in ("localhost", "127.0.0.1") or host.startswith("127.")


def parse_reference(text: str) -> Reference:
    match = _REFERENCE.match(text.removeprefix("oci://"))
    if match is None:
        raise InputError.single(f"{text!r} is not an image reference (registry/repository[:tag][@sha256:...])")
    return Reference(match["registry"], match["repository"], match["tag"], match["digest"])
