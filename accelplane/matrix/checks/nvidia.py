"""NVIDIA checks: CUDA vs driver (with minor-version and forward compatibility), toolkit vs GPU
architecture, driver vs GPU, kernel module flavour, Fabric Manager, driver branch lifecycle, CUDA vs
OS, cuDNN."""

from __future__ import annotations

from accelplane.matrix import facts as f
from accelplane.matrix.checks.context import Context, listing, month_name, series
from accelplane.matrix.findings import Verdict
from accelplane.matrix.schema import KernelModule
from accelplane.matrix.versions import Version, parse_version


def _table3(ctx: Context, cuda: Version) -> tuple[f.CudaDriverRow | None, bool]:
    """Table-3 row for `cuda`: (row, exact). Same major.minor only; a patch newer than the data is
    judged by the newest row of its line (exact=False)."""
    rows = [(c, r) for c, _, r in ctx.data.cuda_rows if c.same_series(cuda, 2)]
    if not rows:
        return None, False
    for version, row in rows:
        if version == cuda:
            return row, True
    older = [row for version, row in rows if version <= cuda]
    return (older[-1] if older else rows[0][1]), False


def newest_cuda_for(ctx: Context, driver: Version) -> Version | None:
    """The newest toolkit whose Table-3 minimum the driver meets."""
    best = None
    for cuda, minimum, _ in ctx.data.cuda_rows:
        if driver >= minimum:
            best = cuda
    return best


_CUDA_DRIVER = "nvidia.cuda-driver"
# NVIDIA's CUDA Compatibility guide: each CUDA release's minimum driver (why a driver must be known).
CUDA_COMPATIBILITY = "https://docs.nvidia.com/deploy/cuda-compatibility/"


def cuda_driver(ctx: Context) -> None:
    """Every CUDA runtime of the stack runs on its driver: natively, under minor-version
    compatibility, through a forward-compatibility package, or not at all."""
    driver = ctx.stack.v("driver")
    if ctx.vendor != "nvidia":
        return
    if driver is None:
        # Never a silent pass: a stack with CUDA and no driver (a pool whose driver its managed platform
        # picks for the node version, a profile that leaves it out) cannot be judged on it, and says so.
        runtimes = [what for _, what, _ in ctx.cuda_runtimes()]
        if runtimes:
            ctx.unknown(_CUDA_DRIVER, f"no driver in the stack: whether it runs {', '.join(runtimes)} is unknown "
                        "(declare the driver the nodes run, or the platform that decides it must say which)",
                        CUDA_COMPATIBILITY, ("driver",))
        return
    compat = ctx.stack.compat_package
    acc = ctx.stack.accelerator
    if compat is not None and not acc.forward_compat:
        ctx.bad(
            _CUDA_DRIVER,
            f"cuda-compat-{compat.major}-{compat.minor} (forward compatibility) is supported only on data-center "
            f"GPUs; {acc.model} is a {acc.segment.value if acc.segment else 'non-data-center'} part, where CUDA "
            "refuses to initialise with the compat libraries (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE); fix: "
            "remove compat_package and use a driver that supports the CUDA runtime natively",
            ctx.data.nvidia.forward_compat.source,
            ("compat_package", "accelerator"),
        )
    for cuda, what, fields in ctx.cuda_runtimes():
        _runtime_on_driver(ctx, driver, compat, cuda, what, fields)


def _runtime_on_driver(
    ctx: Context, driver: Version, compat: Version | None, cuda: Version, what: str, fields: tuple[str, ...]
) -> None:
    row, exact = _table3(ctx, cuda)
    floor = ctx.data.minor_floor.get(cuda.major)
    if row is None:
        newest = ctx.data.cuda_rows[-1][0]
        ctx.unknown(
            _CUDA_DRIVER,
            f"{what} has no driver row (Table 3 known from {ctx.data.cuda_rows[0][0]} to {newest}); "
            f"the minimum driver for it cannot be checked",
            f"{_DATA}/nvidia.yaml",
            fields,
        )
        if floor is not None and driver < parse_version(floor.driver_floor):
            ctx.bad(
                _CUDA_DRIVER,
                f"driver {driver} is below {floor.driver_floor}, the floor for any CUDA {cuda.major}.x "
                f"runtime, so {what} cannot run; fix: upgrade the driver to a branch that supports "
                f"CUDA {cuda.major}",
                floor.source,
                fields,
            )
        return
    approx = "" if exact else f" (CUDA {cuda} is not in Table 3; judged by {row.cuda})"
    if not exact:
        ctx.unknown(
            _CUDA_DRIVER, f"CUDA {cuda} is newer than the matrix's {row.cuda} row; judged by that row", row.source,
            fields,
        )
    if driver >= parse_version(row.driver):
        ctx.ok(_CUDA_DRIVER, f"driver {driver} meets {what}'s minimum {row.driver}{approx}", row.source, fields)
        if compat is not None:
            _compat_not_needed(ctx, driver, compat)
        return
    if floor is not None and driver >= parse_version(floor.driver_floor):
        ctx.add(
            _CUDA_DRIVER,
            Verdict.CONDITIONAL,
            f"driver {driver} is below {what}'s minimum {row.driver}{approx}; it runs only under CUDA "
            f"minor-version compatibility (driver >= {floor.driver_floor} for CUDA {cuda.major}.x): "
            "features "
            f"that need the newer driver fail and PTX built by CUDA {series(cuda)} cannot be "
            "JIT-compiled; "
            f"fix: upgrade the driver to {row.driver} or newer",
            floor.source,
            fields,
        )
        return
    if compat is not None:
        _through_compat(ctx, driver, compat, cuda, what, fields, row.driver)
        return
    native = newest_cuda_for(ctx, driver)
    alternative = f", or use CUDA {series(native)} which driver {driver} supports" if native else ""
    floor_text = (
        f" (minor-version compatibility for CUDA {cuda.major}.x needs >= {floor.driver_floor})" if floor else ""
    )
    ctx.bad(
        _CUDA_DRIVER,
        f"driver {driver} is too old for {what}: needs {row.driver} or newer{floor_text}; fix: upgrade "
        f"the driver to {row.driver}+, install cuda-compat-{cuda.major}-{cuda.minor} (data-center GPUs)"
        f"{alternative}",
        row.source,
        fields,
    )


def _compat_not_needed(ctx: Context, driver: Version, compat: Version) -> None:
    native = newest_cuda_for(ctx, driver)
    if native is not None and compat <= parse_version(series(native)):
        ctx.add(
            _CUDA_DRIVER,
            Verdict.WARN,
            f"compat_package cuda-compat-{compat.major}-{compat.minor} is not needed: driver "
            f"{driver} "
            f"already runs CUDA {series(native)}; a compat package older than the driver shadows "
            "its libcuda - remove it",
            ctx.data.nvidia.forward_compat.source,
            ("compat_package", "driver"),
        )


def _through_compat(
    ctx: Context, driver: Version, compat: Version, cuda: Version, what: str, fields: tuple[str, ...], needed: str
) -> None:
    """A driver too old for the runtime, with a forward-compatibility package declared."""
    package = f"cuda-compat-{compat.major}-{compat.minor}"
    source = ctx.data.nvidia.forward_compat.source
    if compat.major != cuda.major or compat < parse_version(series(cuda)):
        ctx.bad(
            _CUDA_DRIVER,
            f"{package} provides the CUDA {series(compat)} driver API but {what} needs "
            f"{series(cuda)}; fix: install cuda-compat-{cuda.major}-{cuda.minor} or upgrade the "
            "driver "
            f"to {needed}",
            source,
            ("compat_package", *fields),
        )
    elif not ctx.stack.accelerator.forward_compat:
        ctx.bad(
            _CUDA_DRIVER,
            f"{package} lets CUDA {series(cuda)} run on driver {driver} only on data-center GPUs; "
            f"{ctx.stack.accelerator.model} is not one; fix: upgrade the driver to {needed}",
            source,
            ("compat_package", *fields),
        )
    else:
        ctx.add(
            _CUDA_DRIVER,
            Verdict.CONDITIONAL,
            f"driver {driver} is older than {what} needs ({needed}); it runs only through the "
            f"forward-compatibility package {package} (data-center GPUs; the package must match the "
            "toolkit and is unsupported with newer drivers); fix for a plain setup: driver "
            f"{needed}+",
            source,
            ("compat_package", *fields),
        )


def cuda_arch(ctx: Context) -> None:
    """The stack's CUDA toolkit must target the GPU's architecture (first toolkit, dropped in)."""
    rule = "nvidia.cuda-arch"
    cuda = ctx.stack.v("cuda")
    acc = ctx.stack.accelerator
    if ctx.vendor != "nvidia" or cuda is None or acc.compute_capability is None:
        return
    judge_toolkit_arch(ctx, rule, cuda, f"CUDA {cuda}", ("cuda", "accelerator"))


def judge_toolkit_arch(
    ctx: Context, rule: str, cuda: Version, what: str, fields: tuple[str, ...], note: str = ""
) -> bool:
    """Judge whether toolkit `cuda` can produce code for the accelerator; `note` is appended to the
    message (used when this stands in for a build's unknown arch list)."""
    acc = ctx.stack.accelerator
    assert acc.compute_capability is not None
    arch = ctx.data.architecture(acc.compute_capability)
    assert arch is not None  # load() guarantees every NVIDIA accelerator has one
    cc = parse_version(acc.compute_capability)
    sm = f"sm_{cc.major}{cc.minor}"
    if arch.dropped_in_cuda and cuda >= parse_version(arch.dropped_in_cuda):
        ctx.bad(
            rule,
            f"{what} no longer supports {arch.name.title()} ({acc.model}, {sm}): removed in CUDA "
            f"{arch.dropped_in_cuda}; fix: stay on CUDA "
            f"{arch.last_cuda or str(int(parse_version(arch.dropped_in_cuda).major) - 1) + '.x'}, the last "
            f"toolkit for it (driver branch R{arch.last_driver_branch} or older){note}",
            arch.source,
            fields,
        )
        return False
    if cuda < parse_version(arch.first_cuda):
        # Same-major binary compatibility: code for the newest older minor the toolkit targets runs here.
        candidates = [
            candidate
            for other in ctx.data.nvidia.architectures
            if cuda >= parse_version(other.first_cuda) and not other.integrated
            for candidate in map(parse_version, other.compute_capabilities)
            if candidate.major == cc.major and candidate.minor < cc.minor
        ]
        if candidates:
            best = max(candidates)
            ctx.ok(
                rule,
                f"{what} predates native {sm} support (first in CUDA {arch.first_cuda}); its "
                f"sm_{best.major}{best.minor} code runs on {sm} (same major, binary compatible){note}",
                arch.source,
                fields,
            )
            return True
        ctx.bad(
            rule,
            f"{what} cannot target {acc.model} ({sm}): {arch.name.title()} needs CUDA {arch.first_cuda} or "
            f"newer; fix: use CUDA {arch.first_cuda}+{note}",
            arch.source,
            fields,
        )
        return False
    ctx.ok(
        rule,
        f"{what} supports {arch.name.title()} ({sm}, first in CUDA {arch.first_cuda}){note}",
        arch.source,
        fields,
    )
    return True


def driver_gpu(ctx: Context) -> None:
    """The driver branch must support the GPU: not past the architecture's last branch, not
    older than the architecture's first toolkit's driver, and any platform minimum."""
    rule = "nvidia.driver-gpu"
    driver = ctx.stack.v("driver")
    acc = ctx.stack.accelerator
    if ctx.vendor != "nvidia" or driver is None or acc.compute_capability is None:
        return
    arch = ctx.data.architecture(acc.compute_capability)
    assert arch is not None
    fields = ("driver", "accelerator")
    if arch.last_driver_branch is not None and driver.major > arch.last_driver_branch:
        ctx.bad(
            rule,
            f"driver {driver} (R{driver.major}) does not support {arch.name.title()} ({acc.model}); the last "
            f"branch for it is R{arch.last_driver_branch}; fix: use an R{arch.last_driver_branch} driver",
            arch.source,
            fields,
        )
        return
    first_row, _ = _table3(ctx, parse_version(arch.first_cuda))
    # A first toolkit older than Table 3 (Volta: CUDA 9.0) gives no floor: every listed driver is newer.
    if first_row is not None and driver < parse_version(first_row.driver):
        ctx.bad(
            rule,
            f"driver {driver} predates {arch.name.title()} ({acc.model}): its first toolkit CUDA "
            f"{arch.first_cuda} needs driver {first_row.driver}+; fix: upgrade the driver",
            first_row.source,
            fields,
        )
        return
    for minimum in ctx.data.nvidia.platform_driver_minimum:
        if minimum.accelerator == acc.name and driver < parse_version(minimum.driver):
            ctx.bad(
                rule,
                f"{acc.model} needs driver {minimum.driver} or newer; the stack pins {driver}; fix: upgrade "
                f"the driver to {minimum.driver}+",
                minimum.source,
                fields,
            )
            return
    ctx.ok(
        rule,
        f"driver {driver} (R{driver.major}) supports {acc.model} ({arch.name.title()})",
        arch.source,
        fields,
    )


def kernel_module(ctx: Context) -> None:
    rule = "nvidia.kernel-module"
    acc = ctx.stack.accelerator
    if ctx.vendor != "nvidia":
        return
    facts = ctx.data.nvidia.kernel_modules
    source = acc.kernel_modules_source or facts.source
    flavour = ctx.stack.kernel_module
    driver = ctx.stack.v("driver")
    branch = driver.major if driver is not None else None
    supported = [k.value for k in acc.kernel_modules]
    if flavour is KernelModule.OPEN and branch is not None and branch < facts.open_since_branch:
        ctx.bad(
            rule,
            f"open kernel modules exist from R{facts.open_since_branch}; driver {driver} has only the "
            f"proprietary flavour; fix: driver R{facts.open_since_branch}+ or kernel_module: proprietary",
            facts.source,
            ("kernel_module", "driver"),
        )
        return
    if flavour is not None:
        if flavour not in acc.kernel_modules:
            ctx.bad(
                rule,
                f"{acc.model} supports only the {listing(supported)} kernel module flavour; the stack "
                f"declares {flavour.value}; fix: kernel_module: {supported[0]}",
                source,
                ("kernel_module",),
            )
        else:
            ctx.ok(
                rule,
                f"{flavour.value} kernel modules are supported on {acc.model}",
                source,
                ("kernel_module",),
            )
        return
    if branch is None:
        return
    default = KernelModule.OPEN if branch >= facts.open_default_since_branch else KernelModule.PROPRIETARY
    if default not in acc.kernel_modules:
        ctx.add(
            rule,
            Verdict.WARN,
            f"kernel_module is not declared; R{branch} installs the {default.value} flavour by default, "
            "which "
            f"{acc.model} does not support; fix: declare kernel_module: {supported[0]}",
            source,
            ("kernel_module", "driver"),
        )


def fabric_manager(ctx: Context) -> None:
    rule = "nvidia.fabric-manager"
    acc = ctx.stack.accelerator
    if ctx.vendor != "nvidia":
        return
    policy = ctx.data.nvidia.fabric_manager
    fm = ctx.stack.v("fabric_manager")
    driver = ctx.stack.v("driver")
    fields = ("fabric_manager", "driver")
    if not acc.nvswitch:
        if fm is not None:
            ctx.add(
                rule,
                Verdict.WARN,
                f"{acc.model} has no NVSwitch: Fabric Manager {fm} is not needed (the service "
                "fails to start without NVSwitch); fix: remove fabric_manager",
                policy.source,
                ("fabric_manager",),
            )
        return
    if fm is None:
        if driver is not None:
            ctx.bad(
                rule,
                f"{acc.model} is an NVSwitch system: it needs nvidia-fabricmanager equal to the driver "
                f'({driver}), and none is declared; fix: fabric_manager: "{driver}"',
                policy.source,
                fields,
            )
        return
    if driver is None:
        ctx.add(
            rule,
            Verdict.WARN,
            f"fabric_manager {fm} is declared without a driver, so it cannot be checked "
            "against it; fix: declare the driver",
            policy.source,
            fields,
        )
        return
    if fm.release != driver.release:
        ctx.bad(
            rule,
            f"Fabric Manager {fm} differs from driver {driver}: FM aborts when the loaded driver stack "
            f'version differs; fix: fabric_manager: "{driver}"',
            policy.source,
            fields,
        )
        return
    ctx.ok(rule, f"Fabric Manager {fm} equals the driver", policy.source, fields)


def driver_lifecycle(ctx: Context) -> None:
    rule = "nvidia.driver-lifecycle"
    driver = ctx.stack.v("driver")
    if ctx.vendor != "nvidia" or driver is None:
        return
    branch = driver.major
    record = ctx.data.branches.get(branch)
    fields = ("driver",)
    if record is None:
        newest = max(ctx.data.branches)
        if branch > newest:
            ctx.unknown(
                rule,
                f"driver branch R{branch} is newer than the matrix (newest R{newest}); its support "
                "window is unknown",
                f"{_DATA}/nvidia.yaml",
                fields,
            )
        else:
            ctx.ok(
                rule,
                f"R{branch}: NVIDIA's end-of-life date for this branch is not in the matrix (no sourced "
                "date)",
                f"{_DATA}/nvidia.yaml",
                fields,
            )
        return
    eol = record.eol_date
    if eol is None or record.eol is None:
        ctx.ok(rule, f"R{branch} ({record.designation}): no end-of-life date sourced", record.source, fields)
        return
    if ctx.as_of >= eol:
        ctx.add(
            rule,
            Verdict.WARN,
            f"driver branch R{branch} ({record.designation}) reached end of life in "
            f"{month_name(record.eol)} (as of {ctx.as_of}); fix: move to {_successor(ctx, branch)}",
            record.source,
            fields,
        )
        return
    ctx.ok(
        rule,
        f"R{branch} ({record.designation}) is supported until {month_name(record.eol)}",
        record.source,
        fields,
    )


def _successor(ctx: Context, branch: int) -> str:
    """The supported branch with the longest remaining life that still supports the GPU."""
    acc = ctx.stack.accelerator
    arch = ctx.data.architecture(acc.compute_capability) if acc.compute_capability else None
    candidates = []
    for record in ctx.data.nvidia.driver_branches:
        if record.eol_date is None or record.branch <= branch or record.eol_date <= ctx.as_of:
            continue
        if (
            arch is not None
            and arch.last_driver_branch is not None
            and record.branch > arch.last_driver_branch
        ):
            continue
        candidates.append(record)
    if not candidates:
        return "a supported branch"
    best = max(candidates, key=lambda r: (r.designation == "LTSB", r.eol))
    return f"R{best.branch} {best.designation} (supported until {month_name(best.eol or '')})"


def cuda_os(ctx: Context) -> None:
    rule = "nvidia.cuda-os"
    os_name = ctx.stack.os
    if ctx.vendor != "nvidia" or os_name is None:
        return
    for cuda, what, fields in ctx.cuda_runtimes():
        for dropped in ctx.data.nvidia.cuda_os_dropped:
            if os_name.matches(dropped.os) and cuda >= parse_version(dropped.dropped_in_cuda):
                ctx.bad(
                    rule,
                    f"{what} does not support {os_name}: dropped in CUDA {dropped.dropped_in_cuda}; fix: "
                    f"move the node image to a newer OS or stay on CUDA "
                    f"{parse_version(dropped.dropped_in_cuda).major - 1}.x",
                    dropped.source,
                    ("os", *fields[:1]),
                )


def cudnn(ctx: Context) -> None:
    rule = "nvidia.cudnn"
    version = ctx.stack.v("cudnn")
    acc = ctx.stack.accelerator
    if ctx.vendor != "nvidia" or version is None:
        return
    facts = ctx.data.nvidia.cudnn
    if acc.compute_capability is not None:
        cc = parse_version(acc.compute_capability)
        for floor in facts.min_compute_capability:
            if version >= parse_version(floor.from_cudnn) and cc < parse_version(floor.compute_capability):
                ctx.bad(
                    rule,
                    f"cuDNN {version} needs compute capability {floor.compute_capability}+ (cuDNN "
                    f"{floor.from_cudnn} and newer); {acc.model} is {acc.compute_capability}; fix: cuDNN "
                    "9.10.2, "
                    "the last release for Maxwell/Pascal/Volta",
                    floor.source,
                    ("cudnn", "accelerator"),
                )
                return
    driver = ctx.stack.v("driver")
    cuda = ctx.stack.v("cuda")
    if driver is not None and cuda is not None:
        for minimum in facts.driver_minimum:
            if minimum.cuda_major == cuda.major and driver < parse_version(minimum.driver):
                ctx.bad(
                    rule,
                    f"cuDNN {version} for CUDA {cuda.major} needs driver {minimum.driver}+; the stack pins "
                    f"{driver}; fix: upgrade the driver",
                    minimum.source,
                    ("cudnn", "driver"),
                )
                return
    ctx.ok(rule, f"cuDNN {version} supports {acc.model}", facts.min_compute_capability[0].source, ("cudnn",))


_DATA = "accelplane/matrix/data"

CHECKS = (cuda_driver, cuda_arch, driver_gpu, kernel_module, fabric_manager, driver_lifecycle, cuda_os, cudnn)
