"""Huawei Ascend checks: torch_npu belongs to the CANN release, torch matches torch_npu, Python."""

from __future__ import annotations

from accelplane.matrix.checks.context import DATA, Context, listing, series
from accelplane.matrix.versions import parse_version


def cann(ctx: Context) -> None:
    rule = "ascend.cann"
    npu = ctx.stack.v("torch_npu")
    version = ctx.stack.v("cann")
    if ctx.vendor != "huawei" or npu is None:
        return
    releases = ctx.data.ascend.cann
    supporting = [r.cann for r in releases if any(npu == parse_version(v) for v in r.torch_npu)]
    if version is None:
        if not supporting:
            ctx.unknown(
                rule, f"torch_npu {npu} is listed for no CANN release", f"{DATA}/ascend.yaml", ("torch_npu",)
            )
        return
    record = next((r for r in releases if parse_version(r.cann) == version), None)
    fields = ("torch_npu", "cann")
    if record is None:
        ctx.unknown(
            rule,
            f"CANN {version} (known {releases[0].cann} to {releases[-1].cann})",
            f"{DATA}/ascend.yaml",
            ("cann",),
        )
        return
    if not any(npu == parse_version(v) for v in record.torch_npu):
        hint = f"; torch_npu {npu} is supported by CANN {listing(supporting)}" if supporting else ""
        ctx.bad(
            rule,
            f"CANN {version} supports torch_npu {listing(record.torch_npu)}, not {npu}{hint}; fix: a pair "
            "from the compatibility table",
            record.source,
            fields,
        )
        return
    ctx.ok(rule, f"CANN {version} supports torch_npu {npu}", record.source, fields)


def chip(ctx: Context) -> None:
    """The CANN release supports the accelerator's chip family (and the chip is one CANN knows)."""
    rule = "ascend.chip"
    version = ctx.stack.v("cann")
    acc = ctx.stack.accelerator
    if ctx.vendor != "huawei" or version is None:
        return
    record = next((c for c in ctx.data.ascend.chips if c.chip == acc.ascend_chip), None)
    fields = ("cann", "accelerator")
    if record is None:
        ctx.unknown(rule, f"Ascend chip {acc.ascend_chip} ({acc.model})", f"{DATA}/ascend.yaml", fields)
        return
    if record.first_cann is not None and version < parse_version(record.first_cann):
        ctx.bad(
            rule,
            f"CANN {version} predates support for the {record.family}; {acc.model} needs CANN "
            f"{record.first_cann}+; fix: CANN {record.first_cann} or newer",
            record.source,
            fields,
        )
        return
    ctx.ok(rule, f"CANN {version} supports the {record.family}", record.source, fields)


def torch(ctx: Context) -> None:
    rule = "ascend.torch"
    npu = ctx.stack.v("torch_npu")
    version = ctx.stack.v("torch")
    if ctx.vendor != "huawei" or npu is None or version is None:
        return
    base = npu.truncate(3)
    source = ctx.data.ascend.cann[-1].source
    fields = ("torch", "torch_npu")
    if version.truncate(3) != base:
        ctx.bad(
            rule,
            f"torch_npu {npu} is built for torch {base}; the stack pins torch {version}; fix: torch {base}",
            source,
            fields,
        )
        return
    ctx.ok(rule, f"torch {version} is the torch torch_npu {npu} is built for", source, fields)


def python(ctx: Context) -> None:
    rule = "ascend.python"
    npu = ctx.stack.v("torch_npu")
    py = ctx.stack.v("python")
    if ctx.vendor != "huawei" or npu is None or py is None:
        return
    base = npu.truncate(3)
    record = next((r for r in ctx.data.ascend.python if any(parse_version(t) == base for t in r.torch)), None)
    fields = ("python", "torch_npu")
    if record is None:
        ctx.unknown(
            rule, f"the Python versions for torch_npu {npu} (torch {base})", f"{DATA}/ascend.yaml", fields
        )
        return
    if series(py) not in record.python:
        ctx.bad(
            rule,
            f"torch_npu {npu} (torch {base}) supports Python {listing(record.python)}, not {series(py)}; "
            "fix: "
            f"python {record.python[-1]}",
            record.source,
            fields,
        )
        return
    ctx.ok(rule, f"torch_npu {npu} supports Python {series(py)}", record.source, fields)


CHECKS = (chip, cann, torch, python)
