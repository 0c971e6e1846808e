"""Refusals that say why and leave nothing behind: a repository the node cannot read (apt's own
error in the summary, the probe's scratch directory removed) and a minimal OS image without the
tools the roles call (named before anything is written)."""

from __future__ import annotations

import shutil

import yaml

from tests.ansible.test_nodes_apply import tree_digest
from tests.support.ansible import lab


def test_repository_typo_says_apt_error_and_leaves_no_scratch_directory(make_node, tmp_path):
    node = make_node("h100-01")
    before = tree_digest(node.upper)
    stack = lab.write_stack(tmp_path, {"h100-train": [("h100-01", node.root)]})
    document = yaml.safe_load(stack.read_text())
    lab.platform_of(document)["bare_metal"]["repositories"][0]["uri"] = "file:/srv/vendr/apt"
    stack.write_text(yaml.safe_dump(document, sort_keys=False))
    result = lab.run("site.yml", stack, tmp_path)
    assert result.rc != 0
    summary = result.view.summary()
    message = next(line for line in summary.splitlines() if line.startswith("h100-01: "))
    assert "Failed to fetch file:/srv/vendr/apt" in message, summary
    assert "nothing was changed" in message, summary
    assert "non-zero return code" not in summary
    assert list(node.path("tmp").glob("*accelplane-probe")) == []
    assert tree_digest(node.upper) == before


def test_minimal_image_without_kmod_initramfs_or_systemctl_is_refused_naming_them(make_node, tmp_path):
    node = make_node("h100-01")
    shutil.rmtree(node.path("etc/modprobe.d"))
    for tool in ("usr/sbin/update-initramfs", "usr/bin/systemctl"):
        node.path(tool).unlink()
    before = tree_digest(node.upper)
    stack = lab.write_stack(tmp_path, {"h100-train": [("h100-01", node.root)]})
    result = lab.run("site.yml", stack, tmp_path)
    assert result.rc != 0
    message = result.view.hosts["h100-01"].message
    for missing in ("/etc/modprobe.d (kmod)", "update-initramfs (initramfs-tools)", "systemctl (systemd)"):
        assert missing in message, message
    assert "apt-get install systemd kmod initramfs-tools" in message, message
    assert "nothing was changed" in message
    assert tree_digest(node.upper) == before
    assert not node.path("etc/apt/sources.list.d/accelplane.sources").exists()
