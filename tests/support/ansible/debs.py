"""Build stand-in Debian packages with dpkg-deb and index them as a flat `file:` apt repository."""

from __future__ import annotations

import gzip
import hashlib
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class StubPackage:
    name: str
    version: str
    depends: tuple[str, ...] = ()
    # path inside the package -> (content, mode)
    files: dict[str, tuple[str | bytes, int]] = field(default_factory=dict)
    # More control fields, e.g. {"Provides": ..., "Conflicts": ..., "Replaces": ...}
    control: dict[str, str] = field(default_factory=dict)
    postinst: str | None = None
    prerm: str | None = None
    description: str = "accelplane lab stand-in package"

    @property
    def filename(self) -> str:
        return f"{self.name}_{self.version.split(':')[-1]}_all.deb"  # pool names drop the epoch


def build_deb(package: StubPackage, out_dir: Path) -> Path:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "pkg"
        (root / "DEBIAN").mkdir(parents=True)
        control = [
            f"Package: {package.name}",
            f"Version: {package.version}",
            "Architecture: all",
            "Maintainer: accelplane lab <lab@accelplane.invalid>",
            "Section: misc",
            "Priority: optional",
        ]
        if package.depends:
            control.append("Depends: " + ", ".join(package.depends))
        control += [f"{key}: {value}" for key, value in package.control.items()]
        control.append(f"Description: {package.description}")
        (root / "DEBIAN" / "control").write_text("\n".join(control) + "\n")
        for script_name, body in (("postinst", package.postinst), ("prerm", package.prerm)):
            if body:
                script = root / "DEBIAN" / script_name
                script.write_text("#!/bin/sh\nset -e\n" + body + "\n")
                script.chmod(0o755)
        for path, (content, mode) in package.files.items():
            target = root / path.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content)
            target.chmod(mode)
        out = out_dir / package.filename
        subprocess.run(
            ["dpkg-deb", "--root-owner-group", "-Zgzip", "-z1", "--build", str(root), str(out)],
            check=True,
            capture_output=True,
        )
    return out


def write_index(repo: Path) -> None:
    """Packages, Packages.gz and Release for a flat repository (`deb [trusted=yes] file:REPO ./`)."""
    stanzas = []
    for deb in sorted(repo.glob("*.deb")):
        control = subprocess.run(["dpkg-deb", "-f", str(deb)], check=True, capture_output=True, text=True).stdout
        data = deb.read_bytes()
        stanzas.append(
            control.rstrip("\n")
            + f"\nFilename: ./{deb.name}\nSize: {len(data)}\nMD5sum: {hashlib.md5(data).hexdigest()}"
            + f"\nSHA256: {hashlib.sha256(data).hexdigest()}\n"
        )
    packages = "\n".join(stanzas).encode()
    (repo / "Packages").write_bytes(packages)
    (repo / "Packages.gz").write_bytes(gzip.compress(packages, mtime=0))
    lines = ["Origin: accelplane-lab", "Label: accelplane-lab", "Suite: lab", "Codename: lab", "SHA256:"]
    for name in ("Packages", "Packages.gz"):
        data = (repo / name).read_bytes()
        lines.append(f" {hashlib.sha256(data).hexdigest()} {len(data)} {name}")
    (repo / "Release").write_text("\n".join(lines) + "\n")
