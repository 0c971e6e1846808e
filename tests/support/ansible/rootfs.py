"""The Debian root every lab node starts from: debootstrap'd once, cached as a tarball.

The cache lives in /var/cache/accelplane-test (ACCELPLANE_TEST_CACHE overrides): the tarball
survives `git clean`, and the unpacked root next to it is the read-only lower layer of every node's
overlay. Building it needs debootstrap and a Debian mirror (ACCELPLANE_TEST_MIRROR, default
deb.debian.org); later runs need neither. The root's own apt sources are removed: nodes install
only from the lab repository, as an air-gapped fleet would from its mirror.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

SUITE = "bookworm"
# Bump when the package list or the post-processing changes: a new cache is built beside the old.
REVISION = 1
PACKAGES = (
    "python3",  # Ansible modules run on the node's Python
    "python3-apt",  # ansible.builtin.apt
    "python3-venv",  # the framework environment
    "python3-packaging",  # ansible.builtin.pip
    "systemd",  # systemctl enable works in a chroot; units are installed, never started
    "initramfs-tools",  # update-initramfs after nouveau is blacklisted
    "openssh-server",  # the node reached over SSH in a network namespace
    "procps",
)


def cache_dir() -> Path:
    return Path(os.environ.get("ACCELPLANE_TEST_CACHE", "/var/cache/accelplane-test"))


def _name() -> str:
    return f"debian-{SUITE}-r{REVISION}"


def tarball() -> Path:
    return cache_dir() / f"{_name()}.tar.zst"


def ensure_rootfs() -> Path:
    """The unpacked root (read-only lower layer); built or unpacked on first use, under a lock."""
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    root = cache / _name()
    with open(cache / f"{_name()}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (root / ".complete").exists():
            return root
        if not tarball().exists():
            _build_tarball()
        if root.exists():
            shutil.rmtree(root)
        root.mkdir()
        subprocess.run(["tar", "--zstd", "-xpf", str(tarball()), "-C", str(root)], check=True)
        (root / ".complete").touch()
    return root


def _build_tarball() -> None:
    debootstrap = shutil.which("debootstrap")
    if debootstrap is None:
        raise RuntimeError("debootstrap is not installed (tests/support/ansible/install_prereqs.sh installs it)")
    mirror = os.environ.get("ACCELPLANE_TEST_MIRROR", "http://deb.debian.org/debian")
    with tempfile.TemporaryDirectory(dir=cache_dir()) as scratch:
        root = Path(scratch) / "root"
        result = subprocess.run(
            [debootstrap, "--variant=minbase", f"--include={','.join(PACKAGES)}", SUITE, str(root), mirror],
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            raise RuntimeError(f"debootstrap failed: {result.stdout[-2000:]}{result.stderr[-2000:]}")
        # Only the lab repository: nothing reaches a mirror once the node exists.
        (root / "etc/apt/sources.list").unlink(missing_ok=True)
        for path in (root / "var/lib/apt/lists").glob("*"):
            if path.is_file():
                path.unlink()
        for path in (root / "var/cache/apt/archives").glob("*.deb"):
            path.unlink()
        partial = tarball().with_suffix(".partial")
        subprocess.run(["tar", "--zstd", "-cpf", str(partial), "-C", str(root), "."], check=True)
        partial.rename(tarball())


if __name__ == "__main__":
    # .ci/run builds the root here while the suite starts; the lab tests wait for it on the lock
    # (standard library only: it runs on the system Python, whatever .venv holds).
    print(ensure_rootfs())
