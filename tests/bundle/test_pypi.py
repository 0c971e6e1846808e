"""Wheel resolution of `bundle lock`: the file pip would pick on the node (CPython version, CPU,
the OS's glibc for manylinux tags), `Requires-Dist` followed with markers evaluated for the node,
the highest version every requirement allows, and floating requirements refused."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from accelplane.bundle import pypi
from accelplane.bundle.lockfile import ArtifactError
from accelplane.errors import InputError
from tests.support.mirror.servers import http_server
from tests.support.mirror.upstream import write_simple_index


def _wheel(out: Path, filename: str, requires: tuple[str, ...] = ()) -> None:
    name, version = filename.split("-")[:2]
    info = f"{name}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(
        f"Requires-Dist: {r}\n" for r in requires
    )
    with zipfile.ZipFile(out / filename, "w") as archive:
        archive.writestr(f"{info}/METADATA", metadata)
        archive.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\n")
        archive.writestr(f"{info}/RECORD", "")


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    root = tmp_path_factory.mktemp("pypi")
    files = root / "files"
    files.mkdir()
    appx_requires = ("depy>=2", "winonly; sys_platform == 'win32'", "extra-only; extra == 'x'")
    _wheel(files, "appx-1.0-py3-none-any.whl", appx_requires)
    _wheel(files, "depy-2.0-py3-none-any.whl")
    _wheel(files, "depy-3.0-py3-none-any.whl", ("native==1.0",))
    for tag in ("cp311-cp311-manylinux_2_17_x86_64", "cp312-cp312-manylinux_2_17_x86_64",
                "cp311-cp311-manylinux_2_38_x86_64", "cp311-cp311-manylinux_2_17_aarch64"):
        _wheel(files, f"native-1.0-{tag}.whl")
    _wheel(files, "pinned-1.0-py3-none-any.whl", ("depy<3",))
    write_simple_index(files, root / "simple")
    with http_server(root) as url:
        yield f"{url}/simple/"


def _chosen(index, requirements, **target):
    options = {"python": "3.11", "architecture": "amd64", "glibc": "2.36", **target}
    return {w.name: (w.version, w.file.filename) for w, _ in pypi.resolve(requirements, index, **options)}


def test_dependencies_are_followed_with_markers_for_the_node(index):
    chosen = _chosen(index, ["appx==1.0"])
    assert set(chosen) == {"appx", "depy", "native"}  # not winonly (win32), not extra-only
    assert chosen["depy"][0] == "3.0"


def test_the_wheel_for_the_nodes_python_cpu_and_glibc_is_chosen(index):
    assert _chosen(index, ["native==1.0"])["native"][1] == "native-1.0-cp311-cp311-manylinux_2_17_x86_64.whl"
    newer = _chosen(index, ["native==1.0"], glibc="2.39")["native"][1]
    assert newer == "native-1.0-cp311-cp311-manylinux_2_38_x86_64.whl"
    assert _chosen(index, ["native==1.0"], architecture="arm64")["native"][1].endswith("manylinux_2_17_aarch64.whl")


def test_no_wheel_for_the_node_fails_naming_it(index):
    with pytest.raises(ArtifactError, match=r"native==1.0 .*no wheel for Python 3.13 on amd64"):
        _chosen(index, ["native==1.0"], python="3.13")


def test_conflicting_requirements_are_named(index):
    with pytest.raises(ArtifactError, match=r"pinned==1.0 needs depy<3, but depy==3.0 was chosen"):
        _chosen(index, ["appx==1.0", "pinned==1.0"])


@pytest.mark.parametrize("requirement", ["torch>=2.8", "torch==2.*", "torch", "torch==2.8.0,<3"])
def test_floating_requirement_is_refused(index, requirement):
    with pytest.raises(InputError, match="floating reference"):
        _chosen(index, [requirement])
