"""The lab's package sources: a flat apt repository of stand-in packages in several versions, the
framework wheels and the EFA installer tarball. Built at test time (dpkg-deb, zip, tar).

Versions are the real ones the lab profiles pin (stacks/Pulumi.lab.yaml) plus neighbours, so pins
must pick the right one; `BROKEN_DRIVERS` build an nvidia-smi that fails like a driver that did not
load (the rollback tests). Package names and version strings follow NVIDIA's, Docker's and AMD's
repositories ("570.172.08-1", "2.27.3-1+cuda12.8", "1:6.12.12.60401-1").
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import tarfile
from pathlib import Path
from typing import Any

import yaml

from tests.support.ansible.debs import StubPackage, build_deb, write_index
from tests.support.ansible.wheels import build_wheel

STANDINS = Path(__file__).parent / "standins"
KERNEL = os.uname().release  # a chroot's `uname -r` is the host's: DKMS builds for it

NVIDIA_DRIVERS = {"570.172.08": "12.8", "580.95.05": "13.0", "580.105.08": "13.0"}  # driver -> CUDA it reports
BROKEN_DRIVERS = {"580.105.08"}
CONTAINERD = ("1.7.27", "1.7.28")
CONTAINER_TOOLKIT = ("1.17.8", "1.18.0")
NCCL = ("2.27.3-1+cuda12.8", "2.27.3-1+cuda13.0", "2.28.9-1+cuda12.9", "2.28.9-1+cuda13.0")
ROCM = {"6.4.1": {"amdgpu_kmd": "6.12.12", "rccl": "2.22.3", "smi": "7.5.0"}}
EFA = {"1.43.2": "1.16.3"}  # installer -> aws-ofi-nccl it ships
WHEELS = {
    "2.8.0+cu128": ("12.8", ""),
    "2.9.0+cu130": ("13.0", ""),
    "2.8.0+rocm6.4": ("", "6.4.43483"),
}
NCCL_WHEELS = {"nvidia-nccl-cu12": "2.27.3", "nvidia-nccl-cu13": "2.28.9"}
# NVIDIA's forward-compatibility libcuda (docs.nvidia.com/deploy/cuda-compatibility/): no profile
# declares it, so on a node it is a leftover of the driver family (tests/ansible/test_nodes_managed_sets.py).
CUDA_COMPAT = {"cuda-compat-13-0": "580.95.05-1"}
# Intel Gaudi software releases: release -> (build, torch). 1.22.0-740 is the lab profile's; the
# 1.23.0 build's hl-smi fails like a driver that did not load (the failed canary of
# tests/ansible/test_nodes_gaudi.py).
GAUDI = {"1.22.0": ("740", "2.7.1"), "1.23.0": ("695", "2.9.0")}
BROKEN_GAUDI = {"1.23.0"}
GAUDI_PACKAGES = (
    "habanalabs-dkms",
    "habanalabs-firmware",
    "habanalabs-thunk",
    "habanalabs-firmware-tools",
    "habanalabs-graph",
    "habanalabs-container-runtime",
)
# AWS Neuron SDK releases and their package versions (the SDK's n2-manifest.json): the lab
# profile's 2.26.0 and 2.27.0, whose neuron-ls fails like a driver that did not load. The dkms
# version must be the matrix's driver of the release (accelplane/matrix/data/neuron.yaml).
NEURON = {
    "2.26.0": {
        "dkms": "2.24.7.0",
        "runtime": "2.28.23.0",
        "collectives": "2.28.27.0",
        "tools": "2.26.14.0",
        "neuronx_cc": "2.21.18209.0",
        "torch_neuronx": "2.8.0.2.10.13553",
    },
    "2.27.0": {
        "dkms": "2.25.4.0",
        "runtime": "2.29.40.0",
        "collectives": "2.29.41.0",
        "tools": "2.27.33.0",
        "neuronx_cc": "2.22.12471.0",
        "torch_neuronx": "2.8.0.2.11.19912",
    },
}
BROKEN_NEURON = {"2.27.0"}
NEURON_PACKAGES = ("aws-neuronx-dkms", "aws-neuronx-runtime-lib", "aws-neuronx-collectives", "aws-neuronx-tools")
# Huawei Ascend: CANN release -> the Ascend HDK driver and firmware and the torch_npu (and torch) of
# a lab profile. 8.2.RC1 is the lab profile's (stacks/Pulumi.lab-mixed.yaml, with its sources); the
# 8.3.RC1 set is the lab's next release, whose HDK numbers are the lab's own (not a pairing Huawei
# published) and whose npu-smi fails like a driver that did not load (the failed canary of
# tests/ansible/test_nodes_ascend.py).
ASCEND = {
    "8.2.RC1": {"driver": "25.0.rc1.1", "firmware": "7.7.0.1.231", "torch_npu": "2.6.0", "torch": "2.6.0"},
    "8.3.RC1": {"driver": "25.2.0", "firmware": "7.7.0.6.236", "torch_npu": "2.6.0.post3", "torch": "2.6.0"},
}
BROKEN_ASCEND = {"8.3.RC1"}
ASCEND_CHIP = "910b"  # huawei-ascend-910b's ascend_chip (accelplane/matrix/data/accelerators.yaml)
ASCEND_LAB_URL = "file:///srv/accelplane-lab/ascend"
# The nccl-tests release the role pins (its defaults are the one place); the lab's source tarball
# of that release builds the all_reduce_perf stand-in.
ROOT = Path(__file__).resolve().parents[3]
ARCH = os.uname().machine  # a chroot's architecture is the host's
# The lab stack's profiles pin nccl-tests (stacks/Pulumi.lab.yaml); the stand-in tarball is named for it.
NCCL_TESTS_VERSION = yaml.safe_load((ROOT / "stacks/Pulumi.lab.yaml").read_text())["config"]["accelplane:platform"][
    "software_profiles"]["h100-r570"]["nccl_tests"]


def _standin(name: str, **values: str) -> str:
    text = (STANDINS / name).read_text()
    for key, value in values.items():
        text = text.replace(f"@{key}@", value)
    return text


def _unit(name: str, description: str) -> tuple[str, int]:
    return (
        f"[Unit]\nDescription={description}\n\n[Service]\nExecStart=/usr/bin/{name}\n\n"
        "[Install]\nWantedBy=multi-user.target\n",
        0o644,
    )


def _exe(text: str) -> tuple[str, int]:
    return (text, 0o755)


def nvidia_packages() -> list[StubPackage]:
    packages = []
    for driver, cuda in NVIDIA_DRIVERS.items():
        version = f"{driver}-1"
        branch = driver.split(".")[0]
        kernel_packages = ("nvidia-kernel-open-dkms", "nvidia-kernel-dkms")
        packages += [
            StubPackage(
                "nvidia-driver-cuda",
                version,
                depends=(
                    f"nvidia-smi (= {version})",
                    f"libcuda1 (= {version})",
                    f"libnvidia-ml1 (= {version})",
                    f"nvidia-persistenced (= {version})",
                    " | ".join(f"{name} (= {version})" for name in kernel_packages),
                ),
            ),
            StubPackage(
                "nvidia-smi",
                version,
                files={
                    "/usr/bin/nvidia-smi": _exe(
                        _standin(
                            "nvidia-smi", DRIVER=driver, CUDA=cuda, BROKEN="yes" if driver in BROKEN_DRIVERS else "no"
                        )
                    )
                },
            ),
            StubPackage("libcuda1", version, files={f"/usr/lib/x86_64-linux-gnu/libcuda.so.{driver}": ("", 0o644)}),
            StubPackage(
                "libnvidia-ml1", version, files={f"/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.{driver}": ("", 0o644)}
            ),
            StubPackage(
                "nvidia-persistenced",
                version,
                files={
                    "/usr/bin/nvidia-persistenced": _exe("#!/bin/sh\nexit 0\n"),
                    "/lib/systemd/system/nvidia-persistenced.service": _unit(
                        "nvidia-persistenced", "NVIDIA Persistence Daemon"
                    ),
                },
            ),
            StubPackage(
                f"nvidia-fabricmanager-{branch}",
                version,
                # One branch at a time, as NVIDIA's branch packages declare.
                control={
                    "Provides": "nvidia-fabricmanager",
                    "Conflicts": "nvidia-fabricmanager",
                    "Replaces": "nvidia-fabricmanager",
                },
                files={
                    "/usr/bin/nv-fabricmanager": _exe(
                        f"#!/bin/sh\n# Stand-in for nv-fabricmanager.\necho 'Fabric Manager version is : {driver}'\n"
                    ),
                    "/lib/systemd/system/nvidia-fabricmanager.service": _unit(
                        "nv-fabricmanager", "NVIDIA fabric manager service"
                    ),
                },
            ),
            StubPackage(
                f"libnvidia-nscq-{branch}",
                version,
                control={"Provides": "libnvidia-nscq", "Conflicts": "libnvidia-nscq", "Replaces": "libnvidia-nscq"},
                files={f"/usr/lib/x86_64-linux-gnu/libnvidia-nscq.so.{driver}": ("", 0o644)},
            ),
        ]
        for name in kernel_packages:
            packages.append(
                StubPackage(
                    name,
                    version,
                    depends=("dkms",),
                    postinst=f'dkms install -m nvidia -v {driver} -k "$(uname -r)"',
                    prerm=f"dkms remove -m nvidia -v {driver} --all",
                )
            )
    return packages


def runtime_packages() -> list[StubPackage]:
    packages = [
        StubPackage("dkms", "3.0.10-8+deb12u1", files={"/usr/sbin/dkms": _exe(_standin("dkms"))}),
        StubPackage(
            f"linux-headers-{KERNEL}", "1.0-1", files={f"/usr/src/linux-headers-{KERNEL}/Makefile": ("", 0o644)}
        ),
    ]
    for version in CONTAINERD:
        packages.append(
            StubPackage(
                "containerd.io",
                f"{version}-1",
                files={
                    "/usr/bin/containerd": _exe(
                        "#!/bin/sh\n# Stand-in for containerd.\n"
                        f"echo 'containerd containerd.io {version} 05044ec0a9a75232cad458027ca83437aae3f4da'\n"
                    ),
                    "/lib/systemd/system/containerd.service": _unit("containerd", "containerd container runtime"),
                },
            )
        )
    for version in CONTAINER_TOOLKIT:
        deb = f"{version}-1"
        packages += [
            StubPackage(
                "nvidia-container-toolkit",
                deb,
                depends=(f"nvidia-container-toolkit-base (= {deb})", f"libnvidia-container-tools (= {deb})"),
            ),
            StubPackage(
                "nvidia-container-toolkit-base",
                deb,
                files={
                    "/usr/bin/nvidia-ctk": _exe(
                        "#!/bin/sh\n# Stand-in for nvidia-ctk.\n"
                        f"echo 'NVIDIA Container Toolkit CLI version {version}'\n"
                    ),
                    "/usr/bin/nvidia-container-runtime": _exe('#!/bin/sh\nexec runc "$@"\n'),
                },
            ),
            StubPackage("libnvidia-container-tools", deb, depends=(f"libnvidia-container1 (= {deb})",)),
            StubPackage("libnvidia-container1", deb),
        ]
    for version in NCCL:
        packages += [
            StubPackage("libnccl2", version, files={"/usr/lib/x86_64-linux-gnu/libnccl.so.2": ("", 0o644)}),
            StubPackage("libnccl-dev", version, depends=(f"libnccl2 (= {version})",)),
        ]
    return packages


def amd_packages() -> list[StubPackage]:
    packages = []
    for rocm, parts in ROCM.items():
        number = "".join(f"{int(p):02d}" for p in rocm.split(".")).lstrip("0")
        packages += [
            StubPackage(
                "amdgpu-dkms",
                f"1:{parts['amdgpu_kmd']}.{number}-1",
                depends=("dkms",),
                postinst=f'dkms install -m amdgpu -v {parts["amdgpu_kmd"]} -k "$(uname -r)"',
                prerm=f"dkms remove -m amdgpu -v {parts['amdgpu_kmd']} --all",
            ),
            StubPackage("rocm-core", f"{rocm}.{number}-1"),
            StubPackage(
                "rocm-smi-lib", f"{parts['smi']}.{number}-1", files={"/usr/bin/rocm-smi": _exe(_standin("rocm-smi"))}
            ),
            StubPackage("rocm-hip-runtime", f"{rocm}.{number}-1", depends=(f"rocm-core (= {rocm}.{number}-1)",)),
            StubPackage("rccl", f"{parts['rccl']}.{number}-1"),
        ]
    return packages


def gaudi_packages() -> list[StubPackage]:
    """Intel's Gaudi repository: every package of a release at "<release>-<build>"; the driver
    registers with DKMS, the firmware tools carry hl-smi."""
    packages = []
    for release, (build, _torch) in GAUDI.items():
        version = f"{release}-{build}"
        files: dict[str, dict[str, tuple[str | bytes, int]]] = {
            "habanalabs-firmware-tools": {
                "/usr/bin/hl-smi": _exe(
                    _standin("hl-smi", VERSION=version, BROKEN="yes" if release in BROKEN_GAUDI else "no")
                )
            },
            "habanalabs-firmware": {f"/lib/firmware/habanalabs/gaudi3/gaudi3-fit-{release}.itb": ("", 0o644)},
            "habanalabs-thunk": {"/usr/lib/habanalabs/libhl-thunk.so": ("", 0o644)},
            "habanalabs-graph": {"/usr/lib/habanalabs/libSynapse.so": ("", 0o644)},
            "habanalabs-container-runtime": {"/usr/bin/habana-container-runtime": _exe('#!/bin/sh\nexec runc "$@"\n')},
        }
        for name in GAUDI_PACKAGES:
            dkms = name == "habanalabs-dkms"
            depends = {"habanalabs-dkms": ("dkms",), "habanalabs-graph": (f"habanalabs-thunk (= {version})",)}
            packages.append(
                StubPackage(
                    name,
                    version,
                    depends=depends.get(name, ()),
                    files=files.get(name, {}),
                    postinst=f'dkms install -m habanalabs -v {version} -k "$(uname -r)"' if dkms else None,
                    prerm=f"dkms remove -m habanalabs -v {version} --all" if dkms else None,
                )
            )
    return packages


def _gaudi_wheels(wheels: Path) -> None:
    """Intel's PyTorch for Gaudi: torch <version>+hpu.synapse.v<release> and habana-torch-plugin
    <release>.<build>, whose habana_frameworks.torch.core registers torch.hpu."""
    for release, (build, torch) in GAUDI.items():
        version = f"{torch}+hpu.synapse.v{release}"
        torch_init = _standin("torch_init.py", VERSION=version, CUDA="", HIP="")
        build_wheel("torch", version, {"torch/__init__.py": torch_init}, wheels)
        plugin = f"{release}.{build}"
        build_wheel(
            "habana-torch-plugin",
            plugin,
            {
                "habana_frameworks/__init__.py": "",
                "habana_frameworks/torch/__init__.py": "",
                "habana_frameworks/torch/core/__init__.py": _standin("habana_frameworks_core.py", VERSION=plugin),
            },
            wheels,
        )


def neuron_packages() -> list[StubPackage]:
    """The Neuron apt repository: the driver registers with DKMS, runtime and collectives carry a
    commit suffix in their versions, the tools carry neuron-ls."""
    packages = []
    for sdk, parts in NEURON.items():
        broken = "yes" if sdk in BROKEN_NEURON else "no"
        packages += [
            StubPackage(
                "aws-neuronx-dkms",
                parts["dkms"],
                depends=("dkms",),
                postinst=f'dkms install -m aws-neuronx -v {parts["dkms"]} -k "$(uname -r)"',
                prerm=f"dkms remove -m aws-neuronx -v {parts['dkms']} --all",
            ),
            StubPackage(
                "aws-neuronx-runtime-lib",
                f"{parts['runtime']}-dd5879008",
                files={"/opt/aws/neuron/lib/libnrt.so.1": ("", 0o644)},
            ),
            StubPackage(
                "aws-neuronx-collectives",
                f"{parts['collectives']}-17a033bc8",
                files={"/opt/aws/neuron/lib/libnccom.so.2": ("", 0o644)},
            ),
            StubPackage(
                "aws-neuronx-tools",
                parts["tools"],
                files={
                    "/opt/aws/neuron/bin/neuron-ls": _exe(_standin("neuron-ls", VERSION=parts["tools"], BROKEN=broken))
                },
            ),
        ]
    return packages


def _neuron_wheels(wheels: Path) -> None:
    """PyTorch's CPU build, torch-neuronx and neuronx-cc of each release."""
    torch_init = _standin("torch_init.py", VERSION="2.8.0+cpu", CUDA="", HIP="")
    build_wheel("torch", "2.8.0+cpu", {"torch/__init__.py": torch_init}, wheels)
    for parts in NEURON.values():
        neuronx = _standin("torch_neuronx_init.py", VERSION=parts["torch_neuronx"])
        build_wheel("torch-neuronx", parts["torch_neuronx"], {"torch_neuronx/__init__.py": neuronx}, wheels)
        compiler = f'__version__ = "{parts["neuronx_cc"]}"\n'
        build_wheel("neuronx-cc", parts["neuronx_cc"], {"neuronxcc/__init__.py": compiler}, wheels)


def ascend_role_filters() -> Any:
    """roles/ascend_npu's filter plugin, which names the installers: the lab uses the role's own
    file name templates (its defaults) rather than a second copy of Huawei's naming."""
    import importlib.util

    path = ROOT / "roles/ascend_npu/filter_plugins/ascend_installers.py"
    spec = importlib.util.spec_from_file_location("ascend_installers", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ascend_installers(cann: str, architecture: str = ARCH) -> list[dict[str, Any]]:
    """The installers roles/ascend_npu picks for CANN release `cann`'s lab set on `architecture`."""
    defaults = yaml.safe_load((ROOT / "roles/ascend_npu/defaults/main.yml").read_text())
    release = ASCEND[cann]
    components = ("driver", "firmware", "toolkit", "kernels")
    settings = {
        "versions": {"driver": release["driver"], "firmware": release["firmware"], "toolkit": cann, "kernels": cann},
        "chip": ASCEND_CHIP,
        "files": {name: defaults[f"ascend_npu_{name}_file"] for name in components},
        "urls": {},
        "base_url": ASCEND_LAB_URL,
        "args": {name: defaults[f"ascend_npu_{name}_args"] for name in components},
        "version_files": dict.fromkeys(components, ""),
        "version_keys": dict.fromkeys(components, ""),
    }
    return ascend_role_filters().ascend_installers(settings, architecture)


def _ascend_installer(cann: str, installer: dict[str, Any]) -> str:
    npu_smi = _standin("npu-smi", DRIVER=ASCEND[cann]["driver"], BROKEN="yes" if cann in BROKEN_ASCEND else "no")
    return _standin(
        "ascend_installer.sh",
        FILE=installer["file"],
        COMPONENT=installer["name"],
        VERSION=installer["version"],
        NPU_SMI=npu_smi.rstrip("\n"),
    )


def ascend_group_vars() -> dict[str, object]:
    """roles/ascend_npu's source and checksums for lab nodes: the lab's installers by file name."""
    sha256 = {}
    for cann in ASCEND:
        for installer in ascend_installers(cann):
            sha256[installer["file"]] = hashlib.sha256(_ascend_installer(cann, installer).encode()).hexdigest()
    return {"ascend_npu_base_url": ASCEND_LAB_URL, "ascend_npu_sha256": sha256}


def _ascend(out: Path, wheels: Path) -> None:
    """The Ascend installers (shell stand-ins that only write files) and torch_npu with its torch."""
    for cann, release in ASCEND.items():
        for installer in ascend_installers(cann):
            (out / installer["file"]).write_text(_ascend_installer(cann, installer))
        torch_npu = _standin("torch_npu_init.py", VERSION=release["torch_npu"])
        build_wheel("torch-npu", release["torch_npu"], {"torch_npu/__init__.py": torch_npu}, wheels)
    for torch in sorted({release["torch"] for release in ASCEND.values()}):
        version = f"{torch}+cpu"
        torch_init = _standin("torch_init.py", VERSION=version, CUDA="", HIP="")
        build_wheel("torch", version, {"torch/__init__.py": torch_init}, wheels)


def _efa_tarball(version: str, ofi: str, out: Path, scratch: Path) -> None:
    deb = build_deb(
        StubPackage("libnccl-ofi", f"{ofi}-1", files={"/opt/amazon/ofi-nccl/lib/libnccl-net.so": ("", 0o644)}),
        scratch,
    )
    with tarfile.open(out / f"aws-efa-installer-{version}.tar.gz", "w:gz") as archive:
        script = _standin("efa_installer.sh", VERSION=version).encode()
        info = tarfile.TarInfo("aws-efa-installer/efa_installer.sh")
        info.size, info.mode = len(script), 0o755
        archive.addfile(info, io.BytesIO(script))
        archive.add(deb, arcname=f"aws-efa-installer/DEBS/{deb.name}")


def nccl_tests_tarball() -> bytes:
    """The lab's nccl-tests source tarball: byte for byte the same on every call (fixed times, no
    gzip name or time), so its SHA-256 is known before it is built (`nccl_tests_group_vars`).
    Its `lab-build.sh` writes build/all_reduce_perf, the stand-in that prints nccl-tests' output."""
    top = f"nccl-tests-{NCCL_TESTS_VERSION}"
    script = (STANDINS / "all_reduce_perf").read_text()
    build = (
        "#!/bin/sh\n# Stand-in for `make` in nccl-tests' source: writes the benchmark it would build.\n"
        "set -e\nmkdir -p build\ncp src/all_reduce_perf.sh build/all_reduce_perf\nchmod 0755 build/all_reduce_perf\n"
    )
    raw = io.BytesIO()
    members = ((f"{top}/lab-build.sh", build, 0o755), (f"{top}/src/all_reduce_perf.sh", script, 0o644))
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as archive:
        for name, text, mode in members:
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), mode, 0
            archive.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), mtime=0)


def nccl_tests_group_vars() -> dict[str, object]:
    """The nccl_tests role's source and build for lab nodes: the lab tarball with its checksum, and
    its build script (the lab root has no compiler); written beside each lab stack (lab.write_stack)."""
    return {
        "nccl_tests_source_url": "file:///srv/accelplane-lab/nccl-tests/nccl-tests-{version}.tar.gz",
        "nccl_tests_source_sha256": hashlib.sha256(nccl_tests_tarball()).hexdigest(),
        "nccl_tests_build_packages": [],
        "nccl_tests_build_command": ["sh", "lab-build.sh"],
    }


def build_lab(dest: Path) -> Path:
    """apt/, wheels/, efa/, nccl-tests/ and ascend/ under `dest` (mounted at /srv/accelplane-lab on every node)."""
    apt, wheels, efa = dest / "apt", dest / "wheels", dest / "efa"
    for directory in (apt, wheels, efa, dest / "scratch", dest / "nccl-tests", dest / "ascend"):
        directory.mkdir(parents=True, exist_ok=True)
    compat = [
        StubPackage(name, version, files={f"/usr/local/cuda/compat/libcuda.so.{version.split('-')[0]}": ("", 0o644)})
        for name, version in CUDA_COMPAT.items()
    ]
    for package in (
        nvidia_packages() + runtime_packages() + amd_packages() + gaudi_packages() + neuron_packages() + compat
    ):
        build_deb(package, apt)
    write_index(apt)
    for version, (cuda, hip) in WHEELS.items():
        build_wheel(
            "torch",
            version,
            {"torch/__init__.py": _standin("torch_init.py", VERSION=version, CUDA=cuda, HIP=hip)},
            wheels,
        )
    _gaudi_wheels(wheels)
    _neuron_wheels(wheels)
    _ascend(dest / "ascend", wheels)
    for name, version in NCCL_WHEELS.items():
        build_wheel(name, version, {f"{name.replace('-', '_')}/__init__.py": ""}, wheels)
    for version, ofi in EFA.items():
        _efa_tarball(version, ofi, efa, dest / "scratch")
    (dest / "nccl-tests" / f"nccl-tests-{NCCL_TESTS_VERSION}.tar.gz").write_bytes(nccl_tests_tarball())
    for path in [dest, *dest.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)  # apt's _apt user reads the repository
    return dest
