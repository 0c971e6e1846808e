"""`bundle verify`: offline; every locked artifact present with its locked checksum; exit 1 naming
each missing or altered one, 0 on an intact mirror; bad input exit 2 naming the file and field."""

from __future__ import annotations

import json
import shutil

import pytest

from accelplane.cli import main


@pytest.fixture
def copy(mirrored, tmp_path):
    target = tmp_path / "mirror"
    shutil.copytree(mirrored.mirror, target)
    return target


def test_intact_mirror_verifies(mirrored, capsys):
    assert main(["bundle", "verify", "--lock", str(mirrored.lock), "--mirror", str(mirrored.mirror)]) == 0
    count = len(json.loads(mirrored.lock.read_text())["artifacts"])
    assert f"{count} of {count} artifacts present and intact" in capsys.readouterr().out


def test_one_altered_file_fails_and_is_named(mirrored, copy, capsys):
    deb = copy / "apt" / "pool" / "libnccl2_2.27.3-1+cuda12.8_all.deb"
    deb.write_bytes(deb.read_bytes()[:-1] + b"X")
    assert main(["bundle", "verify", "--lock", str(mirrored.lock), "--mirror", str(copy)]) == 1
    out = capsys.readouterr().out.splitlines()
    problems = [line for line in out if line.startswith(("altered", "missing"))]
    assert problems == [
        next(
            line
            for line in out
            if line.startswith(
                "altered: deb libnccl2 2.27.3-1+cuda12.8: apt/pool/libnccl2_2.27.3-1+cuda12.8_all.deb has sha256"
            )
        )
    ]


def test_missing_wheel_and_image_blob_are_each_named(mirrored, copy, capsys):
    (copy / "python" / "files" / "torch-2.8.0+rocm6.4-py3-none-any.whl").unlink()
    layout = copy / "oci" / "lab" / "monitor"
    manifest = json.loads((layout / "blobs" / "sha256" / mirrored.image.split(":")[-1]).read_text())
    layer = manifest["layers"][0]["digest"].split(":")[1]
    (layout / "blobs" / "sha256" / layer).unlink()
    assert main(["bundle", "verify", "--lock", str(mirrored.lock), "--mirror", str(copy)]) == 1
    out = capsys.readouterr().out
    assert "missing: wheel torch 2.8.0+rocm6.4 (amd64): python/files/torch-2.8.0+rocm6.4-py3-none-any.whl" in out
    assert f"missing: image {mirrored.image.split('@')[0]}: blob sha256:{layer} is missing" in out


def test_altered_image_layer_is_named(mirrored, copy, capsys):
    layout = copy / "oci" / "lab" / "monitor"
    manifest = json.loads((layout / "blobs" / "sha256" / mirrored.image.split(":")[-1]).read_text())
    blob = layout / "blobs" / "sha256" / manifest["layers"][0]["digest"].split(":")[1]
    blob.write_bytes(blob.read_bytes() + b"\0")
    assert main(["bundle", "verify", "--lock", str(mirrored.lock), "--mirror", str(copy)]) == 1
    assert "altered: image" in capsys.readouterr().out


def test_verify_reads_no_network(mirrored, copy, monkeypatch):
    """Offline: any socket use fails the command."""
    import socket

    def refuse(*args, **kwargs):
        raise AssertionError("verify opened a socket")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    assert main(["bundle", "verify", "--lock", str(mirrored.lock), "--mirror", str(copy)]) == 0


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("{", None),
        ('{"lock_version": 9, "artifacts": []}', "lock_version"),
        ('{"lock_version": 1, "stack": "s", "resolved_at": "t", "artifacts": [{"kind": "rpm"}]}', "artifacts[0].kind"),
        (
            '{"lock_version": 1, "stack": "s", "resolved_at": "t", "artifacts": [{"kind": "deb", "name": "a", '
            '"version": "1", "architecture": "all", "url": "u", "sha256": "xyz", "provenance": []}]}',
            "artifacts[0].sha256",
        ),
        (
            '{"lock_version": 1, "stack": "s", "resolved_at": "t", "artifacts": [{"kind": "deb", "name": "a", '
            '"version": "1", "architecture": "all", "url": "u", "sha256": "' + "a" * 64 + '", "provenance": [], '
            '"path": "../../etc/passwd"}]}',
            "artifacts[0].path",
        ),
    ],
)
def test_bad_lock_is_exit_2_naming_file_and_field(tmp_path, capsys, text, field):
    lock = tmp_path / "bundle.lock.json"
    lock.write_text(text)
    assert main(["bundle", "verify", "--lock", str(lock), "--mirror", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert str(lock) in err and "Traceback" not in err
    if field:
        assert field in err
