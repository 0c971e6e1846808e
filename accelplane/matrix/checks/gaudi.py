"""Intel Gaudi checks: the software release supports the device, ships the stack's torch, and
supports the OS, Python and kernel."""

from __future__ import annotations

from accelplane.matrix import facts as f
from accelplane.matrix.checks.context import DATA, Context, listing, matches, series
from accelplane.matrix.findings import Verdict
from accelplane.matrix.versions import parse_version


def _release(ctx: Context) -> f.GaudiRelease | None:
    version = ctx.stack.v("gaudi_sw")
    if version is None:
        return None
    return next((r for r in ctx.data.gaudi.releases if matches(version, r.gaudi_sw, r.match)), None)


def device(ctx: Context) -> None:
    rule = "gaudi.device"
    version = ctx.stack.v("gaudi_sw")
    if ctx.vendor != "intel" or version is None:
        return
    record = _release(ctx)
    releases = ctx.data.gaudi.releases
    if record is None:
        ctx.unknown(
            rule,
            f"Intel Gaudi software {version} (known {releases[0].gaudi_sw} to {releases[-1].gaudi_sw})",
            f"{DATA}/gaudi.yaml",
            ("gaudi_sw",),
        )
        return
    acc = ctx.stack.accelerator
    fields = ("gaudi_sw", "accelerator")
    if record.devices is None:
        ctx.unknown(
            rule,
            f"the devices of Intel Gaudi software {record.gaudi_sw} are not recorded",
            record.source,
            fields,
        )
        return
    if acc.gaudi_device not in record.devices:
        supporting = [r.gaudi_sw for r in releases if r.devices and acc.gaudi_device in r.devices]
        if supporting and parse_version(supporting[0]) > version:
            hint = f"Intel Gaudi software {supporting[0]}+ (first with {acc.model})"
        elif supporting:
            hint = f"Intel Gaudi software {supporting[-1]} (last with {acc.model})"
        else:
            hint = "another release"
        ctx.bad(
            rule,
            f"Intel Gaudi software {record.gaudi_sw} supports {listing(record.devices)}, not {acc.model}; "
            f"fix: {hint}",
            record.source,
            fields,
        )
        return
    ctx.ok(rule, f"Intel Gaudi software {record.gaudi_sw} supports {acc.model}", record.source, fields)


def torch(ctx: Context) -> None:
    rule = "gaudi.torch"
    version = ctx.stack.v("torch")
    record = _release(ctx)
    if ctx.vendor != "intel" or version is None or record is None:
        return
    expected = parse_version(record.torch)
    fields = ("torch", "gaudi_sw")
    same = version.has_prefix(expected) if record.torch_match == "series" else version.truncate(3) == expected
    shown = f"{record.torch}.x" if record.torch_match == "series" else record.torch
    if not same:
        ctx.bad(
            rule,
            f"Intel Gaudi software {record.gaudi_sw} ships PyTorch {shown}; the stack pins torch {version}; "
            f"fix: torch {shown} (Intel's build), or the Gaudi release for torch {series(version)}",
            record.source,
            fields,
        )
        return
    ctx.ok(
        rule,
        f"torch {version} is the PyTorch Intel Gaudi software {record.gaudi_sw} ships",
        record.source,
        fields,
    )


def operating_system(ctx: Context) -> None:
    rule = "gaudi.os"
    os_name = ctx.stack.os
    record = _release(ctx)
    if ctx.vendor != "intel" or os_name is None or record is None:
        return
    if record.os is None:
        ctx.unknown(
            rule,
            f"the operating systems of Intel Gaudi software {record.gaudi_sw} are not recorded",
            record.source,
            ("os", "gaudi_sw"),
        )
        return
    entry = next((o for o in record.os if os_name.matches(o.os)), None)
    if entry is None:
        near = next((o for o in record.os if os_name.same_release(o.os)), None)
        if near is not None:
            ctx.add(
                rule,
                Verdict.WARN,
                f"Intel Gaudi software {record.gaudi_sw} is validated on {near.os}, not "
                f"{os_name}; fix: update the image to {near.os}",
                record.source,
                ("os", "gaudi_sw"),
            )
            return
        ctx.bad(
            rule,
            f"Intel Gaudi software {record.gaudi_sw} supports {listing(o.os for o in record.os)}, not "
            f"{os_name}; fix: one of those",
            record.source,
            ("os", "gaudi_sw"),
        )
        return
    python = ctx.stack.v("python")
    if python is not None and entry.python is not None and series(python) not in entry.python:
        ctx.bad(
            rule,
            f"Intel Gaudi software {record.gaudi_sw} on {entry.os} supports Python {listing(entry.python)}, "
            f"not {series(python)}; fix: python {entry.python[-1]}",
            record.source,
            ("python", "os", "gaudi_sw"),
        )
        return
    kernel = ctx.stack.v("kernel")
    if (
        kernel is not None
        and entry.kernel is not None
        and not kernel.same_series(parse_version(entry.kernel), 2)
    ):
        ctx.add(
            rule,
            Verdict.WARN,
            f"Intel Gaudi software {record.gaudi_sw} on {entry.os} is validated with kernel "
            f"{entry.kernel}, not {kernel}; fix: kernel {entry.kernel}",
            record.source,
            ("kernel", "os"),
        )
        return
    ctx.ok(
        rule, f"Intel Gaudi software {record.gaudi_sw} supports {os_name}", record.source, ("os", "gaudi_sw")
    )


CHECKS = (device, torch, operating_system)
