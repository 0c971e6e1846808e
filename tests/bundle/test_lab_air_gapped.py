"""End to end in the lab: lock the lab stack against its upstream sources, fetch a signed mirror,
stop the upstream, verify the mirror offline, then `site.yml` (what `accelplane nodes apply` runs)
on an H100 lab node whose every source is the mirror; finally one altered file makes `verify`
fail and name it.

The node is an overlay copy of the cached Debian root (tests/support/ansible), reached with the
chroot connection; the mirror is served by `python -m http.server` on 127.0.0.1 and the node trusts
only the mirror's signing key. Needs root, like every lab test.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
from pathlib import Path

import yaml

from accelplane.bundle.sources import air_gap_resources
from accelplane.cli import main
from accelplane.rules.engine import run_rule
from accelplane.rules.graph import Graph
from accelplane.rules.hygiene.air_gap_sources import RULE
from tests.support.ansible import lab, nodes, rootfs
from tests.support.ansible.prereqs import require_lab, require_tools
from tests.support.mirror.gpg import make_key
from tests.support.mirror.servers import http_server
from tests.support.mirror.upstream import KEYRING_ON_NODE, build_upstream, lab_upstream_stack


def _quiet(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _mirror_stack(directory: Path, mirror_url: str, node_root: Path) -> Path:
    """The lab stack's H100 group with every source at the mirror, declared once under air_gap."""
    stack = lab.write_stack(directory, {"h100-train": [("h100-01", node_root)]}, name="labmirror")
    document = yaml.safe_load(stack.read_text())
    platform = lab.platform_of(document)
    for profile in platform["software_profiles"].values():
        profile["kernel"] = os.uname().release
    platform["air_gap"] = {"mirror_url": mirror_url}
    platform["bare_metal"]["repositories"] = [
        {"name": "mirror", "uri": f"{mirror_url}/apt", "suites": ["./"], "signed_by": KEYRING_ON_NODE}
    ]
    # The Python index (PEP 503, python/simple/), the EFA installer and the nccl-tests source are not
    # declared: the inventory derives them from air_gap.mirror_url (accelplane.nodes.air_gap).
    platform["bare_metal"].pop("python", None)
    stack.write_text(yaml.safe_dump(document, sort_keys=False))
    group_vars = yaml.safe_load((directory / "group_vars" / "all.yml").read_text())
    del group_vars["nccl_tests_source_url"]  # the lab's file: URL; the mirror's comes from the inventory
    (directory / "group_vars" / "all.yml").write_text(yaml.safe_dump(group_vars, sort_keys=False))
    return stack


def test_lock_fetch_verify_then_apply_from_the_mirror_only(tmp_path):
    require_lab()
    require_tools("gpg", "apt-ftparchive")
    lower = rootfs.ensure_rootfs()
    work = tmp_path

    # Connected side: lock against the upstream and fetch the mirror; then the upstream goes away.
    upstream = build_upstream(work / "upstream" / "srv")
    with http_server(upstream) as upstream_url:
        (work / "lock").mkdir()
        stack = lab_upstream_stack(work / "lock", upstream_url)
        lock = work / "bundle.lock.json"
        code, _, err = _quiet(["bundle", "lock", "--stack-file", str(stack), "--output", str(lock)])
        assert code == 0, err
        fingerprint, keyring = make_key(work / "gnupg")
        os.environ["GNUPGHOME"] = str(work / "gnupg")
        try:
            code, _, err = _quiet(["bundle", "fetch", "--lock", str(lock), "--into", str(work / "mirror"),
                                   "--sign-with", fingerprint])
        finally:
            del os.environ["GNUPGHOME"]
        assert code == 0, err
    shutil.rmtree(upstream)

    # Air-gapped side: verify offline, then apply with the mirror as the only source.
    mirror = work / "mirror"
    code, out, _ = _quiet(["bundle", "verify", "--lock", str(lock), "--mirror", str(mirror)])
    assert code == 0, out
    (work / "empty-lab").mkdir()  # nothing of the lab repository is on the node: only the mirror
    node = nodes.start_node("h100-01", work / "nodes", lower, work / "empty-lab", "nvidia")
    try:
        node.path(KEYRING_ON_NODE).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(keyring, node.path(KEYRING_ON_NODE))
        with http_server(mirror) as mirror_url:
            (work / "apply").mkdir()
            mirror_stack = _mirror_stack(work / "apply", mirror_url, node.root)
            platform = lab.platform_of(yaml.safe_load(mirror_stack.read_text()))
            resources = air_gap_resources(platform, stack="labmirror", project="accelplane")
            assert run_rule(RULE, Graph(resources))[0] == []  # AP-AIR-001: every source is the mirror
            result = lab.run("site.yml", mirror_stack, work / "apply")
            assert result.rc == 0, lab.failure(result)
        installed = node.installed()
        assert installed["nvidia-driver-cuda"] == ("570.172.08-1", "hi")
        assert installed["libnccl2"] == ("2.27.3-1+cuda12.8", "hi")
        assert installed["libnccl-ofi"][0] == "1.16.3-1"  # from the EFA installer in the mirror
        sources = node.path("etc/apt/sources.list.d").glob("*.sources")
        assert all(mirror_url in path.read_text() for path in sources)
        torch = node.run("/opt/accelplane/venv/bin/python", "-c", "import torch; print(torch.__version__)")
        assert torch.stdout.strip() == "2.8.0+cu128"
    finally:
        nodes.stop_node(node)

    # One altered file: verify fails and names it.
    tarball = mirror / "files" / "aws-efa-installer-1.43.2.tar.gz"
    tarball.write_bytes(tarball.read_bytes() + b"\0")
    code, out, _ = _quiet(["bundle", "verify", "--lock", str(lock), "--mirror", str(mirror)])
    assert code == 1
    problems = [line for line in out.splitlines() if line.startswith(("altered", "missing"))]
    assert len(problems) == 1 and problems[0].startswith(
        "altered: installer aws-efa-installer 1.43.2: files/aws-efa-installer-1.43.2.tar.gz has sha256"
    ), out
    count = len(json.loads(lock.read_text())["artifacts"])
    assert f"{count - 1} of {count} artifacts present and intact" in out
