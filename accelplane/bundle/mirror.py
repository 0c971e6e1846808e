"""`bundle fetch`: the locked artifacts into a mirror directory laid out the way the field's tools
serve it (docs/bundle.md "Mirror layout"):

    apt/        a flat apt repository: pool/*.deb, Packages(.gz), Release (apt-ftparchive), and
                InRelease + Release.gpg signed with --sign-with (gpg)    deb URL/apt ./
    python/     a PEP 503 simple index (python/simple/<project>/) over python/files/*.whl
    files/      installers and source tarballs, by file name
    charts/     a Helm chart repository: index.yaml and the chart packages
    oci/        OCI image layouts (skopeo), one per repository, images and OCI charts by digest
    bundle.lock.json   the lock the mirror was fetched from

Every file is downloaded through `<name>.part`, resumed with an HTTP range request, and renamed
into place only when its SHA-256 is the locked one; a file already in place with the locked
checksum is not fetched again, so an interrupted fetch is simply run again.
"""

from __future__ import annotations

import gzip
import html
import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import yaml

from accelplane.bundle import net
from accelplane.bundle.lockfile import FILE_KINDS, Artifact, ArtifactError, Kind, Lock
from accelplane.bundle.verify import _check_layout
from accelplane.errors import InputError
from accelplane.oci_reference import parse_reference

Progress = Callable[[str], None]


def _size(value: int | None) -> str:
    if value is None:
        return "size unknown"
    amount = float(value)
    for unit in ("B", "KiB", "MiB"):
        if amount < 1024:
            return f"{amount:.0f} {unit}" if unit == "B" else f"{amount:.1f} {unit}"
        amount /= 1024
    return f"{amount:.1f} GiB"


def _tool(name: str, package: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise InputError.single(f"{name} is not installed (Debian package {package})", field="bundle fetch")
    return path


def _run(argv: list[str], cwd: Path | None = None) -> str:
    result = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=1800)
    if result.returncode != 0:
        raise ArtifactError(f"{Path(argv[0]).name} failed: {result.stderr.strip()[-2000:]}")
    return result.stdout


def _fetch_file(artifact: Artifact, into: Path, say: Progress, prefix: str) -> None:
    assert artifact.path is not None
    target = into / artifact.path
    if target.is_file() and artifact.sha256 and net.digest_of(target)[0] == artifact.sha256:
        say(f"{prefix} {artifact.label}: present")
        return
    net.download(artifact.url, target, sha256=artifact.sha256, size=artifact.size)
    say(f"{prefix} {artifact.label}: {_size(artifact.size)} fetched")


def _fetch_image(artifact: Artifact, into: Path, say: Progress, prefix: str) -> None:

    assert artifact.path is not None and artifact.digest is not None
    layout = into / artifact.path
    if _check_layout(layout, artifact.digest) is None:
        say(f"{prefix} {artifact.label}: present")
        return
    reference = parse_reference(artifact.url if "@" in artifact.url else f"{artifact.name}@{artifact.digest}")
    source = f"docker://{reference.name}@{artifact.digest}"
    tag = (artifact.version or artifact.digest.split(":")[1][:12]).replace("+", "_")
    layout.mkdir(parents=True, exist_ok=True)
    argv = [_tool("skopeo", "skopeo"), "copy", "--all", "--preserve-digests", "--quiet"]
    if reference.insecure:
        argv.append("--src-tls-verify=false")
    _run([*argv, source, f"oci:{layout}:{tag}"])
    problem = _check_layout(layout, artifact.digest)
    if problem is not None:
        raise ArtifactError(f"{artifact.label}: after the copy, {problem[1]}")
    say(f"{prefix} {artifact.label}: copied into {artifact.path}")


def _apt_repository(into: Path, sign_with: str | None, say: Progress) -> None:
    apt = into / "apt"
    if not (apt / "pool").is_dir():
        return
    ftparchive = _tool("apt-ftparchive", "apt-utils")
    packages = _run([ftparchive, "packages", "pool"], cwd=apt)
    (apt / "Packages").write_text(packages)
    (apt / "Packages.gz").write_bytes(gzip.compress(packages.encode(), mtime=0))
    options = ["-o", "APT::FTPArchive::Release::Origin=accelplane", "-o", "APT::FTPArchive::Release::Label=accelplane"]
    release = _run([ftparchive, *options, "release", "."], cwd=apt)
    for name in ("Release", "InRelease", "Release.gpg"):
        (apt / name).unlink(missing_ok=True)
    (apt / "Release").write_text(release)
    if sign_with is None:
        say("apt: Release NOT signed (no --sign-with); nodes must be told to trust the repository")
        return
    gpg = _tool("gpg", "gnupg")
    base = [gpg, "--batch", "--yes", "--local-user", sign_with]
    _run([*base, "--clearsign", "--output", "InRelease", "Release"], cwd=apt)
    _run([*base, "--armor", "--detach-sign", "--output", "Release.gpg", "Release"], cwd=apt)
    say(f"apt: Release signed with {sign_with}")


def _simple_index(lock: Lock, into: Path) -> None:
    # Start-up time: packaging loads only when this runs.
    from packaging.utils import canonicalize_name

    wheels = [a for a in lock.artifacts if a.kind is Kind.wheel and a.path]
    if not wheels:
        return
    simple = into / "python" / "simple"
    projects: dict[str, list[Artifact]] = {}
    for wheel in wheels:
        projects.setdefault(canonicalize_name(wheel.name), []).append(wheel)
    for project, files in sorted(projects.items()):
        (simple / project).mkdir(parents=True, exist_ok=True)
        links = "".join(
            f'<a href="../../files/{html.escape(Path(w.path or "").name)}#sha256={w.sha256}">'
            f"{html.escape(Path(w.path or '').name)}</a><br/>\n"
            for w in files
        )
        (simple / project / "index.html").write_text(
            f"<!DOCTYPE html>\n<html><head><title>Links for {project}</title></head><body>\n{links}</body></html>\n"
        )
    index = "".join(f'<a href="{p}/">{p}</a><br/>\n' for p in sorted(projects))
    (simple / "index.html").write_text(f"<!DOCTYPE html>\n<html><body>\n{index}</body></html>\n")


def _chart_index(lock: Lock, into: Path) -> None:
    charts = [a for a in lock.artifacts if a.kind is Kind.chart and a.sha256 and a.path]
    if not charts:
        return
    entries: dict[str, list[dict[str, object]]] = {}
    for chart in charts:
        entry: dict[str, object] = dict(chart.meta.get("index_entry") or {"apiVersion": "v2", "name": chart.name})
        entry.update(name=chart.name, version=chart.version, digest=chart.sha256, urls=[Path(chart.path or "").name])
        entries.setdefault(chart.name, []).append(entry)
    (into / "charts").mkdir(parents=True, exist_ok=True)
    (into / "charts" / "index.yaml").write_text(
        yaml.safe_dump({"apiVersion": "v1", "entries": entries, "generated": lock.resolved_at}, sort_keys=True)
    )


def fetch_mirror(lock: Lock, into: Path, *, sign_with: str | None = None, progress: Progress | None = None) -> None:
    say = progress or (lambda _message: None)
    into.mkdir(parents=True, exist_ok=True)
    wanted = [a for a in lock.artifacts if a.path is not None and a.kind is not Kind.cloud_image]
    for index, artifact in enumerate(wanted, 1):
        prefix = f"[{index}/{len(wanted)}]"
        if artifact.kind in FILE_KINDS and artifact.sha256:
            _fetch_file(artifact, into, say, prefix)
        elif artifact.digest:
            _fetch_image(artifact, into, say, prefix)
    _apt_repository(into, sign_with, say)
    _simple_index(lock, into)
    _chart_index(lock, into)
    (into / "bundle.lock.json").write_text(json.dumps(lock.to_json(), indent=1) + "\n")
