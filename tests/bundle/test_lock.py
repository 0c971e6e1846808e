"""`bundle lock`: every artifact the lab stack fetches, resolved from real indexes over HTTP, with
the checksums the sources publish and who needs each one; floating references refused."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from accelplane.bundle.debian import compare_versions
from accelplane.cli import main
from tests.support.ansible.prereqs import require_tools
from tests.support.mirror.upstream import add_training_pool, lab_upstream_stack


def _artifacts(lock: Path) -> dict[tuple[str, str], dict]:
    return {(a["kind"], a["name"]): a for a in json.loads(lock.read_text())["artifacts"]}


def test_lock_pins_each_profile_package_at_its_version_with_the_repository_sha256(locked, upstream):
    artifacts = _artifacts(locked)
    expected = {
        "nvidia-driver-cuda": "570.172.08-1",
        "nvidia-kernel-open-dkms": "570.172.08-1",
        "nvidia-fabricmanager-570": "570.172.08-1",
        "containerd.io": "1.7.27-1",
        "libnccl2": "2.27.3-1+cuda12.8",
        "amdgpu-dkms": "1:6.12.12.60401-1",
        "rccl": "2.22.3.60401-1",
    }
    for name, version in expected.items():
        artifact = artifacts[("deb", name)]
        assert artifact["version"] == version, name
        filename = Path(artifact["url"]).name
        data = (upstream.root / "apt" / filename).read_bytes()
        assert artifact["sha256"] == hashlib.sha256(data).hexdigest(), name
        assert artifact["size"] == len(data), name
        assert artifact["url"] == f"{upstream.url}/apt/{filename}"
    # Only the profiles' versions: the neighbours in the repository are not locked.
    versions = {a["version"] for (kind, name), a in artifacts.items() if name == "nvidia-smi"}
    assert versions == {"570.172.08-1"}
    assert ("deb", "nvidia-kernel-dkms") not in artifacts  # the open flavour satisfies the driver


def test_lock_records_provenance_role_and_set(locked):
    artifacts = _artifacts(locked)
    containerd = [p["needed_by"] for p in artifacts[("deb", "containerd.io")]["provenance"]]
    assert any("h100-train" in who and "role container_runtime" in who for who in containerd)
    assert any("mi300x-infer" in who for who in containerd)  # one artifact, both groups
    dkms = " ".join(p["needed_by"] for p in artifacts[("deb", "dkms")]["provenance"])
    assert "role nvidia_driver" in dkms and "role amd_gpu_driver" in dkms
    assert all(p["resolved_at"].endswith("Z") for a in artifacts.values() for p in a["provenance"])


def test_lock_dependency_closure_is_what_apt_installs(locked, upstream, tmp_path):
    """Real apt, with an empty dpkg status, over the same HTTP repository: `--print-uris` for the
    H100 group's pinned packages lists exactly the debs the lock holds for that group."""
    require_tools("apt-get")
    artifacts = json.loads(locked.read_text())["artifacts"]
    h100 = {
        a["name"]: a["version"]
        for a in artifacts
        if a["kind"] == "deb" and any("h100-train" in p["needed_by"] for p in a["provenance"])
    }
    state = tmp_path / "apt"
    for sub in ("lists/partial", "cache/archives/partial", "etc/preferences.d", "etc/apt.conf.d"):
        (state / sub).mkdir(parents=True)
    (state / "status").write_text("")
    (state / "etc/sources.list").write_text(f"deb [trusted=yes] {upstream.url}/apt ./\n")
    options = [
        f"-oDir::State={state}",
        f"-oDir::State::status={state / 'status'}",
        f"-oDir::Cache={state / 'cache'}",
        f"-oDir::Etc={state / 'etc'}",
        "-oAPT::Architecture=amd64",
        "-oAPT::Architectures::=amd64",
        "-oDebug::NoLocking=1",
        "-oAPT::Install-Recommends=0",
    ]
    subprocess.run(["apt-get", *options, "update", "-qq"], check=True, capture_output=True)
    roots = [f"{name}={version}" for name, version in h100.items()]
    out = subprocess.run(
        ["apt-get", *options, "install", "-qq", "--print-uris", "-y", *roots],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    printed = {line.split()[1].split("_")[0] for line in out.splitlines() if line.startswith("'")}
    assert printed == set(h100)


def test_lock_lists_wheels_with_index_hashes_and_installers_with_checksums(locked, upstream):
    artifacts = _artifacts(locked)
    torch = [a for a in json.loads(locked.read_text())["artifacts"] if a["name"] == "torch"]
    assert {a["version"] for a in torch} == {"2.8.0+cu128", "2.8.0+rocm6.4"}
    for wheel in torch:
        data = (upstream.root / "wheels" / Path(wheel["url"]).name).read_bytes()
        assert wheel["sha256"] == hashlib.sha256(data).hexdigest()
    efa = artifacts[("installer", "aws-efa-installer")]
    assert efa["version"] == "1.43.2" and efa["url"].endswith("/efa/aws-efa-installer-1.43.2.tar.gz")
    tarball = (upstream.root / "efa" / "aws-efa-installer-1.43.2.tar.gz").read_bytes()
    assert efa["sha256"] == hashlib.sha256(tarball).hexdigest() and efa["size"] == len(tarball)
    assert artifacts[("installer", "nccl-tests")]["path"].startswith("files/")


def test_lock_names_what_the_declared_sources_do_not_carry(locked):
    outside = {item["name"] for item in json.loads(locked.read_text())["outside"]}
    assert {"python3-venv", "python3-packaging"} <= outside


def test_lock_refuses_a_floating_chart_version_naming_the_field(upstream, tmp_path, capsys):
    def edit(platform):
        platform["software_profiles"]["h100-r570"]["nvidia_device_plugin"] = "0.17.x"
        add_training_pool(platform)

    stack = lab_upstream_stack(tmp_path, upstream.url, edit=edit)
    output = tmp_path / "out.lock.json"
    code = main(["bundle", "lock", "--stack-file", str(stack), "--output", str(output)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "software_profiles.h100-r570.nvidia_device_plugin: '0.17.x' is a floating chart version" in err
    assert str(stack) in err and "Traceback" not in err
    assert not output.exists()


def test_lock_fails_naming_a_pinned_version_no_repository_has(upstream, tmp_path, capsys):
    def edit(platform):
        platform["software_profiles"]["h100-r570"]["containerd"] = "1.7.99"

    stack = lab_upstream_stack(tmp_path, upstream.url, edit=edit)
    output = tmp_path / "out.lock.json"
    assert main(["bundle", "lock", "--stack-file", str(stack), "--output", str(output)]) == 1
    err = capsys.readouterr().err
    assert "containerd.io 1.7.99-*" in err and "h100-train" in err
    assert not output.exists()


def test_lock_fails_when_an_index_does_not_match_its_release(upstream, tmp_path, capsys):
    """A Packages index altered after its Release was written is refused (exit 1), not read."""
    from tests.support.mirror.servers import http_server

    copy = tmp_path / "srv"
    shutil.copytree(upstream.root, copy)
    packages = copy / "apt" / "Packages.gz"
    packages.write_bytes(packages.read_bytes()[:-8] + b"\0" * 8)
    with http_server(copy) as url:
        stack = lab_upstream_stack(tmp_path, url)
        assert main(["bundle", "lock", "--stack-file", str(stack), "--output", str(tmp_path / "x.json")]) == 1
    assert "Packages.gz: its sha256 is not the one its Release file lists" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("570.172.08-1", "570.172.08-2"),
        ("1:6.12.12.60401-1", "6.12.12-1"),
        ("1.0~rc1-1", "1.0-1"),
        ("2.27.3-1+cuda12.8", "2.27.3-1+cuda13.0"),
        ("1.0-1", "1.0-1"),
        ("1.0a-1", "1.0+b-1"),
        ("3.0.10-8+deb12u1", "3.0.10-8"),
        ("1.2.3", "1.2.3-0"),
        ("0:1.0", "1.0"),
        ("1.0~~", "1.0~"),
        ("2.9.0+cu130", "2.10.0"),
        ("1.00", "1.0"),
        ("1.0.a", "1.0.0"),
    ],
)
def test_version_order_is_dpkgs(left, right):
    require_tools("dpkg")
    expected = 0
    for operator, value in (("lt", -1), ("gt", 1)):
        if subprocess.run(["dpkg", "--compare-versions", left, operator, right]).returncode == 0:
            expected = value
    assert compare_versions(left, right) == expected


def test_lock_file_is_what_the_docs_describe(locked):
    document = json.loads(locked.read_text())
    assert document["lock_version"] == 1 and document["stack"] == "labair"
    for artifact in document["artifacts"]:
        assert set(artifact) >= {"kind", "name", "version", "architecture", "url", "size", "provenance"}
        assert artifact.get("sha256") or artifact.get("digest")
    yaml.safe_dump(document)  # plain data all through


def test_unreachable_source_is_exit_2_naming_file_line_and_field(tmp_path, capsys):
    from tests.support.mirror.servers import free_port

    stack = lab_upstream_stack(tmp_path, f"http://127.0.0.1:{free_port()}")  # nothing listens there
    output = tmp_path / "out.lock.json"
    assert main(["bundle", "lock", "--stack-file", str(stack), "--output", str(output)]) == 2
    err = capsys.readouterr().err
    line = next(i for i, text in enumerate(stack.read_text().splitlines(), 1) if "uri: http://127.0.0.1" in text)
    assert f"error: {stack}:{line}: bare_metal.repositories[0].uri: cannot read http://127.0.0.1:" in err, err
    assert "Traceback" not in err and not output.exists()
