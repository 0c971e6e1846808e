"""AMD ROCm checks: the GPU's LLVM target is in the ROCm release, the OS is supported, the amdgpu
kernel driver works with the user space (host, container and torch's bundled ROCm), RCCL."""

from __future__ import annotations

from accelplane.matrix import facts as f
from accelplane.matrix.checks.context import DATA, Context, listing, series
from accelplane.matrix.checks.published import never_released
from accelplane.matrix.findings import Verdict
from accelplane.matrix.versions import Version, parse_version


def rocm_release(ctx: Context, version: Version) -> tuple[f.RocmRelease | None, bool]:
    """(release, exact): the release's own column. Each patch release is judged by itself, never by a
    neighbouring patch: a release without a column is (None, False)."""
    for record in ctx.data.rocm.releases:
        if parse_version(record.rocm) == version:
            return record, True
    return None, False


def _release_for(ctx: Context, rule: str) -> f.RocmRelease | None:
    rocm = ctx.stack.v("rocm")
    if rocm is None:
        return None
    record, _ = rocm_release(ctx, rocm)
    if record is None:
        if never_released(ctx, "rocm", rocm) is not None:
            return None  # release.rocm: it cannot be installed
        releases = ctx.data.rocm.releases
        same_line = [r.rocm for r in releases if parse_version(r.rocm).same_series(rocm, 2)]
        line = (
            f"; the matrix has {listing(same_line)} of that line, and a patch release is not judged by another"
            if same_line
            else ""
        )
        ctx.unknown(
            rule,
            f"ROCm {rocm} (known {releases[0].rocm} to {releases[-1].rocm}{line})",
            f"{DATA}/rocm.yaml",
            ("rocm",),
        )
        return None
    return record


def gpu_target(ctx: Context) -> None:
    rule = "amd.gpu-target"
    if ctx.vendor != "amd":
        return
    acc = ctx.stack.accelerator
    declared = ctx.stack.gpu_target
    if declared is not None and declared != acc.gfx_target:
        ctx.bad(
            rule,
            f"gpu_target {declared} does not match {acc.model}, which is {acc.gfx_target}; code built for "
            f"{declared} does not load there; fix: gpu_target: {acc.gfx_target}",
            acc.source,
            ("gpu_target", "accelerator"),
        )
        return
    record = _release_for(ctx, rule)
    if record is None:
        return
    target = acc.gfx_target
    if target in record.gpu_targets and record.products is not None and acc.name not in record.products:
        ctx.bad(
            rule,
            f"ROCm {record.rocm} does not list {acc.model} among its supported GPUs ({target} is supported on "
            f"other products: {listing(record.products)}); fix: a ROCm release that lists it",
            record.source,
            ("rocm", "accelerator"),
        )
        return
    if target not in record.gpu_targets:
        first = next(
            (
                r.rocm
                for r in ctx.data.rocm.releases
                if target in r.gpu_targets and parse_version(r.rocm) > parse_version(record.rocm)
            ),
            None,
        )
        last = next(
            (
                r.rocm
                for r in reversed(ctx.data.rocm.releases)
                if target in r.gpu_targets
                and (r.products is None or acc.name in r.products)
                and parse_version(r.rocm) < parse_version(record.rocm)
            ),
            None,
        )
        hint = (
            f"ROCm {first}+"
            if first
            else (
                f"ROCm {last}, the last release in the matrix that supports it"
                if last
                else "a ROCm release that lists it"
            )
        )
        ctx.bad(
            rule,
            f"ROCm {record.rocm} does not support {acc.model} ({target}; supported: "
            f"{listing(record.gpu_targets)}); fix: {hint}",
            record.source,
            ("rocm", "accelerator"),
        )
        return
    ctx.ok(rule, f"ROCm {record.rocm} supports {acc.model} ({target})", record.source, ("rocm", "accelerator"))


def operating_system(ctx: Context) -> None:
    rule = "amd.os"
    os_name = ctx.stack.os
    if ctx.vendor != "amd" or os_name is None or ctx.stack.v("rocm") is None:
        return
    record, _ = rocm_release(ctx, ctx.stack.v("rocm"))  # type: ignore[arg-type]
    if record is None:
        return
    fields = ("os", "rocm")
    acc = ctx.stack.accelerator
    for limit in ctx.data.rocm.product_os:
        if not any(parse_version(v) == parse_version(record.rocm) for v in limit.rocm):
            continue
        on_listed_os = any(os_name.matches(listed) for listed in limit.os)
        if limit.kind == "only_os" and acc.name in limit.accelerators and not on_listed_os:
            ctx.bad(
                rule,
                f"ROCm {record.rocm} supports {acc.model} only on {listing(limit.os)}, not {os_name}; fix: one of "
                "those, or a ROCm release without this limit",
                limit.source,
                (*fields, "accelerator"),
            )
            return
        if limit.kind == "os_only_for" and on_listed_os and acc.name not in limit.accelerators:
            ctx.bad(
                rule,
                f"ROCm {record.rocm} supports {os_name} only for {listing(limit.accelerators)}, not {acc.model}; "
                "fix: another operating system the release lists",
                limit.source,
                (*fields, "accelerator"),
            )
            return
    if any(os_name.matches(listed) for listed in record.os):
        ctx.ok(rule, f"ROCm {record.rocm} supports {os_name}", record.source, fields)
        return
    if any(os_name.same_release(listed) for listed in record.os):
        listed = [o for o in record.os if os_name.same_release(o)]
        ctx.add(
            rule,
            Verdict.WARN,
            f"ROCm {record.rocm} is validated on {listing(listed)}, not {os_name}; fix: "
            f"update the image to {listed[0]}",
            record.source,
            fields,
        )
        return
    ctx.bad(
        rule,
        f"ROCm {record.rocm} does not support {os_name} (supports {listing(record.os)}); fix: an OS it "
        "lists, or a ROCm release that supports this OS",
        record.source,
        fields,
    )


def kmd_userspace(ctx: Context) -> None:
    rule = "amd.kmd-userspace"
    if ctx.vendor != "amd":
        return
    kmd = ctx.stack.v("amdgpu_kmd") or ctx.stack.v("rocm")
    if kmd is None:
        return
    kmd_key = "amdgpu_kmd" if "amdgpu_kmd" in ctx.stack.raw else "rocm"
    spaces: list[tuple[Version, str, str]] = []
    userspace = ctx.stack.v("rocm_userspace")
    if userspace is not None:
        spaces.append((userspace, f"ROCm user space {userspace}", "rocm_userspace"))
    elif "amdgpu_kmd" in ctx.stack.raw and ctx.stack.v("rocm") is not None:
        spaces.append((ctx.stack.v("rocm"), f"ROCm {ctx.stack.v('rocm')}", "rocm"))  # type: ignore[arg-type]
    build = ctx.torch_build
    if build is not None and build.kind == "rocm" and build.variant is not None and build.from_label:
        spaces.append((build.variant, f"the ROCm {build.variant} bundled in torch {build.version}", "torch"))
    policy = ctx.data.rocm.kmd_policy
    for space, what, key in spaces:
        if space.same_series(kmd, 2) and kmd_key == "rocm":
            continue
        fields = (kmd_key, key)
        entries = [e for e in ctx.data.rocm.kmd_userspace if any(kmd.has_prefix(parse_version(k)) for k in e.kmd)]
        if not entries:
            ctx.unknown(rule, f"amdgpu driver {kmd} with {what}: no tested pairing listed", policy.source, fields)
            continue
        good = [e for e in entries if any(space.has_prefix(parse_version(u)) for u in e.userspace)]
        if good:
            ctx.ok(rule, f"amdgpu driver {kmd} is tested with {what}", good[0].source, fields)
            continue
        windowed = parse_version(policy.windowed_until)
        if space >= windowed or kmd >= windowed:
            ctx.unknown(
                rule,
                f"amdgpu driver {kmd} with {what}: from ROCm {policy.windowed_until} AMD supports pairs up "
                "to a year apart, and this pair is not listed",
                policy.source,
                fields,
            )
            continue
        tested = sorted({u for e in entries for u in e.userspace}, key=parse_version)
        ctx.bad(
            rule,
            f"amdgpu driver {kmd} is tested with ROCm user space {listing(tested)}, not {what}; fix: a user "
            f"space in that window or an amdgpu driver from ROCm {series(space)}",
            entries[0].source,
            fields,
        )


def rccl(ctx: Context) -> None:
    rule = "amd.rccl"
    nccl = ctx.stack.v("nccl")
    rocm = ctx.stack.v("rocm")
    if ctx.vendor != "amd" or nccl is None or rocm is None:
        return
    record, _ = rocm_release(ctx, rocm)
    if record is None or record.rccl is None:
        return
    fields = ("nccl", "rocm")
    if parse_version(record.rccl) != nccl:
        ctx.add(
            rule,
            Verdict.WARN,
            f"on AMD `nccl` is RCCL: ROCm {record.rocm} ships RCCL {record.rccl}, the stack "
            f'pins {nccl} (built for another ROCm); fix: nccl: "{record.rccl}"',
            record.source,
            fields,
        )
        return
    ctx.ok(rule, f"RCCL {nccl} is the one ROCm {record.rocm} ships", record.source, fields)


CHECKS = (gpu_target, operating_system, kmd_userspace, rccl)
