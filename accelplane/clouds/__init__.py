"""The clouds accelplane deploys to, one folder each, behind one interface (`interface.CloudSupport`).

`cloud_support(cloud)` is the registry: the declaration's `cloud:` value to the cloud's support
object. It is the only place that names a cloud's package, and it imports that package on first use
only, so a stack loads its own cloud and nothing of the others (a GCP stack never imports boto3 or
pulumi-aws). The module names are data here, not imports: this package sits at the bottom of the
layers (docs/design.md) and every layer may ask it for a cloud.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from accelplane.clouds.interface import CloudSupport

# `cloud:` value -> the package whose `SUPPORT` implements `CloudSupport`.
_PACKAGES = {
    "aws": "accelplane.clouds.aws",
    "gcp": "accelplane.clouds.gcp",
}


@cache
def cloud_support(cloud: str) -> CloudSupport:
    """The support object of `cloud` (a `Cloud` member or its value)."""
    name = str(getattr(cloud, "value", cloud))
    package = _PACKAGES.get(name)
    if package is None:
        raise KeyError(f"no cloud {name!r}; known: {', '.join(_PACKAGES)}")
    support: CloudSupport = import_module(package).SUPPORT
    return support
