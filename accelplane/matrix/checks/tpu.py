"""Google TPU checks: TPU VM runtime per generation, jax <-> jaxlib <-> libtpu <-> Python, and
torch_xla <-> torch <-> libtpu <-> Python."""

from __future__ import annotations

from accelplane.matrix import facts as f
from accelplane.matrix.checks.context import DATA, Context, listing, matches, series
from accelplane.matrix.checks.published import never_released
from accelplane.matrix.findings import Verdict
from accelplane.matrix.versions import parse_version


def _generation(ctx: Context) -> f.TpuGenerationSupport | None:
    name = ctx.stack.accelerator.name
    return next((g for g in ctx.data.tpu.generations if g.accelerator == name), None)


def runtime(ctx: Context) -> None:
    rule = "tpu.runtime"
    declared = ctx.stack.tpu_runtime
    acc = ctx.stack.accelerator
    if ctx.vendor != "google" or declared is None:
        return
    fields = ("tpu_runtime", "accelerator")
    generation = _generation(ctx)
    if generation is not None and not generation.tpu_vm_runtime:
        ctx.bad(rule, f"{acc.model} has no TPU VM software version ({generation.note}); fix: drop tpu_runtime",
                generation.source, fields)
        return
    if declared != acc.tpu_runtime:
        ctx.bad(
            rule,
            f"{acc.model} runs the TPU VM software version {acc.tpu_runtime}, not {declared}; fix: "
            f"tpu_runtime: {acc.tpu_runtime}",
            acc.source,
            fields,
        )
        return
    ctx.ok(rule, f"{declared} is the runtime for {acc.model}", acc.source, fields)


def _jax(ctx: Context) -> f.JaxRelease | None:
    jax = ctx.stack.v("jax")
    if jax is None:
        return None
    return next((r for r in ctx.data.tpu.jax if parse_version(r.jax) == jax), None)


def jax(ctx: Context) -> None:
    rule = "tpu.jax"
    version = ctx.stack.v("jax")
    if version is None:
        return
    record = _jax(ctx)
    if record is None:
        known = ctx.data.tpu.jax
        ctx.unknown(
            rule,
            f"jax {version} (known {known[0].jax} to {known[-1].jax}); its jaxlib/libtpu pins cannot be "
            "checked",
            f"{DATA}/tpu.yaml",
            ("jax",),
        )
        return
    jaxlib = ctx.stack.v("jaxlib")
    if jaxlib is not None:
        low, high = parse_version(record.jaxlib_min), parse_version(record.jaxlib_max)
        span = record.jaxlib_min if low == high else f"{record.jaxlib_min} to {record.jaxlib_max}"
        if not low <= jaxlib <= high:
            ctx.bad(
                rule,
                f"jax {version} needs jaxlib {span}; the stack pins jaxlib {jaxlib}; fix: jaxlib "
                f"{record.jaxlib_max}",
                record.source,
                ("jax", "jaxlib"),
            )
        elif never_released(ctx, "jaxlib", jaxlib) is None:  # else release.jaxlib: cannot be installed
            ctx.ok(
                rule,
                f"jaxlib {jaxlib} is in jax {version}'s range ({span})",
                record.source,
                ("jax", "jaxlib"),
            )
    python = ctx.stack.v("python")
    if python is not None:
        if python.truncate(2) < parse_version(record.python_min):
            newer = [r.jax for r in ctx.data.tpu.jax if parse_version(r.python_min) <= python.truncate(2)]
            hint = f", or jax {newer[-1]}" if newer else ""
            ctx.bad(
                rule,
                f"jax {version} needs Python {record.python_min}+; the stack pins {series(python)}; fix: "
                "python "
                f"{record.python_min}{hint}",
                record.source,
                ("jax", "python"),
            )
        else:
            ctx.ok(rule, f"jax {version} supports Python {series(python)}", record.source, ("jax", "python"))


def libtpu(ctx: Context) -> None:
    rule = "tpu.libtpu"
    version = ctx.stack.v("libtpu")
    if ctx.vendor != "google" or version is None:
        return
    record = _jax(ctx)
    if record is not None:
        shown = record.libtpu + (".*" if record.libtpu_match == "series" else "")
        if matches(version, record.libtpu, record.libtpu_match):
            ctx.ok(
                rule,
                f"libtpu {version} is what jax[tpu]=={record.jax} pins ({record.libtpu_package}=={shown})",
                record.source,
                ("libtpu", "jax"),
            )
        else:
            ctx.bad(
                rule,
                f"jax[tpu]=={record.jax} pins {record.libtpu_package}=={shown}; the stack pins libtpu "
                f"{version}; "
                f'fix: libtpu: "{record.libtpu}"',
                record.source,
                ("libtpu", "jax"),
            )
    xla = _torch_xla(ctx)
    if xla is not None:
        if matches(version, xla.libtpu):
            ctx.ok(
                rule,
                f"libtpu {version} is what torch_xla[tpu] {xla.torch_xla} pins",
                xla.source,
                ("libtpu", "torch_xla"),
            )
        else:
            ctx.bad(
                rule,
                f"torch_xla[tpu] {xla.torch_xla} pins {xla.libtpu_package}=={xla.libtpu}; the stack pins "
                f'libtpu {version}; fix: libtpu: "{xla.libtpu}"',
                xla.source,
                ("libtpu", "torch_xla"),
            )


def _torch_xla(ctx: Context) -> f.TorchXlaRelease | None:
    version = ctx.stack.v("torch_xla")
    if version is None:
        return None
    return next((r for r in ctx.data.tpu.torch_xla if matches(version, r.torch_xla, r.match)), None)


def torch_xla(ctx: Context) -> None:
    rule = "tpu.torch-xla"
    version = ctx.stack.v("torch_xla")
    if ctx.vendor != "google" or version is None:
        return
    record = _torch_xla(ctx)
    if record is None:
        known = ctx.data.tpu.torch_xla
        ctx.unknown(
            rule,
            f"torch_xla {version} (known {known[0].torch_xla} to {known[-1].torch_xla})",
            f"{DATA}/tpu.yaml",
            ("torch_xla",),
        )
        return
    pairing = ctx.data.tpu.torch_xla_pairing
    torch = ctx.stack.v("torch")
    if torch is not None:
        if not torch.same_series(version, 2):
            ctx.bad(
                rule,
                f"torch_xla {version} pairs with torch {series(version)}.x; the stack pins torch {torch}; "
                "fix: "
                f"torch {series(version)}.0 (pip install torch=={series(version)}.0 "
                f"'torch_xla[tpu]=={version}')",
                pairing.source,
                ("torch_xla", "torch"),
            )
        else:
            ctx.ok(
                rule, f"torch {torch} pairs with torch_xla {version}", pairing.source, ("torch_xla", "torch")
            )
    python = ctx.stack.v("python")
    if python is not None:
        if series(python) not in record.python:
            ctx.bad(
                rule,
                f"torch_xla {version} has wheels for Python {listing(record.python)}, not {series(python)}; "
                f"fix: python {record.python[-1]}",
                record.source,
                ("torch_xla", "python"),
            )
        else:
            ctx.ok(
                rule,
                f"torch_xla {version} has a Python {series(python)} wheel",
                record.source,
                ("torch_xla", "python"),
            )


def frameworks(ctx: Context) -> None:
    """The frameworks Google documents for the generation (TPU7x: JAX and PyTorch by the newest reading of
    its page; TensorFlow not supported)."""
    generation = _generation(ctx) if ctx.vendor == "google" else None
    if generation is None:
        return
    acc = ctx.stack.accelerator
    for key in ("jax", "torch_xla"):
        version = ctx.stack.v(key)
        if version is None:
            continue
        rule = f"tpu.generation.{key}"
        # Google's page changed what it documents (TPU7x: JAX, then JAX and PyTorch): say which reading judged.
        by = f" by the newest of {len(generation.readings)} readings of Google's page" if generation.readings else ""
        if key in generation.frameworks:
            ctx.ok(rule, f"{acc.model} runs {key}{by} (Google publishes no minimum {key} or libtpu version for it: "
                   f"the {key} row judges the pins)", generation.source, (key, "accelerator"))
        else:
            documented = ", ".join(generation.frameworks)
            ctx.add(rule, Verdict.WARN, f"{key} {version} on {acc.model}: Google documents {documented} for it{by}, "
                    f"not {key}; fix: a {documented} profile, or test {key} on the hardware first",
                    generation.source, (key, "accelerator"))


CHECKS = (runtime, frameworks, jax, libtpu, torch_xla)
