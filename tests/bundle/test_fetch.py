"""`bundle fetch`: a mirror the field's tools read — real apt accepts its signed Release and
installs from it, real pip installs the wheels from its PEP 503 index with --require-hashes, the
chart index names the locked digest, skopeo reads the image from its OCI layout — and an
interrupted or repeated fetch picks up where it stopped."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from accelplane.cli import main
from tests.support.mirror.servers import http_server, skopeo


def _apt(mirror_url: str, keyring: Path, state: Path) -> list[str]:
    for sub in ("lists/partial", "cache/archives/partial", "etc/preferences.d", "etc/apt.conf.d"):
        (state / sub).mkdir(parents=True, exist_ok=True)
    (state / "status").write_text("")
    (state / "etc/sources.list").write_text(f"deb [signed-by={keyring}] {mirror_url}/apt ./\n")
    return [
        f"-oDir::State={state}",
        f"-oDir::State::status={state / 'status'}",
        f"-oDir::Cache={state / 'cache'}",
        f"-oDir::Etc={state / 'etc'}",
        "-oAPT::Architecture=amd64",
        "-oDebug::NoLocking=1",
    ]


def test_fetch_reports_progress_per_artifact(mirrored):
    lock = json.loads(mirrored.lock.read_text())
    fetched = [line for line in mirrored.fetch_log.splitlines() if line.startswith("[")]
    assert len(fetched) == len(lock["artifacts"])
    assert any("deb nvidia-smi 570.172.08-1" in line and "fetched" in line for line in fetched)


def test_apt_verifies_the_signed_release_and_downloads_the_pinned_set(mirrored, tmp_path):
    with http_server(mirrored.mirror) as url:
        options = _apt(url, mirrored.keyring, tmp_path / "apt")
        update = subprocess.run(["apt-get", *options, "update"], capture_output=True, text=True)
        assert update.returncode == 0 and "NO_PUBKEY" not in update.stderr and "W:" not in update.stdout, update
        out = subprocess.run(
            [
                "apt-get",
                *options,
                "install",
                "-y",
                "--download-only",
                "-qq",
                "nvidia-driver-cuda=570.172.08-1",
                "nvidia-kernel-open-dkms=570.172.08-1",
            ],
            capture_output=True,
            text=True,
        )
        assert out.returncode == 0, out.stderr
    downloaded = {p.name for p in (tmp_path / "apt" / "cache" / "archives").glob("*.deb")}
    assert "nvidia-smi_570.172.08-1_all.deb" in downloaded and "dkms_3.0.10-8+deb12u1_all.deb" in downloaded


def test_apt_refuses_the_mirror_under_another_key(mirrored, tmp_path):
    from tests.support.mirror.gpg import make_key

    _, other = make_key(tmp_path / "other-gnupg")
    with http_server(mirrored.mirror) as url:
        options = _apt(url, other, tmp_path / "apt")
        update = subprocess.run(["apt-get", *options, "update"], capture_output=True, text=True)
    assert "NO_PUBKEY" in update.stderr or "not signed" in update.stderr or "EXPKEYSIG" in update.stderr, update


def test_pip_installs_the_wheels_from_the_index_with_the_exported_hashes(mirrored, tmp_path):
    requirements = tmp_path / "requirements.txt"
    assert (
        main(
            [
                "bundle",
                "export",
                "--lock",
                str(mirrored.lock),
                "--format",
                "requirements",
                "--output",
                str(requirements),
            ]
        )
        == 0
    )
    lines = requirements.read_text()
    assert "torch==2.8.0+cu128 \\\n    --hash=sha256:" in lines
    with http_server(mirrored.mirror) as url:
        # Only the CUDA build and NCCL: the ROCm torch is for the other group.
        subset = tmp_path / "h100.txt"
        subset.write_text(lines.split("\ntorch==2.8.0+rocm6.4")[0] + "\n")
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--require-hashes",
                "--only-binary",
                ":all:",
                "--index-url",
                f"{url}/python/simple/",
                "--dest",
                str(tmp_path / "got"),
                "-r",
                str(subset),
            ],
            capture_output=True,
            text=True,
        )
    assert result.returncode == 0, result.stderr
    assert {p.name for p in (tmp_path / "got").iterdir()} == {
        "torch-2.8.0+cu128-py3-none-any.whl",
        "nvidia_nccl_cu12-2.27.3-py3-none-any.whl",
    }


def test_chart_repository_index_names_the_locked_digest(mirrored):
    index = yaml.safe_load((mirrored.mirror / "charts" / "index.yaml").read_text())
    entry = index["entries"]["nvidia-device-plugin"][0]
    assert entry["version"] == "0.17.4" and entry["urls"] == ["nvidia-device-plugin-0.17.4.tgz"]
    package = (mirrored.mirror / "charts" / "nvidia-device-plugin-0.17.4.tgz").read_bytes()
    assert entry["digest"] == hashlib.sha256(package).hexdigest()


def test_image_is_in_the_oci_layout_by_its_digest(mirrored):
    digest = mirrored.image.split("@")[1]
    layout = mirrored.mirror / "oci" / "lab" / "monitor"
    inspected = json.loads(skopeo("inspect", "--raw", f"oci:{layout}"))
    assert (
        inspected["layers"]
        and "sha256:" + hashlib.sha256((layout / "blobs" / "sha256" / digest.split(":")[1]).read_bytes()).hexdigest()
        == digest
    )


def test_fetch_again_fetches_nothing_and_resumes_a_partial_file(mirrored, tmp_path):
    """A second run finds everything in place; a file cut short (a `.part` left by an interrupted
    run) is completed and checked, the other artifacts are not downloaded again."""
    import shutil

    mirror = tmp_path / "mirror"
    shutil.copytree(mirrored.mirror, mirror)
    deb = mirror / "apt" / "pool" / "nvidia-smi_570.172.08-1_all.deb"
    data = deb.read_bytes()
    deb.unlink()
    deb.with_name(deb.name + ".part").write_bytes(data[: len(data) // 2])
    log = io.StringIO()
    with contextlib.redirect_stderr(log):
        assert main(["bundle", "fetch", "--lock", str(mirrored.lock), "--into", str(mirror)]) == 0
    lines = [line for line in log.getvalue().splitlines() if line.startswith("[")]
    assert [line for line in lines if "fetched" in line] == [next(line for line in lines if "nvidia-smi" in line)]
    assert deb.read_bytes() == data and not deb.with_name(deb.name + ".part").exists()


def test_fetch_fails_naming_an_artifact_whose_source_changed(mirrored, upstream, tmp_path, capsys):
    """The upstream file is not the locked one any more: exit 1 naming it, nothing left in place."""
    lock = json.loads(mirrored.lock.read_text())
    efa = next(a for a in lock["artifacts"] if a["name"] == "aws-efa-installer")
    efa["sha256"] = "0" * 64
    altered = tmp_path / "altered.lock.json"
    altered.write_text(json.dumps(lock))
    mirror = tmp_path / "mirror"
    assert main(["bundle", "fetch", "--lock", str(altered), "--into", str(mirror)]) == 1
    err = capsys.readouterr().err
    assert "aws-efa-installer-1.43.2.tar.gz: sha256" in err and "is not the locked " + "0" * 64 in err
    assert not (mirror / efa["path"]).exists()


def test_interrupted_download_resumes_with_a_range_request(upstream, tmp_path):
    """Against a server that honours ranges, the `.part` an interrupted fetch left is continued
    from its end (one `Range: bytes=N-` request, 206), and the whole file is checked after."""
    from accelplane.bundle.net import download
    from tests.support.mirror.servers import range_server

    source = upstream.root / "efa" / "aws-efa-installer-1.43.2.tar.gz"
    data = source.read_bytes()
    target = tmp_path / "files" / source.name
    target.parent.mkdir()
    half = len(data) // 2
    target.with_name(target.name + ".part").write_bytes(data[:half])
    log = tmp_path / "requests.log"
    with range_server(upstream.root, log) as url:
        _sha256, size = download(f"{url}/efa/{source.name}", target, sha256=hashlib.sha256(data).hexdigest(),
                                size=len(data))
    assert target.read_bytes() == data and size == len(data)
    requests = [line for line in log.read_text().splitlines() if line.startswith("/efa/")]  # not the readiness probe
    assert requests == [f"/efa/{source.name} bytes={half}-"]


def test_a_part_that_does_not_continue_the_file_is_refused_and_dropped(upstream, tmp_path):
    """Resumed bytes that do not make the locked file (a `.part` of another file) fail the checksum:
    nothing is renamed into place and the `.part` is gone, so the next run starts clean."""
    from accelplane.bundle.lockfile import ArtifactError
    from accelplane.bundle.net import download
    from tests.support.mirror.servers import range_server

    source = upstream.root / "efa" / "aws-efa-installer-1.43.2.tar.gz"
    data = source.read_bytes()
    target = tmp_path / source.name
    target.with_name(target.name + ".part").write_bytes(b"\0" * (len(data) // 2))
    refused = pytest.raises(ArtifactError, match="is not the locked")
    with range_server(upstream.root, tmp_path / "requests.log") as url, refused:
        download(f"{url}/efa/{source.name}", target, sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    assert not target.exists() and not target.with_name(target.name + ".part").exists()
