"""Prerequisites of the lab tests: skip for a developer without them, fail in CI (CI=true)."""

from __future__ import annotations

import os
import shutil

from tests.support.ansible import rootfs
from tests.support.prerequisites import missing


def require_lab() -> None:
    """Root, and the tools that build and mount lab nodes."""
    if os.geteuid() != 0:
        missing("lab nodes need root (overlay mounts, chroot)")
    if not rootfs.tarball().exists() and shutil.which("debootstrap") is None:
        missing("debootstrap is not installed (run tests/support/ansible/install_prereqs.sh)")
    for tool in ("mount", "chroot", "dpkg-deb", "zstd"):
        if shutil.which(tool) is None:
            missing(f"{tool} is not installed (run tests/support/ansible/install_prereqs.sh)")


def require_tools(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            missing(f"{tool} is not installed (run tests/support/ansible/install_prereqs.sh)")
