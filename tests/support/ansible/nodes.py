"""Lab nodes: a fresh overlayfs copy of the cached Debian root per node, with the lab repository
bind-mounted read-only at /srv/accelplane-lab, /proc mounted, and the simulated hardware.

With `compile_cache` (the tests' default), the node's system Python keeps the code it compiles from
Ansible's module payloads in a directory all lab nodes share (node_python/accelplane_lab_pyc.py says
why: about 150 ms of node CPU per task); the node-software bench starts its nodes without it, so its
figures are what a real host pays.

`hardware.json` lists the GPUs the stand-ins report (nvidia-smi, rocm-smi, torch.cuda), the
bus bandwidth all_reduce_perf prints and the DCGM diagnostics that fail (`dcgm_failures`).
`snapshot()` keeps a node's upper layer so that later nodes can start from an applied state
without running the playbook again.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.ansible.catalog import STANDINS

LAB_MOUNT = "srv/accelplane-lab"
PYC_MOUNT = "var/cache/accelplane-lab-pyc"
PYC_HOOK = Path(__file__).with_name("node_python") / "accelplane_lab_pyc.py"
# Shared by every lab node of this machine; keyed by source hash, so any run may read what another wrote.
PYC_CACHE = Path("/var/cache/accelplane-test/lab-pyc")

HARDWARE = {
    "nvidia": {
        "gpus": [
            {
                "name": "NVIDIA H100 80GB HBM3",
                "uuid": f"GPU-{uuid.UUID(int=index + 1)}",
                "pci_bus_id": f"00000000:{0x18 + 0x10 * index:02X}:00.0",
                "memory_mib": 81559,
            }
            for index in range(8)
        ],
        "bus_bandwidth_gbps": 356.42,
    },
    "amd": {
        "gpus": [{"name": "AMD Instinct MI300X OAM", "gfx_target": "gfx942"} for _ in range(8)],
        "bus_bandwidth_gbps": 310.5,
    },
    # Accelerators that are not GPUs list `devices`: torch.cuda sees none of them.
    "intel": {"devices": [{"name": "HL-325L", "memory_mib": 131072} for _ in range(8)]},
    # Atlas 800T A2: 8 Ascend 910B NPUs (npu-smi names them 910B3) of 64 GiB HBM each.
    "huawei": {"devices": [{"name": "910B3", "hbm_mib": 65536} for _ in range(8)]},
    # trn2.48xlarge: 16 Trainium2 devices of 8 NeuronCores and 96 GiB each.
    "aws": {"devices": [{"nc_count": 8, "memory_size": 96 * 2**30} for _ in range(16)]},
}


@dataclass
class LabNode:
    name: str
    base: Path
    mounts: list[Path] = field(default_factory=list)

    @property
    def root(self) -> Path:
        return self.base / "merged"

    @property
    def upper(self) -> Path:
        return self.base / "upper"

    def path(self, inside: str) -> Path:
        return self.root / inside.lstrip("/")

    def run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """A command inside the node (what an operator would type on it)."""
        return subprocess.run(
            ["chroot", str(self.root), *argv],
            capture_output=True,
            text=True,
            check=check,
            env={"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
        )

    def installed(self) -> dict[str, tuple[str, str]]:
        """package -> (version, dpkg status abbreviation; 'hi' = held and installed)."""
        out = self.run("dpkg-query", "-W", "-f=${Package}\t${Version}\t${db:Status-Abbrev}\n").stdout
        return {p: (v, s.strip()) for p, v, s in (line.split("\t") for line in out.splitlines())}


def _mount(argv: list[str]) -> None:
    subprocess.run(["mount", *argv], check=True, capture_output=True)


def start_node(
    name: str, workdir: Path, lower: Path, lab: Path, vendor: str, from_snapshot: Path | None = None,
    *, compile_cache: bool = True,
) -> LabNode:
    node = LabNode(name, workdir / name)
    for part in ("upper", "work", "merged"):
        (node.base / part).mkdir(parents=True, exist_ok=True)
    if from_snapshot is not None:
        subprocess.run(["cp", "-a", f"{from_snapshot}/.", str(node.upper)], check=True)
    _mount(
        [
            "-t",
            "overlay",
            "overlay",
            "-o",
            f"lowerdir={lower},upperdir={node.upper},workdir={node.base / 'work'}",
            str(node.root),
        ]
    )
    node.mounts.append(node.root)
    try:
        target = node.path(LAB_MOUNT)
        target.mkdir(parents=True, exist_ok=True)
        _mount(["--bind", "-o", "ro", str(lab), str(target)])
        node.mounts.append(target)
        _mount(["-t", "proc", "proc", str(node.path("proc"))])
        node.mounts.append(node.path("proc"))
        if compile_cache:
            _share_compiled_modules(node)
        if from_snapshot is None:
            _install_lab_files(node, vendor)
    except Exception:
        stop_node(node)
        raise
    return node


def _share_compiled_modules(node: LabNode) -> None:
    packages = node.path("usr/lib/python3/dist-packages")
    shutil.copy2(PYC_HOOK, packages / PYC_HOOK.name)
    (packages / "accelplane_lab_pyc.pth").write_text("import accelplane_lab_pyc\n")
    PYC_CACHE.mkdir(parents=True, exist_ok=True)
    target = node.path(PYC_MOUNT)
    target.mkdir(parents=True, exist_ok=True)
    _mount(["--bind", str(PYC_CACHE), str(target)])
    node.mounts.append(target)
    # The hook's own bytecode, written now: the first Python a playbook runs would write it into the
    # node's upper layer, which the tests compare before and after a run that must write nothing.
    node.run("python3", "-c", "import accelplane_lab_pyc")


def _install_lab_files(node: LabNode, vendor: str) -> None:
    node.path("etc/lab").mkdir(parents=True, exist_ok=True)
    node.path("etc/lab/hardware.json").write_text(json.dumps(HARDWARE[vendor], indent=1) + "\n")
    node.path("var/lib/lab").mkdir(parents=True, exist_ok=True)
    node.path("var/lib/lab/boot_id").write_text(str(uuid.uuid4()) + "\n")
    # all_reduce_perf is not here: the nccl_tests role builds it from the lab's source tarball.
    standins = (("lab-reboot", "usr/local/sbin"), ("dcgmi", "usr/local/bin"))
    for name, where in standins:
        shutil.copy2(STANDINS / name, node.path(f"{where}/{name}"))
        node.path(f"{where}/{name}").chmod(0o755)


def stop_node(node: LabNode) -> None:
    for mount in reversed(node.mounts):
        if subprocess.run(["umount", str(mount)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(mount)], capture_output=True)
    node.mounts.clear()


def snapshot(node: LabNode, dest: Path) -> Path:
    """Copy the node's upper layer (everything the playbooks wrote) to `dest`."""
    dest.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cp", "-a", f"{node.upper}/.", str(dest)], check=True)
    return dest
