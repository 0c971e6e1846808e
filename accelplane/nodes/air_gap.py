"""Where an air-gapped stack's nodes fetch from: the mirror `accelplane bundle fetch` wrote.

The one place that turns `air_gap` into the sources the roles use, with the mirror layout of
docs/bundle.md (`apt/`, `python/simple/`, `files/<name>-<version>.tar.gz`, `charts/`). The inventory
(`accelplane.nodes.inventory`) takes its apt repositories, Python index, EFA installer URL,
nccl-tests source and Ascend installers' directory from here, and AP-AIR-001's sources
(`accelplane.bundle.sources`) use the same functions, so what the rule judges is what the nodes are
told to fetch (the Ascend installers not yet: `bundle lock` does not fetch them).

A stack declares its upstream sources as any connected stack does (`bare_metal.repositories`,
`bare_metal.python`): `bundle lock` reads those on the connected side. Air-gapped nodes get only the
mirror, which replaces every declared source — so one declaration serves both `bundle lock` and
`nodes apply`.
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
MIRROR_REPOSITORY = "mirror"


def python_index(mirror_url: str) -> str:
    return f"{mirror_url}/python/simple/"


def installer_url(mirror_url: str, file_name: str) -> str:
    return f"{mirror_url}/files/{file_name}"


def chart_repository(mirror_url: str) -> str:
    return f"{mirror_url}/charts"


def apt_repository(air_gap: Mapping[str, Any]) -> dict[str, Any]:
    """The mirror's flat apt repository (`apt/`, suite `./`) as an `accelplane_repositories` entry.

    Signed by `air_gap.signed_by`; a `file:` mirror without one is trusted, the rule AptRepository
    applies to any local repository."""
    mirror_url = air_gap["mirror_url"]
    signed_by = air_gap.get("signed_by")
    return {
        "name": MIRROR_REPOSITORY,
        "uri": f"{mirror_url}/apt",
        "suites": ["./"],
        "components": [],
        "signed_by": signed_by,
        "trusted": signed_by is None and str(mirror_url).startswith("file:"),
    }


def mirror_url_of(platform: Mapping[str, Any]) -> str | None:
    """`air_gap.mirror_url` of a plain declaration (any revision's), or None when not air-gapped."""
    air_gap = platform.get("air_gap")
    url = air_gap.get("mirror_url") if isinstance(air_gap, Mapping) else None
    return url if isinstance(url, str) else None


def node_sources(air_gap: Mapping[str, Any] | None, python: Mapping[str, Any]) -> dict[str, Any]:
    """Inventory variables for the artifact sources of a host group.

    `air_gap` is the declaration's `air_gap` (None when not air-gapped) and `python` its
    `bare_metal.python` (index_url, find_links, efa_installer_url). Air-gapped, the result holds the
    mirror's apt repository (`accelplane_repositories`, replacing the declared ones), its Python
    index (no find_links: a node directory is not what `bundle fetch` filled), its EFA installer,
    the nccl_tests role's source URL (the role default is GitHub's) and the directory of the
    ascend_npu role's installers (the role default is Huawei's download site); otherwise the
    declared Python sources with the public EFA default."""
    mirror_url = air_gap.get("mirror_url") if air_gap is not None else None
    if not isinstance(mirror_url, str) or air_gap is None:
        efa = python.get("efa_installer_url") or DEFAULT_EFA_INSTALLER_URL
        return {"accelplane_python": {"index_url": python.get("index_url"), "find_links": python.get("find_links"),
                                      "efa_installer_url": efa}}
    return {
        "accelplane_repositories": [apt_repository(air_gap)],
        "accelplane_python": {
            "index_url": python_index(mirror_url),
            "find_links": None,
            "efa_installer_url": installer_url(mirror_url, EFA_INSTALLER_FILE),
        },
        "nccl_tests_source_url": installer_url(mirror_url, NCCL_TESTS_FILE),
        # roles/ascend_npu: Huawei's .run installers under their own file names in files/.
        "ascend_npu_base_url": installer_url(mirror_url, "").rstrip("/"),
    }
