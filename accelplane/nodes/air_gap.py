"""Where an air-gapped stack's nodes fetch from: the mirror `accelplane bundle fetch` wrote.

The one place that turns `air_gap.mirror_url` into the URLs the roles use, with the mirror layout of
docs/bundle.md (`apt/`, `python/simple/`, `files/<name>-<version>.tar.gz`, `charts/`). The inventory
(`accelplane.nodes.inventory`) takes its Python index, EFA installer URL and nccl-tests source from
here, and AP-AIR-001's sources (`accelplane.bundle.sources`) use the same functions, so what the rule
judges is what the nodes are told to fetch.

Only what the declaration leaves unset is derived: a declared repository, index or installer URL is
used as written, so one pointing elsewhere reaches the nodes unchanged and stays an AP-AIR-001
finding rather than being silently replaced.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# File names `bundle lock` gives the installers in `files/` (accelplane.bundle.locker._installer:
# the tarball's own name, GitHub archives as <repository>-<version>).
EFA_INSTALLER_FILE = "aws-efa-installer-{version}.tar.gz"
NCCL_TESTS_FILE = "nccl-tests-{version}.tar.gz"
# roles/comms_stack's default, for a stack that is not air-gapped.
DEFAULT_EFA_INSTALLER_URL = "https://efa-installer.amazonaws.com/aws-efa-installer-{version}.tar.gz"


def python_index(mirror_url: str) -> str:
    return f"{mirror_url}/python/simple/"


def installer_url(mirror_url: str, file_name: str) -> str:
    return f"{mirror_url}/files/{file_name}"


def chart_repository(mirror_url: str) -> str:
    return f"{mirror_url}/charts"


def mirror_url_of(platform: Mapping[str, Any]) -> str | None:
    """`air_gap.mirror_url` of a plain declaration (any revision's), or None when not air-gapped."""
    air_gap = platform.get("air_gap")
    url = air_gap.get("mirror_url") if isinstance(air_gap, Mapping) else None
    return url if isinstance(url, str) else None


def node_sources(mirror_url: str | None, python: Mapping[str, Any]) -> dict[str, Any]:
    """Inventory variables for the artifact sources of a host group.

    `python` is the declaration's `bare_metal.python` (index_url, find_links, efa_installer_url);
    the result holds `accelplane_python` and, air-gapped, the nccl_tests role's source URL (the role
    default is GitHub's)."""
    index_url, find_links = python.get("index_url"), python.get("find_links")
    efa = python.get("efa_installer_url")
    if mirror_url is None:
        return {"accelplane_python": {"index_url": index_url, "find_links": find_links,
                                      "efa_installer_url": efa or DEFAULT_EFA_INSTALLER_URL}}
    if index_url is None and find_links is None:
        index_url = python_index(mirror_url)
    return {
        "accelplane_python": {
            "index_url": index_url,
            "find_links": find_links,
            "efa_installer_url": efa or installer_url(mirror_url, EFA_INSTALLER_FILE),
        },
        "nccl_tests_source_url": installer_url(mirror_url, NCCL_TESTS_FILE),
    }
