"""The Gateway API release GKE installs for a cluster version, and whether its standard channel has
HTTPRoute retries: the facts behind refusing `retries` on a GKE endpoint, and a pinned GKE version whose
Gateway API predates the route timeouts every exposed service sets (gateway_api.yaml, sourced)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

from accelplane.clouds.gcp.catalog import gke_version_key

FACTS_FILE = "gateway_api.yaml"


@dataclass(frozen=True)
class ServedGatewayApi:
    gateway_api: str | None  # None: older than every recorded row
    from_gke: str | None
    source: str


@cache
def _facts() -> dict[str, Any]:
    text = resources.files(__package__).joinpath(FACTS_FILE).read_text(encoding="utf-8")
    return yaml.safe_load(text)


def served(gke_version: str) -> ServedGatewayApi:
    """The Gateway API release GKE installs on a cluster of this version (new clusters and upgrades)."""
    facts = _facts()
    for row in facts["served"]:
        if gke_version_key(gke_version) >= gke_version_key(str(row["from"])):
            return ServedGatewayApi(str(row["gateway_api"]), str(row["from"]), facts["source"])
    return ServedGatewayApi(None, None, facts["source"])


def first_gke_serving(gateway_api: str) -> str:
    """The oldest recorded GKE version that installs this Gateway API release or a newer one."""
    wanted = gke_version_key(gateway_api)
    rows = [row for row in _facts()["served"] if gke_version_key(str(row["gateway_api"])) >= wanted]
    return str(min(rows, key=lambda row: gke_version_key(str(row["from"])))["from"])


def httproute_retry_in_standard(gateway_api: str | None) -> bool:
    """Whether the standard channel of this Gateway API release has HTTPRoute's `retry` stanza."""
    since = _facts()["httproute_retry_standard_since"]
    if since is None or gateway_api is None:
        return False
    return gke_version_key(gateway_api) >= gke_version_key(str(since))


def recorded_range() -> str:
    """'1.1.0 to 1.5.0': the oldest and newest release the recorded GKE versions install."""
    releases = sorted((str(row["gateway_api"]) for row in _facts()["served"]), key=gke_version_key)
    return f"{releases[0]} to {releases[-1]}"


def httproute_retry_source() -> str:
    return _facts()["httproute_retry_source"]
