"""`matrix show`: what the matrix knows for one accelerator, as plain tables (title, header, rows).

Rendering is the CLI's job; this module only selects and orders facts.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from accelplane.matrix.checks.context import series
from accelplane.matrix.checks.torch import runs_on
from accelplane.matrix.loader import MatrixData, load
from accelplane.matrix.schema import AcceleratorFacts, Vendor
from accelplane.matrix.versions import parse_version


@dataclass(frozen=True)
class Table:
    title: str
    header: tuple[str, ...]
    rows: list[tuple[str, ...]]


def package_releases(name: str) -> Table | None:
    """The releases the data knows of a package (`published.yaml`, torch from `pytorch.yaml`, jax from
    `tpu.yaml`): a user sees the nearest real version. None when the data holds no list for it."""
    data = load()
    wanted = name.replace("_", "-").lower()
    for record in data.published.packages:
        if wanted in (record.package.lower(), record.key.replace("_", "-").lower()):
            rows = [("releases", ", ".join(record.versions)),
                    ("window", f"{record.known_from} to {record.known_until} (a version inside it that is not listed "
                               "was never released)"),
                    ("source", record.source)]
            if record.closed is not None:
                rows.append(("closed", f"{record.closed.reason} (as of {record.closed.as_of}; {record.closed.source})"))
            return Table(f"{record.package} releases", ("fact", "value"), rows)
    lists = {"torch": ([r.torch for r in data.pytorch.releases], "pytorch.yaml"),
             "jax": ([r.jax for r in data.tpu.jax], "tpu.yaml")}
    if wanted in lists:
        versions, file = lists[wanted]
        return Table(f"{wanted} releases in the matrix", ("fact", "value"),
                     [("releases", ", ".join(versions)), ("source", f"accelplane/matrix/data/{file}")])
    return None


def package_names() -> list[str]:
    data = load()
    return sorted({p.package for p in data.published.packages} | {"torch", "jax"})


def tables(acc: AcceleratorFacts, as_of: dt.date | None = None) -> list[Table]:
    data = load()
    when = as_of or dt.date.today()
    out = [_summary(acc, data)]
    builders = {
        "nvidia": _nvidia,
        "amd": _amd,
        Vendor.NEURON: _neuron,
        "google": _tpu,
        "intel": _gaudi,
        "huawei": _ascend,
    }
    out.extend(builders[acc.vendor.value](data, acc, when))
    return out


def _summary(acc: AcceleratorFacts, data: MatrixData) -> Table:
    rows = [("name", acc.name), ("vendor", acc.vendor.value), ("model", acc.model)]
    if acc.product_names:
        tool = "nvidia-smi name" if acc.vendor.value == "nvidia" else "device name (whole word)"
        rows.append((tool, " | ".join(acc.product_names) + (f"  [{acc.product_names_source}]"
                                                            if acc.product_names_source else "")))
    if acc.architecture:
        rows.append(("architecture", acc.architecture))
    if acc.compute_capability:
        rows.append(
            ("compute capability", f"{acc.compute_capability} (sm_{acc.compute_capability.replace('.', '')})")
        )
    if acc.gfx_target:
        rows.append(("LLVM target", acc.gfx_target))
    if acc.vendor.value == "nvidia":
        rows.append(
            ("NVSwitch / Fabric Manager", "yes - fabric_manager must equal driver" if acc.nvswitch else "no")
        )
        rows.append(("kernel modules", ", ".join(k.value for k in acc.kernel_modules)))
        if acc.segment is not None:
            rows.append(("segment", acc.segment.value))
        rows.append(
            (
                "forward compatibility",
                "cuda-compat packages supported" if acc.forward_compat else "no (data-centre GPUs only)",
            )
        )
        arch = data.architecture(acc.compute_capability) if acc.compute_capability else None
        if arch is not None and arch.last_driver_branch is not None:
            rows.append(
                (
                    "retired",
                    f"last driver branch R{arch.last_driver_branch}, last CUDA {arch.last_cuda or '?'} "
                    f"(dropped in CUDA {arch.dropped_in_cuda})",
                )
            )
    for label, value in (
        ("Neuron platform", acc.neuron_platform),
        ("TPU runtime", acc.tpu_runtime),
        ("Gaudi device", acc.gaudi_device),
        ("Ascend chip", acc.ascend_chip),
    ):
        if value:
            rows.append((label, value))
    if acc.instance_types:
        rows.append(("instance types", ", ".join(acc.instance_types)))
    rows.append(("source", acc.source))
    return Table(acc.name, ("fact", "value"), rows)


def _nvidia(data: MatrixData, acc: AcceleratorFacts, when: dt.date) -> list[Table]:
    assert acc.compute_capability is not None
    arch = data.architecture(acc.compute_capability)
    assert arch is not None
    first, dropped = parse_version(arch.first_cuda), arch.dropped_in_cuda
    cuda_rows: list[tuple[str, ...]] = []
    for cuda, driver, _ in data.cuda_rows:
        supported = cuda >= first and (dropped is None or cuda < parse_version(dropped))
        if supported:
            cuda_rows.append((str(cuda), str(driver)))
    first_rows = [driver for cuda, driver, _ in data.cuda_rows if cuda >= first]
    first_branch = first_rows[0].major if first_rows and first > data.cuda_rows[0][0] else 0
    branches: list[tuple[str, ...]] = []
    for record in data.nvidia.driver_branches:
        if arch.last_driver_branch is not None and record.branch > arch.last_driver_branch:
            status = f"does not support {arch.name}"
        elif record.branch < first_branch:
            status = f"predates {arch.name} (needs R{first_branch}+)"
        elif record.eol_date is not None and record.eol_date <= when:
            status = f"end of life ({record.eol})"
        else:
            status = f"supported until {record.eol}" if record.eol else "supported (no EOL date sourced)"
        branches.append((f"R{record.branch}", record.designation, f"CUDA {record.max_cuda_major}", status))
    torch_rows: list[tuple[str, ...]] = []
    for rel in reversed(data.pytorch.releases):
        builds = []
        for variant in rel.cuda_variants:
            record = next(
                (
                    r
                    for r in data.pytorch.arch_lists
                    if any(
                        parse_version(t) == parse_version(series(parse_version(rel.torch))) for t in r.torch
                    )
                    and any(parse_version(c).same_series(parse_version(variant), 2) for c in r.cuda)
                ),
                None,
            )
            if record is None:
                mark = "?"
            else:
                found = runs_on(record.archs, acc.compute_capability)
                mark = "no" if found is None else ("ptx" if found.how == "ptx" else "yes")
            builds.append(f"cu{variant.replace('.', '')}:{mark}")
        torch_rows.append(
            (
                rel.torch,
                " ".join(builds),
                f"{rel.python[0]}-{rel.python[-1]}",
                rel.nccl or "-",
                f"glibc {rel.glibc}",
            )
        )
    return [
        Table(
            f"CUDA toolkits that target {arch.name} (sm_{acc.compute_capability.replace('.', '')}) and their "
            "minimum driver",
            ("cuda", "min driver"),
            cuda_rows[::-1],
        ),
        Table(f"Driver branches (as of {when})", ("branch", "kind", "max CUDA", "status"), branches[::-1]),
        Table(
            "PyTorch builds (arch code for this GPU: yes / ptx / no / ? = arch list not in the matrix)",
            ("torch", "CUDA builds", "python", "NCCL pin", "wheel needs"),
            torch_rows,
        ),
    ]


def _amd(data: MatrixData, acc: AcceleratorFacts, when: dt.date) -> list[Table]:
    rows = []
    for rocm in reversed(data.rocm.releases):
        if acc.gfx_target not in rocm.gpu_targets:
            continue
        if rocm.products is not None and acc.name not in rocm.products:
            continue  # the release names its GPUs, and this one is not among them
        line = parse_version(series(parse_version(rocm.rocm)))
        torches = [
            r.torch
            for r in data.pytorch.releases
            if any(parse_version(v).has_prefix(line) for v in r.rocm_variants)
        ]
        rows.append(
            (
                rocm.rocm,
                ", ".join(rocm.os),
                ", ".join(torches) or "-",
                ", ".join(rocm.pytorch_validated) or "-",
                rocm.rccl or "-",
            )
        )
    return [
        Table(
            f"ROCm releases that support {acc.model} ({acc.gfx_target})",
            ("rocm", "os", "pytorch.org builds", "AMD-validated torch", "RCCL"),
            rows,
        )
    ]


def _neuron(data: MatrixData, acc: AcceleratorFacts, when: dt.date) -> list[Table]:
    rows = []
    for release in reversed(data.neuron.releases):
        if acc.neuron_platform not in release.instances:
            continue
        listed = release.torch_neuron if acc.neuron_platform == "inf1" else release.torch_neuronx
        packages = [p for p in listed if acc.neuron_platform in p.instances]
        text = ", ".join(p.version + (".x" if p.match == "series" else "") for p in packages) or "-"
        pythons = sorted({py for p in packages for py in (p.python or ())}, key=parse_version)
        rows.append((release.sdk, release.driver or "-", text, ", ".join(pythons) or "-"))
    return [
        Table(
            f"Neuron SDK releases for {acc.neuron_platform}",
            ("sdk", "driver", "torch-neuron" if acc.neuron_platform == "inf1" else "torch-neuronx", "python"),
            rows,
        )
    ]


def _tpu(data: MatrixData, acc: AcceleratorFacts, when: dt.date) -> list[Table]:
    jax_rows = [
        (
            r.jax,
            f"{r.jaxlib_min}-{r.jaxlib_max}",
            r.libtpu + (".*" if r.libtpu_match == "series" else ""),
            f">={r.python_min}",
        )
        for r in reversed(data.tpu.jax)
    ]
    xla_rows = [
        (
            r.torch_xla + (".x" if r.match == "series" else ""),
            f"{series(parse_version(r.torch_xla))}.x",
            r.libtpu,
            ", ".join(r.python),
        )
        for r in reversed(data.tpu.torch_xla)
    ]
    return [
        Table(
            f"JAX on {acc.model} (runtime {acc.tpu_runtime})", ("jax", "jaxlib", "libtpu", "python"), jax_rows
        ),
        Table("PyTorch/XLA", ("torch_xla", "torch", "libtpu", "python"), xla_rows),
    ]


def _gaudi(data: MatrixData, acc: AcceleratorFacts, when: dt.date) -> list[Table]:
    rows = []
    for release in reversed(data.gaudi.releases):
        if release.devices is not None and acc.gaudi_device not in release.devices:
            continue
        systems = (
            ", ".join(o.os + (f" (py {'/'.join(o.python)})" if o.python else "") for o in release.os or ())
            or "?"
        )
        rows.append(
            (
                release.gaudi_sw + (".x" if release.match == "series" else ""),
                release.torch,
                systems,
                "yes" if release.devices else "not recorded",
            )
        )
    return [
        Table(f"Intel Gaudi software for {acc.model}", ("gaudi_sw", "torch", "os", "device listed"), rows)
    ]


def _ascend(data: MatrixData, acc: AcceleratorFacts, when: dt.date) -> list[Table]:
    chip = next((c for c in data.ascend.chips if c.chip == acc.ascend_chip), None)
    first = parse_version(chip.first_cann) if chip is not None and chip.first_cann else None
    rows = [
        (r.cann, ", ".join(r.torch_npu))
        for r in reversed(data.ascend.cann)
        if first is None or parse_version(r.cann) >= first
    ]
    family = f" ({chip.family})" if chip is not None else ""
    return [Table(f"CANN releases and the torch_npu builds they support{family}", ("cann", "torch_npu"), rows)]
