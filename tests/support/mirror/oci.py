"""An OCI image layout built by hand (image-spec v1.1): one gzipped tar layer, a config and a
manifest, each a blob named by its SHA-256, and index.json naming the manifest with a tag. skopeo
pushes it to the test registry, as a CI job pushes what it built."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from pathlib import Path


def _blob(layout: Path, data: bytes) -> tuple[str, int]:
    digest = hashlib.sha256(data).hexdigest()
    (layout / "blobs" / "sha256").mkdir(parents=True, exist_ok=True)
    (layout / "blobs" / "sha256" / digest).write_bytes(data)
    return f"sha256:{digest}", len(data)


def build_layout(layout: Path, tag: str, files: dict[str, str]) -> str:
    """Write the layout; returns the manifest's digest."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as archive:
        for path, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(path)
            info.size, info.mtime, info.mode = len(data), 0, 0o755
            archive.addfile(info, io.BytesIO(data))
    layer_plain = raw.getvalue()
    layer = gzip.compress(layer_plain, mtime=0)
    layer_digest, layer_size = _blob(layout, layer)
    config = {
        "architecture": "amd64",
        "os": "linux",
        "config": {"Entrypoint": ["/" + next(iter(files))]},
        "rootfs": {"type": "layers", "diff_ids": ["sha256:" + hashlib.sha256(layer_plain).hexdigest()]},
    }
    config_digest, config_size = _blob(layout, json.dumps(config, sort_keys=True).encode())
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {
            "mediaType": "application/vnd.oci.image.config.v1+json",
            "digest": config_digest,
            "size": config_size,
        },
        "layers": [
            {"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": layer_digest, "size": layer_size}
        ],
    }
    manifest_digest, manifest_size = _blob(layout, json.dumps(manifest, sort_keys=True).encode())
    (layout / "oci-layout").write_text(json.dumps({"imageLayoutVersion": "1.0.0"}))
    index = {
        "schemaVersion": 2,
        "manifests": [
            {
                "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "digest": manifest_digest,
                "size": manifest_size,
                "annotations": {"org.opencontainers.image.ref.name": tag},
            }
        ],
    }
    (layout / "index.json").write_text(json.dumps(index))
    return manifest_digest
