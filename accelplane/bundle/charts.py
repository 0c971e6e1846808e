"""Helm charts of the Kubernetes layer: which charts a stack installs (the chart keys of
`accelplane.k8s.helm_chart.CHARTS` set in the profiles its pools and add-ons use) and, from the
chart repository's `index.yaml`, the digest and URL of the pinned version."""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass

import yaml

from accelplane.bundle import net
from accelplane.bundle.lockfile import ArtifactError
from accelplane.declaration import Platform
from accelplane.errors import InputError
from accelplane.k8s.helm_chart import CHARTS

# A chart version is exact SemVer 2; a range or wildcard (`^1.2`, `~1`, `1.x`, `>=1`) floats.
_EXACT = re.compile(r"^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")


@dataclass(frozen=True)
class ChartNeed:
    key: str  # the profile field, e.g. nvidia_device_plugin
    version: str
    needed_by: str


def chart_needs(platform: Platform) -> list[ChartNeed]:
    profiles: dict[str, str] = {}
    for pool in platform.node_pools:
        if pool.software_profile:
            profiles.setdefault(pool.software_profile, f"node_pools.{pool.name}")
    if platform.kubernetes is not None:
        profiles.setdefault(platform.kubernetes.addons_profile, "kubernetes.addons_profile")
    needs = []
    for profile_name, user in profiles.items():
        profile = platform.software_profiles.get(profile_name)
        if profile is None:
            continue
        for key in CHARTS:
            version = getattr(profile, key, None)
            if version is None:
                continue
            where = f"software_profiles.{profile_name}.{key}"
            if not _EXACT.match(version):
                raise InputError.single(f"{version!r} is a floating chart version; pin an exact version", field=where)
            needs.append(ChartNeed(key, version, f"{user} ({where})"))
    return needs


def lookup(key: str, version: str, repository: str | None = None) -> tuple[str, str, str, dict[str, object]]:
    """(name, url, sha256 digest, index entry) of a chart at `version` in its repository's index
    (`repository` replaces the chart's own, e.g. for a staging copy)."""
    source = CHARTS[key]
    repository = repository or source.repository
    if repository is None:
        raise ValueError("OCI chart")  # callers ask the registry instead
    index_url = repository.rstrip("/") + "/index.yaml"
    body, _ = net.read(index_url)
    try:
        index = yaml.safe_load(body)
    except yaml.YAMLError as error:
        raise ArtifactError(f"{index_url}: not YAML ({error})") from None
    entries = (index or {}).get("entries", {}).get(source.chart) or []
    for entry in entries:
        if str(entry.get("version")) == version:
            urls = entry.get("urls") or []
            digest = entry.get("digest")
            if not urls or not isinstance(digest, str) or not re.match(r"^[0-9a-f]{64}$", digest):
                raise ArtifactError(f"{index_url}: {source.chart} {version} has no URL or sha256 digest")
            url = urllib.parse.urljoin(repository.rstrip("/") + "/", urls[0])
            keep = {k: v for k, v in entry.items() if k not in ("urls", "digest", "created")}
            return source.chart, url, digest, keep
    raise ArtifactError(f"{source.chart} {version} is not in {index_url}")
