"""Build pure-Python stand-in wheels (a wheel is a zip with METADATA, WHEEL and RECORD)."""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_wheel(name: str, version: str, files: dict[str, str], out_dir: Path) -> Path:
    distribution = name.replace("-", "_")
    info = f"{distribution}-{version}.dist-info"
    contents = dict(files)
    contents[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: accelplane lab stand-in\n"
    )
    contents[f"{info}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: accelplane-lab\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    record = [f"{path},{_record_hash(text.encode())},{len(text.encode())}" for path, text in contents.items()]
    record.append(f"{info}/RECORD,,")
    contents[f"{info}/RECORD"] = "\n".join(record) + "\n"
    out = out_dir / f"{distribution}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, text in contents.items():
            archive.writestr(path, text)
    return out
