"""The "upstream" a lock reads in tests: the lab's sources (tests/support/ansible/catalog.py) plus
a PEP 503 index over its wheels, a Helm chart repository and an OCI image built by hand.

`lab_upstream_stack` writes the lab stack (stacks/Pulumi.lab.yaml, both host groups) with its
sources pointed at an http server on 127.0.0.1, as an operator's connected staging host sees them.
"""

from __future__ import annotations

import gzip
import hashlib
import html
import io
import json
import os
import tarfile
from pathlib import Path
from typing import Any

import yaml

from tests.support.ansible import lab
from tests.support.ansible.catalog import build_lab, nccl_tests_group_vars

KEYRING_ON_NODE = "/etc/apt/keyrings/accelplane-mirror.gpg"


def write_simple_index(wheels: Path, simple: Path) -> None:
    """A PEP 503 index of `wheels` at `simple`: one page per project, links with #sha256=."""
    from packaging.utils import canonicalize_name, parse_wheel_filename

    projects: dict[str, list[Path]] = {}
    for wheel in sorted(wheels.glob("*.whl")):
        projects.setdefault(canonicalize_name(parse_wheel_filename(wheel.name)[0]), []).append(wheel)
    simple.mkdir(parents=True, exist_ok=True)
    for project, files in projects.items():
        (simple / project).mkdir(exist_ok=True)
        links = "".join(
            f'<a href="../../{wheels.name}/{html.escape(f.name)}#sha256={hashlib.sha256(f.read_bytes()).hexdigest()}">'
            f"{html.escape(f.name)}</a><br/>\n"
            for f in files
        )
        (simple / project / "index.html").write_text(f"<!DOCTYPE html><html><body>\n{links}</body></html>\n")
    index = "".join(f'<a href="{p}/">{p}</a><br/>\n' for p in projects)
    (simple / "index.html").write_text(f"<!DOCTYPE html><html><body>\n{index}</body></html>\n")


def build_chart(name: str, version: str, out: Path) -> Path:
    """A Helm chart package (a gzipped tar of <name>/Chart.yaml and a template)."""
    raw = io.BytesIO()
    chart = yaml.safe_dump({"apiVersion": "v2", "name": name, "version": version, "appVersion": version})
    members = {f"{name}/Chart.yaml": chart, f"{name}/templates/configmap.yaml": "kind: ConfigMap\n"}
    with tarfile.open(fileobj=raw, mode="w") as archive:
        for path, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(path)
            info.size, info.mtime = len(data), 0
            archive.addfile(info, io.BytesIO(data))
    target = out / f"{name}-{version}.tgz"
    target.write_bytes(gzip.compress(raw.getvalue(), mtime=0))
    return target


def write_chart_index(charts: Path) -> None:
    entries: dict[str, list[dict[str, Any]]] = {}
    for package in sorted(charts.glob("*.tgz")):
        with tarfile.open(package) as archive:
            member = next(m for m in archive.getmembers() if m.name.endswith("/Chart.yaml"))
            extracted = archive.extractfile(member)
            assert extracted is not None
            meta = yaml.safe_load(extracted.read())
        entry = {
            **meta,
            "urls": [package.name],
            "digest": hashlib.sha256(package.read_bytes()).hexdigest(),
            "created": "2026-01-01T00:00:00Z",
        }
        entries.setdefault(meta["name"], []).append(entry)
    (charts / "index.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "entries": entries}))


def build_upstream(dest: Path) -> Path:
    """The lab's apt/, wheels/, efa/, nccl-tests/ plus simple/ and charts/ under `dest`."""
    build_lab(dest)
    write_simple_index(dest / "wheels", dest / "simple")
    (dest / "charts").mkdir(exist_ok=True)
    build_chart("nvidia-device-plugin", "0.17.4", dest / "charts")
    build_chart("nvidia-device-plugin", "0.18.0", dest / "charts")
    write_chart_index(dest / "charts")
    return dest


def add_training_pool(platform: dict, profile: str = "h100-r570") -> None:
    """A GPU training pool on `profile`, so the stack installs the NVIDIA charts a lock must cover."""
    platform["node_pools"].append(
        {
            "name": "gpu",
            "purpose": "training",
            "instance_type": "p5.48xlarge",
            "accelerator": "nvidia-h100",
            "software_profile": profile,
            "scaling": {"min": 0, "desired": 0, "max": 1},
        }
    )


def lab_upstream_stack(
    directory: Path, base_url: str, *, name: str = "labair", hosts: dict[str, Path] | None = None, edit: Any = None
) -> Path:
    """The lab stack (both groups) with its sources at `base_url`, the node kernel declared so the
    DKMS headers are locked, and nccl-tests' source from the same server (group_vars beside it)."""
    roots = hosts or {}
    stack = lab.write_stack(
        directory,
        {
            "h100-train": [("h100-01", roots.get("h100-01", Path("/nonexistent/h100-01")))],
            "mi300x-infer": [("mi300x-01", roots.get("mi300x-01", Path("/nonexistent/mi300x-01")))],
        },
        name=name,
    )
    document = yaml.safe_load(stack.read_text())
    platform = lab.platform_of(document)
    for profile in platform["software_profiles"].values():
        profile["kernel"] = os.uname().release
    platform["bare_metal"]["repositories"] = [
        {"name": "lab", "uri": f"{base_url}/apt", "suites": ["./"], "signed_by": KEYRING_ON_NODE}
    ]
    platform["bare_metal"]["python"] = {
        "index_url": f"{base_url}/simple/",
        "efa_installer_url": f"{base_url}/efa/aws-efa-installer-{{version}}.tar.gz",
    }
    if edit is not None:
        edit(platform)
    stack.write_text(yaml.safe_dump(document, sort_keys=False))
    group_vars = nccl_tests_group_vars()
    group_vars["nccl_tests_source_url"] = f"{base_url}/nccl-tests/nccl-tests-{{version}}.tar.gz"
    (directory / "group_vars" / "all.yml").write_text(yaml.safe_dump(group_vars, sort_keys=False))
    return stack


def load_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())
