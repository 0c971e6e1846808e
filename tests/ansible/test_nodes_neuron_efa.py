"""AWS Neuron hosts with EFA (roles/node_software/tasks/vendor_aws.yml, comms_stack's efa tasks) on
a lab node: the EFA installer's absence refuses the run before anything is written; with it, the
installer runs beside the Neuron release and no aws-ofi-nccl version is asked for; validate names an
installer that is not the profile's.

One trn2 node of the mixed lab stack (tests/support/ansible/mixed.py keeps its shared runs without
EFA) with `efa: true` and the lab's EFA installer stand-in (tests/support/ansible/catalog.py EFA),
which records its version in /opt/amazon/efa_installed_packages as the real installer does.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.ansible.test_nodes_apply import tree_digest
from tests.support.ansible import lab
from tests.support.ansible.catalog import EFA

HOST = "trn2-01"
GROUP = "trn2-train"
INSTALLER = next(iter(EFA))
RECORD = "opt/amazon/efa_installed_packages"


def _stack(work: Path, root: Path, installer_url: str) -> Path:
    work.mkdir(parents=True, exist_ok=True)
    profile = dict(lab.platform_of(lab.lab_document(lab.MIXED_LAB_STACK))["software_profiles"]["trn2-neuron226"])
    stack = lab.write_stack(
        work,
        {GROUP: [(HOST, root)]},
        base=lab.MIXED_LAB_STACK,
        extra_profiles={"trn2-efa": {**profile, "efa_installer": INSTALLER}},
        profiles={GROUP: "trn2-efa"},
        group_settings={GROUP: {"efa": True}},
    )
    document = yaml.safe_load(stack.read_text())
    lab.platform_of(document)["bare_metal"]["python"]["efa_installer_url"] = installer_url
    stack.write_text(yaml.safe_dump(document, sort_keys=False))
    return stack


def test_neuron_host_with_efa(make_node, tmp_path):
    node = make_node(HOST, vendor="aws")
    before = tree_digest(node.upper)
    # No installer where the stack says: refused in the preflight, nothing written.
    missing = "file:///srv/accelplane-lab/no-efa/aws-efa-installer-{version}.tar.gz"
    refused = lab.run("site.yml", _stack(tmp_path / "refused", node.root, missing), tmp_path / "refused")
    assert refused.rc != 0
    message = refused.view.hosts[HOST].message
    assert f"EFA installer {INSTALLER} not found at file:///srv/accelplane-lab/no-efa/" in message, message
    assert "nothing was changed" in message, message
    assert tree_digest(node.upper) == before
    assert "aws-neuronx-dkms" not in node.installed()

    work = tmp_path / "apply"
    stack = _stack(work, node.root, "file:///srv/accelplane-lab/efa/aws-efa-installer-{version}.tar.gz")
    applied = lab.run("site.yml", stack, work)
    assert applied.rc == 0, lab.failure(applied)
    assert node.path(RECORD).read_text().startswith(f"# EFA installer version: {INSTALLER}\n")
    assert node.installed()["aws-neuronx-dkms"][1] == "hi"
    report = json.loads((applied.report_dir / f"{HOST}.json").read_text())
    assert report["ok"] is True, report["mismatches"]

    # Another installer release by hand: validate names it, and asks for no aws-ofi-nccl.
    record = node.path(RECORD)
    record.write_text(record.read_text().replace(f": {INSTALLER}\n", ": 1.42.0\n", 1))
    drifted = lab.run("validate.yml", stack, work)
    assert drifted.rc != 0
    mismatches = json.loads((drifted.report_dir / f"{HOST}.json").read_text())["mismatches"]
    assert mismatches == [f"efa: installer 1.42.0 installed, expected {INSTALLER}"], mismatches
