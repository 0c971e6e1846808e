"""PyTorch checks: the release is known, the CUDA/ROCm build exists, the build carries code for
the GPU (binary compatibility, PTX JIT), Python wheel, glibc floor, torchvision/torchaudio pairs,
and the NCCL/cuDNN the wheel pins."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from accelplane.matrix import facts as f
from accelplane.matrix.checks.context import DATA, Context, TorchBuild, listing, series
from accelplane.matrix.checks.nvidia import _table3, judge_toolkit_arch
from accelplane.matrix.checks.published import never_released
from accelplane.matrix.facts import TorchRelease
from accelplane.matrix.findings import Verdict
from accelplane.matrix.versions import Version, parse_version

_PYPI = "registry:pypi/torch"


def release(ctx: Context) -> None:
    rule = "torch.release"
    build = ctx.torch_build
    if build is None or ctx.vendor == "intel":  # Gaudi ships Intel's own torch build (gaudi.torch)
        return
    if build.release is None:
        known = list(ctx.data.torch)
        ctx.unknown(
            rule,
            f"torch {build.version} (known {known[0]} to {known[-1]}); its wheels, builds and pins "
            "cannot be checked",
            f"{DATA}/pytorch.yaml",
            ("torch",),
        )


def build_exists(ctx: Context) -> None:
    """The CUDA/ROCm build the stack needs is published for this torch release (one judge per vendor)."""
    build = ctx.torch_build
    if build is None or build.release is None:
        return
    judge = _BUILD_JUDGES.get(ctx.vendor or "")
    if judge is not None:
        judge(ctx, build, build.release)


def _nvidia_build(ctx: Context, build: TorchBuild, rel: TorchRelease) -> None:
    rule, fields = "torch.build", ("torch", "cuda")
    if build.kind == "rocm":
        ctx.bad(
            rule,
            f"torch {build.version} is a ROCm build; {ctx.stack.accelerator.model} needs a CUDA build; "
            f"fix: torch {rel.torch}+cu{rel.pypi_cuda.replace('.', '')}",
            rel.variants_source,
            ("torch",),
        )
        return
    if build.kind == "cpu":
        ctx.add(
            rule,
            Verdict.WARN,
            f"torch {build.version} is the CPU-only build: the GPU is unused; fix: a CUDA "
            f"build (torch {rel.torch}, PyPI default CUDA {rel.pypi_cuda})",
            rel.variants_source,
            ("torch",),
        )
        return
    if build.kind != "cuda" or build.variant is None:
        return
    published = [parse_version(v) for v in rel.cuda_variants]
    if not any(build.variant.same_series(v, 2) for v in published):
        others = [
            r.torch
            for r in ctx.data.pytorch.releases
            if any(build.variant.same_series(parse_version(v), 2) for v in r.cuda_variants)
        ]
        hint = (
            f" or torch {others[-1]} (the newest with a cu{series(build.variant).replace('.', '')} build)"
            if others
            else ""
        )
        ctx.bad(
            rule,
            f"torch {rel.torch} publishes no CUDA {series(build.variant)} build (builds: "
            f"{listing('cu' + v.replace('.', '') for v in rel.cuda_variants)}); fix: CUDA "
            f"{_closest(build.variant, rel.cuda_variants)} with torch {rel.torch}{hint}",
            rel.variants_source,
            fields,
        )
        return
    cuda = ctx.stack.v("cuda")
    if build.from_label and cuda is not None and not cuda.same_series(build.variant, 2):
        _label_against_stack_cuda(ctx, build, rel, build.variant, cuda)
        return
    ctx.ok(rule, f"torch {rel.torch} publishes a CUDA {series(build.variant)} build", rel.variants_source, fields)


def _label_against_stack_cuda(
    ctx: Context, build: TorchBuild, rel: TorchRelease, variant: Version, cuda: Version
) -> None:
    """A `+cuXY` wheel beside a stack CUDA of another series: another major cannot load extensions."""
    rule, fields = "torch.build", ("torch", "cuda")
    if cuda.major != variant.major:
        ctx.bad(
            rule,
            f"torch {build.version} is built for CUDA {series(variant)} but the stack's CUDA is "
            f"{cuda}: a different major (extensions built with nvcc {series(cuda)} cannot load); fix: "
            f"torch {rel.torch}+cu{series(cuda).replace('.', '')} if published, or align cuda",
            rel.variants_source,
            fields,
        )
        return
    ctx.add(
        rule,
        Verdict.WARN,
        f"torch {build.version} bundles CUDA {series(variant)} while the "
        f"stack's CUDA is {cuda}; both run, but extensions compiled with nvcc {series(cuda)} mix "
        "runtimes; fix: align cuda with the torch build",
        rel.variants_source,
        fields,
    )


def _amd_build(ctx: Context, build: TorchBuild, rel: TorchRelease) -> None:
    rule, fields = "torch.build", ("torch", "rocm")
    if build.kind == "cuda":
        ctx.bad(
            rule,
            f"torch {build.version} is a CUDA build; {ctx.stack.accelerator.model} needs a ROCm build "
            f"(torch {rel.torch}: {listing('rocm' + v for v in rel.rocm_variants)})",
            rel.variants_source,
            ("torch",),
        )
        return
    if build.kind == "unspecified":
        ctx.add(
            rule,
            Verdict.WARN,
            f"torch {build.version} on {ctx.stack.accelerator.model}: neither rocm nor a "
            "+rocmX.Y label says which build; the PyPI default wheel is a CUDA build; fix: declare rocm "
            "or pin "
            f"torch {rel.torch}+rocm<version>",
            rel.variants_source,
            ("torch", "rocm"),
        )
        return
    if build.kind != "rocm" or build.variant is None:
        return
    variant = build.variant
    if not any(
        parse_version(v).has_prefix(variant) or variant.has_prefix(parse_version(v)) for v in rel.rocm_variants
    ):
        others = [
            r.torch
            for r in ctx.data.pytorch.releases
            if any(parse_version(v).same_series(variant, 2) for v in r.rocm_variants)
        ]
        hint = f"; torch {others[-1]} is the newest with a ROCm {series(variant)} build" if others else ""
        ctx.bad(
            rule,
            f"torch {rel.torch} publishes no ROCm {variant} build (builds: "
            f"{listing('rocm' + v for v in rel.rocm_variants)}){hint}; fix: match torch and rocm",
            rel.variants_source,
            fields,
        )
        return
    ctx.ok(rule, f"torch {rel.torch} publishes a ROCm {variant} build", rel.variants_source, fields)


def _huawei_build(ctx: Context, build: TorchBuild, rel: TorchRelease) -> None:
    if build.kind in ("cuda", "rocm"):
        ctx.bad(
            "torch.build",
            f"torch {build.version} is a {build.kind.upper()} build; torch_npu pins the CPU build of torch "
            f"(torch=={rel.torch}+cpu on x86); fix: torch {rel.torch}",
            _ASCEND_SOURCE,
            ("torch", "torch_npu"),
        )


_BUILD_JUDGES: dict[str, Callable[[Context, TorchBuild, TorchRelease], None]] = {
    "nvidia": _nvidia_build,
    "amd": _amd_build,
    "huawei": _huawei_build,
}


_ASCEND_SOURCE = "github:Ascend/pytorch@9e73e70/COMPATIBILITY.en.md"


def _closest(variant: Version, listed: tuple[str, ...]) -> str:
    same_major = [v for v in listed if parse_version(v).major == variant.major]
    return (same_major or list(listed))[-1]


# ---- binary compatibility ----------------------------------------------------------------------
@dataclass(frozen=True)
class ArchMatch:
    how: str  # "sass" | "ptx"
    entry: str


def runs_on(archs: tuple[str, ...], compute_capability: str) -> ArchMatch | None:
    """Whether a build with `archs` runs on a GPU: SASS for the same major and a minor <= the GPU's
    (arch-specific `a` builds only on that exact GPU), else PTX for a compute capability <= the GPU's,
    JIT-compiled by the driver."""
    cc = parse_version(compute_capability)
    best: tuple[int, str] | None = None
    for entry in archs:
        text = entry.removesuffix("+PTX")
        specific = text.endswith("a")
        version = parse_version(text.removesuffix("a"))
        if specific:
            if version == cc and (best is None or version.minor >= best[0]):
                best = (version.minor, entry)
            continue
        if (
            version.major == cc.major
            and version.minor <= cc.minor
            and (best is None or version.minor > best[0])
        ):
            best = (version.minor, entry)
    if best is not None:
        return ArchMatch("sass", best[1])
    ptx = [
        e
        for e in archs
        if e.endswith("+PTX") and parse_version(e.removesuffix("+PTX").removesuffix("a")) <= cc
    ]
    if ptx:
        return ArchMatch("ptx", ptx[-1])
    return None


def _arch_list(ctx: Context, rel: f.TorchRelease, variant: Version) -> f.ArchList | None:
    line = parse_version(series(parse_version(rel.torch)))
    for record in ctx.data.pytorch.arch_lists:
        if any(parse_version(t) == line for t in record.torch) and any(
            variant.same_series(parse_version(c), 2) for c in record.cuda
        ):
            return record
    return None


def gpu_arch(ctx: Context) -> None:
    rule = "torch.gpu-arch"
    build = ctx.torch_build
    acc = ctx.stack.accelerator
    if (
        ctx.vendor != "nvidia"
        or build is None
        or build.release is None
        or build.kind != "cuda"
        or build.variant is None
        or acc.compute_capability is None
    ):
        return
    rel = build.release
    cc = parse_version(acc.compute_capability)
    sm = f"sm_{cc.major}{cc.minor}"
    name = f"torch {rel.torch}+cu{series(build.variant).replace('.', '')}"
    record = _arch_list(ctx, rel, build.variant)
    fields = ("torch", "accelerator")
    if record is None:
        # No per-build list in the data: judge by what the build's CUDA toolkit can target, and say so.
        judge_toolkit_arch(
            ctx,
            rule,
            build.variant,
            f"{name} (built with CUDA {series(build.variant)})",
            fields,
            note="; the build's own arch list is not in the matrix",
        )
        return
    found = runs_on(record.archs, acc.compute_capability)
    archs = listing(("sm_" + a.replace(".", "").replace("+PTX", "+PTX")) for a in record.archs)
    if found is None:
        ctx.bad(
            rule,
            f"{name} carries no code for {acc.model} ({sm}): it ships {archs}, nothing with major {cc.major} "
            f"and no PTX it could JIT; fix: a torch build whose arch list includes {sm} (a newer release or "
            "CUDA build)",
            record.source,
            fields,
        )
        return
    entry = found.entry.removesuffix("+PTX")
    target = "sm_" + entry.replace(".", "")
    if found.how == "sass":
        if parse_version(entry.removesuffix("a")) == cc:
            how = f"native {target} code"
        else:
            how = f"its {target} code (same major {cc.major}, binary compatible)"
        ctx.ok(rule, f"{name} runs on {acc.model} ({sm}) with {how}", record.source, fields)
        return
    driver = ctx.stack.v("driver")
    row, _ = _table3(ctx, build.variant)
    if driver is not None and row is not None and driver < parse_version(row.driver):
        ctx.bad(
            rule,
            f"{name} reaches {acc.model} ({sm}) only by PTX JIT of compute_{entry.replace('.', '')}, and "
            f"driver {driver} is older than CUDA {series(build.variant)}'s {row.driver}, so it cannot JIT "
            "that PTX; "
            f"fix: driver {row.driver}+",
            record.source,
            ("torch", "driver"),
        )
        return
    ctx.add(
        rule,
        Verdict.COMPATIBLE,
        f"{name} runs on {acc.model} ({sm}) by PTX JIT of compute_"
        f"{entry.replace('.', '')} (slower first start, no tuned SASS)",
        record.source,
        fields,
    )


def python(ctx: Context) -> None:
    rule = "torch.python"
    build = ctx.torch_build
    py = ctx.stack.v("python")
    if build is None or build.release is None or py is None or ctx.vendor == "intel":
        return
    rel = build.release
    line = series(py)
    if line in rel.python:
        ctx.ok(rule, f"torch {rel.torch} has a CPython {line} wheel", rel.source, ("torch", "python"))
        return
    supporting = [r.torch for r in ctx.data.pytorch.releases if line in r.python]
    hint = f", or torch {supporting[-1]} (newest with a {line} wheel)" if supporting else ""
    ctx.bad(
        rule,
        f"torch {rel.torch} has no CPython {line} wheel (wheels: {listing(rel.python)}); fix: python "
        f"{rel.python[-1]}{hint}",
        rel.source,
        ("torch", "python"),
    )


def glibc(ctx: Context) -> None:
    rule = "torch.glibc"
    build = ctx.torch_build
    if build is None or build.release is None or ctx.vendor == "intel":
        return
    rel = build.release
    have = ctx.glibc
    if have is None:
        if ctx.stack.os is not None and "glibc" not in ctx.stack.raw:
            ctx.unknown(
                rule,
                f"{ctx.stack.os}: its glibc is not in the matrix, so torch {rel.torch}'s glibc "
                f"{rel.glibc} floor cannot be checked; fix: declare glibc",
                f"{DATA}/os.yaml",
                ("os",),
            )
        return
    version, what, _ = have
    fields = ("torch", "glibc" if "glibc" in ctx.stack.raw else "os")
    if version < parse_version(rel.glibc):
        older = [r.torch for r in ctx.data.pytorch.releases if parse_version(r.glibc) <= version]
        hint = f", or torch {older[-1]}" if older else ""
        ctx.bad(
            rule,
            f"torch {rel.torch} Linux wheels need glibc {rel.glibc}+ (manylinux tag); {what} is older; fix: "
            f"a newer OS image{hint}",
            rel.source,
            fields,
        )
        return
    ctx.ok(rule, f"{what} meets torch {rel.torch}'s glibc {rel.glibc} floor", rel.source, fields)


def companions(ctx: Context) -> None:
    build = ctx.torch_build
    if build is None or build.release is None:
        return
    rel = build.release
    for key, allowed in (("torchvision", rel.torchvision), ("torchaudio", rel.torchaudio)):
        rule = f"torch.{key}"
        version = ctx.stack.v(key)
        if version is None:
            continue
        fields = ("torch", key)
        if any(version == parse_version(v) for v in allowed):
            ctx.ok(rule, f"{key} {version} pairs with torch {rel.torch}", rel.source, fields)
            continue
        if not allowed:
            ctx.add(
                rule,
                Verdict.WARN,
                f"no {key} release pairs with torch {rel.torch} ({key} is in maintenance; its "
                f"last release declares only a lower bound on torch); fix: drop {key} or pin torch 2.11.0 "
                "with "
                f"{key} 2.11.0",
                rel.source,
                fields,
            )
            continue
        if never_released(ctx, key, version) is not None:
            continue  # release.<key> judges it: it cannot be installed
        known = any(version == parse_version(v) for r in ctx.data.pytorch.releases for v in getattr(r, key))
        if not known:
            ctx.unknown(
                rule,
                f"{key} {version}; torch {rel.torch} pairs with {key} {listing(allowed)}",
                f"{DATA}/pytorch.yaml",
                fields,
            )
            continue
        pairs = [
            r.torch
            for r in ctx.data.pytorch.releases
            if any(version == parse_version(v) for v in getattr(r, key))
        ]
        ctx.bad(
            rule,
            f"{key} {version} is built for torch {listing(pairs)}, not torch {rel.torch}; fix: {key} "
            f"{allowed[-1]} with torch {rel.torch}",
            rel.source,
            fields,
        )


def pinned_libraries(ctx: Context) -> None:
    """NCCL and cuDNN declared in the stack must be the ones the torch wheel pins (pip installs
    exactly one of each; a different version is a resolver conflict)."""
    build = ctx.torch_build
    if (
        ctx.vendor != "nvidia"
        or build is None
        or build.release is None
        or build.kind != "cuda"
        or build.variant is None
    ):
        return
    rel = build.release
    pins: dict[str, tuple[str | None, str]] = {}
    if build.variant.same_series(parse_version(rel.pypi_cuda), 2):
        pins = {"nccl": (rel.nccl, rel.source), "cudnn": (rel.cudnn, rel.source)}
    else:
        line = parse_version(series(parse_version(rel.torch)))
        for record in ctx.data.pytorch.variant_pins:
            if parse_version(record.torch) == line and build.variant.same_series(
                parse_version(record.cuda), 2
            ):
                pins = {"nccl": (record.nccl, record.source), "cudnn": (record.cudnn, record.source)}
    name = f"torch {rel.torch}+cu{series(build.variant).replace('.', '')}"
    for key in ("nccl", "cudnn"):
        rule = f"torch.{key}-pin"
        version = ctx.stack.v(key)
        if version is None:
            continue
        pin, source = pins.get(key, (None, f"{DATA}/pytorch.yaml"))
        fields = ("torch", key)
        if pin is None:
            ctx.unknown(
                rule,
                f"the {key} pin of {name} (only the PyPI default build's pins and a few RELEASE.md "
                f"entries are known); stack {key} {version} cannot be checked against it",
                source,
                fields,
            )
            continue
        package = f"nvidia-{key}-cu{build.variant.major}"
        if version == parse_version(pin) or (
            key == "cudnn" and parse_version(pin).has_prefix(version) and len(version.release) >= 3
        ):
            ctx.ok(rule, f"{key} {version} is the version {name} pins ({package}=={pin})", source, fields)
            continue
        ctx.bad(
            rule,
            f"{name} pins {package}=={pin}; the stack pins {key} {version} - pip cannot install both, and "
            f'torch loads its own; fix: {key}: "{pin}" (or drop the {key} pin)',
            source,
            fields,
        )


CHECKS = (release, build_exists, gpu_arch, python, glibc, companions, pinned_libraries)
