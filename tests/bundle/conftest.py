"""Fixtures of the bundle tests: the lab's sources built once per session (dpkg-deb, zip, tar) and
served by `python -m http.server` on 127.0.0.1, and the lab stack pointed at them.

dpkg-deb comes with dpkg; gpg, apt-ftparchive, skopeo and docker-registry come from
tests/support/ansible/install_prereqs.sh (`make test` runs it as root). Without them the tests
that need them skip, except in CI (CI=true), where they fail.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.support.ansible.prereqs import require_tools  # noqa: E402
from tests.support.mirror.servers import http_server  # noqa: E402
from tests.support.mirror.upstream import build_upstream  # noqa: E402


class Upstream:
    def __init__(self, root: Path, url: str):
        self.root = root
        self.url = url


@pytest.fixture(scope="session")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Upstream]:
    require_tools("dpkg-deb")
    root = build_upstream(tmp_path_factory.mktemp("upstream") / "srv")
    with http_server(root) as url:
        yield Upstream(root, url)


@pytest.fixture(scope="session")
def locked(upstream: Upstream, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`bundle lock` of the lab stack against the upstream: the lock file."""
    from accelplane.cli import main
    from tests.support.mirror.upstream import lab_upstream_stack

    work = tmp_path_factory.mktemp("locked")
    stack = lab_upstream_stack(work, upstream.url)
    lock = work / "bundle.lock.json"
    assert main(["bundle", "lock", "--stack-file", str(stack), "--output", str(lock)]) == 0
    return lock


class Mirrored:
    """The lab stack plus a chart and an image, locked, fetched into a signed mirror."""

    def __init__(self, work: Path, lock: Path, mirror: Path, keyring: Path, image: str, fetch_log: str):
        self.work, self.lock, self.mirror, self.keyring, self.image = work, lock, mirror, keyring, image
        self.fetch_log = fetch_log


@pytest.fixture(scope="session")
def mirrored(upstream: Upstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mirrored]:
    """Lock (with the chart from the upstream's chart repository and an image from a real registry on
    loopback), then `bundle fetch` into a mirror signed with a throw-away key."""
    import contextlib
    import io
    import os

    from accelplane.bundle.locker import Sources, lock_stack
    from accelplane.cli import main
    from accelplane.config.loader import load_stack_file
    from tests.support.mirror.gpg import make_key
    from tests.support.mirror.oci import build_layout
    from tests.support.mirror.servers import registry, skopeo
    from tests.support.mirror.upstream import add_training_pool, lab_upstream_stack

    require_tools("gpg", "apt-ftparchive", "skopeo", "docker-registry")
    work = tmp_path_factory.mktemp("mirrored")
    digest = build_layout(work / "layout", "v1", {"monitor.sh": "#!/bin/sh\necho ok\n"})
    with registry(work) as host:
        skopeo(
            "copy", "--quiet", "--dest-tls-verify=false", f"oci:{work / 'layout'}:v1", f"docker://{host}/lab/monitor:v1"
        )
        image = f"{host}/lab/monitor@{digest}"

        def edit(platform):
            platform["software_profiles"]["h100-r570"]["nvidia_device_plugin"] = "0.17.4"
            platform["software_profiles"]["h100-r570"]["neuron_monitor_image"] = image
            add_training_pool(platform)

        stack = lab_upstream_stack(work, upstream.url, edit=edit)
        lock = lock_stack(load_stack_file(stack), sources=Sources({"nvidia_device_plugin": f"{upstream.url}/charts"}))
        lock_file = work / "bundle.lock.json"
        lock.write(lock_file)
        fingerprint, keyring = make_key(work / "gnupg")
        os.environ["GNUPGHOME"] = str(work / "gnupg")
        log = io.StringIO()
        try:
            with contextlib.redirect_stderr(log):
                code = main(
                    [
                        "bundle",
                        "fetch",
                        "--lock",
                        str(lock_file),
                        "--into",
                        str(work / "mirror"),
                        "--sign-with",
                        fingerprint,
                    ]
                )
        finally:
            del os.environ["GNUPGHOME"]
        assert code == 0, log.getvalue()
        # The registry stays up for the tests that fetch again.
        yield Mirrored(work, lock_file, work / "mirror", keyring, image, log.getvalue())
