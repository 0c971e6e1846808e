"""End to end in the lab, with ONE stack file as an operator has: its upstream sources (what `bundle
lock` reads on the connected side) plus `air_gap` naming the mirror. Lock it against the upstream,
fetch a signed mirror, stop and delete the upstream, verify the mirror offline, then `site.yml`
(what `accelplane nodes apply` runs) on an H100 lab node that the inventory points at the mirror
only; finally one altered file makes `verify` fail and name it.

The node is an overlay copy of the cached Debian root (tests/support/ansible), reached with the
chroot connection; the mirror is served by `python -m http.server` on 127.0.0.1 from the start (the
directory `fetch` fills), so its URL is known when the stack is written, and the node trusts only
the mirror's signing key. Needs root, like every lab test.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil

import yaml

from accelplane.bundle.sources import air_gap_resources
from accelplane.cli import main
from accelplane.rules.engine import run_rule
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.hygiene.air_gap_sources_in_mirror import RULE
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


def _air_gapped(mirror_url: str):
    """The H100 group only (the node this test starts), air-gapped at `mirror_url`."""

    def edit(platform: dict) -> None:
        platform["bare_metal"]["groups"] = [g for g in platform["bare_metal"]["groups"] if g["name"] == "h100-train"]
        platform["air_gap"] = {"mirror_url": mirror_url, "signed_by": KEYRING_ON_NODE}

    return edit


def test_lock_fetch_verify_then_apply_from_the_mirror_only(tmp_path):
    require_lab()
    require_tools("gpg", "apt-ftparchive")
    lower = rootfs.ensure_rootfs()
    work = tmp_path
    mirror = work / "mirror"
    mirror.mkdir()
    (work / "empty-lab").mkdir()  # nothing of the lab repository is on the node: only the mirror
    node = nodes.start_node("h100-01", work / "nodes", lower, work / "empty-lab", "nvidia")
    upstream = build_upstream(work / "upstream" / "srv")
    try:
        with http_server(mirror) as mirror_url:
            # Connected side: the one stack file, locked against its declared upstream sources.
            with http_server(upstream) as upstream_url:
                (work / "stack").mkdir()
                stack = lab_upstream_stack(work / "stack", upstream_url, name="labmirror",
                                           hosts={"h100-01": node.root}, edit=_air_gapped(mirror_url))
                lock = work / "bundle.lock.json"
                code, _, err = _quiet(["bundle", "lock", "--stack-file", str(stack), "--output", str(lock)])
                assert code == 0, err
                assert not any(mirror_url in a["url"] for a in json.loads(lock.read_text())["artifacts"])
                fingerprint, keyring = make_key(work / "gnupg")
                os.environ["GNUPGHOME"] = str(work / "gnupg")
                try:
                    code, _, err = _quiet(["bundle", "fetch", "--lock", str(lock), "--into", str(mirror),
                                           "--sign-with", fingerprint])
                finally:
                    del os.environ["GNUPGHOME"]
                assert code == 0, err
            shutil.rmtree(upstream)

            # Air-gapped side: verify offline, then apply the same stack file with the mirror as the only source.
            code, out, _ = _quiet(["bundle", "verify", "--lock", str(lock), "--mirror", str(mirror)])
            assert code == 0, out
            # The lab's nccl-tests upstream is a group_vars override (group_vars beat the inventory); in
            # the field it is the role's GitHub default and there is nothing to remove.
            group_vars = work / "stack" / "group_vars" / "all.yml"
            variables = yaml.safe_load(group_vars.read_text())
            del variables["nccl_tests_source_url"]
            group_vars.write_text(yaml.safe_dump(variables, sort_keys=False))
            node.path(KEYRING_ON_NODE).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(keyring, node.path(KEYRING_ON_NODE))
            platform = lab.platform_of(yaml.safe_load(stack.read_text()))
            resources = air_gap_resources(platform, stack="labmirror", project="accelplane")
            # AP-AIR-001: every effective source is the mirror
            assert run_rule(RULE, ReferenceGraph(resources))[0] == []
            result = lab.run("site.yml", stack, work / "apply")
            assert result.rc == 0, lab.failure(result)
        installed = node.installed()
        assert installed["nvidia-driver-cuda"] == ("570.172.08-1", "hi")
        assert installed["libnccl2"] == ("2.27.3-1+cuda12.8", "hi")
        assert installed["libnccl-ofi"][0] == "1.16.3-1"  # from the EFA installer in the mirror
        sources = list(node.path("etc/apt/sources.list.d").glob("*.sources"))
        assert sources and all(mirror_url in path.read_text() for path in sources)
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
