"""`bundle export`: each format read by the tool it is for — sha256sum checks the file list in the
mirror, skopeo syncs the images from the real registry with the sync YAML, the CycloneDX SBOM
passes the 1.6 schema (strict) and lists every artifact with its hash and package URL."""

from __future__ import annotations

import json
import subprocess

import pytest

from accelplane.cli import main
from tests.support.mirror.servers import skopeo


def _export(lock, fmt, tmp_path, *extra):
    out = tmp_path / f"export.{fmt}"
    assert main(["bundle", "export", "--lock", str(lock), "--format", fmt, "--output", str(out), *extra]) == 0
    return out


def test_files_list_is_checked_by_sha256sum_in_the_mirror(mirrored, tmp_path):
    listing = _export(mirrored.lock, "files", tmp_path)
    lines = listing.read_text().splitlines()
    assert any(line.endswith("  apt/pool/nvidia-smi_570.172.08-1_all.deb") for line in lines)
    result = subprocess.run(
        ["sha256sum", "--strict", "-c", str(listing)], cwd=mirrored.mirror, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count(": OK") == len(lines)


def test_images_list_names_each_image_by_digest(mirrored, tmp_path):
    assert _export(mirrored.lock, "images", tmp_path).read_text() == mirrored.image + "\n"


def test_skopeo_sync_copies_the_locked_images(mirrored, tmp_path):
    sync = _export(mirrored.lock, "skopeo-sync", tmp_path, "--registry", "mirror.internal:5000")
    assert "mirror.internal:5000" in sync.read_text().splitlines()[0]
    registry_host = mirrored.image.split("/")[0]
    text = sync.read_text().replace(f"{registry_host}:", f"{registry_host}:\n  tls-verify: false", 1)
    sync.write_text(text)
    skopeo("sync", "--src", "yaml", "--dest", "dir", str(sync), str(tmp_path / "synced"))
    manifests = list((tmp_path / "synced").rglob("manifest.json"))
    assert manifests, list((tmp_path / "synced").rglob("*"))
    import hashlib

    assert "sha256:" + hashlib.sha256(manifests[0].read_bytes()).hexdigest() == mirrored.image.split("@")[1]


def test_skopeo_sync_lists_an_oci_chart_by_its_version_tag_too():
    """Helm pulls `oci://` charts by version tag: syncing only the digest would leave Helm nothing to pull."""
    import yaml

    from accelplane.bundle.export import render
    from accelplane.bundle.lockfile import Artifact, Kind, Lock

    digest = "sha256:" + "ab" * 32
    chart = Artifact(
        kind=Kind.chart, name="kueue", version="0.13.4+build.1", architecture="all",
        url="oci://registry.k8s.io/kueue/charts/kueue", digest=digest,
    )
    document = yaml.safe_load(render(Lock(stack="t", resolved_at="2026-12-03T00:00:00Z", artifacts=[chart]),
                                     "skopeo-sync"))
    assert document["registry.k8s.io"]["images"]["kueue/charts/kueue"] == [digest, "0.13.4_build.1"]


def test_cyclonedx_sbom_is_valid_and_complete(mirrored, tmp_path):
    from cyclonedx.schema import SchemaVersion
    from cyclonedx.validation.json import JsonStrictValidator

    sbom = _export(mirrored.lock, "cyclonedx", tmp_path).read_text()
    errors = JsonStrictValidator(SchemaVersion.V1_6).validate_str(sbom)
    assert errors is None, errors
    document = json.loads(sbom)
    lock = json.loads(mirrored.lock.read_text())
    assert len(document["components"]) == len(lock["artifacts"])
    by_purl = {c["purl"]: c for c in document["components"]}
    smi = by_purl["pkg:deb/debian/nvidia-smi@570.172.08-1"]
    locked = next(a for a in lock["artifacts"] if a["name"] == "nvidia-smi")
    assert smi["hashes"] == [{"alg": "SHA-256", "content": locked["sha256"]}]
    assert "pkg:pypi/torch@2.8.0%2Bcu128?arch=amd64" in by_purl


@pytest.mark.parametrize("fmt", ["yaml", ""])
def test_unknown_format_is_exit_2(mirrored, capsys, fmt):
    assert main(["bundle", "export", "--lock", str(mirrored.lock), "--format", fmt]) == 2
    assert "--format" in capsys.readouterr().err
