"""AWS Neuron checks: the SDK supports the instance family, torch-neuronx belongs to the SDK and
supports the instance and Python, torch matches torch-neuronx, torch-xla belongs to the SDK."""

from __future__ import annotations

from accelplane.matrix import facts as f
from accelplane.matrix.checks.context import DATA, Context, listing, matches, series
from accelplane.matrix.schema import Vendor
from accelplane.matrix.versions import Version, parse_version


def _sdk(ctx: Context) -> f.NeuronRelease | None:
    sdk = ctx.stack.v("neuron_sdk")
    if sdk is None:
        return None
    return next((r for r in ctx.data.neuron.releases if parse_version(r.sdk) == sdk), None)


def sdk(ctx: Context) -> None:
    rule = "neuron.sdk"
    version = ctx.stack.v("neuron_sdk")
    if ctx.vendor != Vendor.NEURON or version is None:
        return
    record = _sdk(ctx)
    releases = ctx.data.neuron.releases
    if record is None:
        ctx.unknown(
            rule,
            f"Neuron SDK {version} (known {releases[0].sdk} to {releases[-1].sdk})",
            f"{DATA}/neuron.yaml",
            ("neuron_sdk",),
        )
        return
    platform = ctx.stack.accelerator.neuron_platform
    fields = ("neuron_sdk", "accelerator")
    if platform not in record.instances:
        later = next((r.sdk for r in releases if platform in r.instances and parse_version(r.sdk) > version), None)
        earlier = next(
            (r.sdk for r in reversed(releases) if platform in r.instances and parse_version(r.sdk) < version),
            None,
        )
        hint = (
            f"Neuron SDK {later}+"
            if later
            else (
                f"Neuron SDK {earlier}, the last whose driver supports it" if earlier else "a Neuron SDK that lists it"
            )
        )
        ctx.bad(
            rule,
            f"Neuron SDK {record.sdk} does not support {platform} ({ctx.stack.accelerator.model}; it "
            "supports "
            f"{listing(record.instances)}); fix: {hint}",
            record.source,
            fields,
        )
        return
    ctx.ok(rule, f"Neuron SDK {record.sdk} supports {platform}", record.source, fields)


def _find_package(
    ctx: Context, attribute: str, version: Version
) -> tuple[f.NeuronRelease | None, f.NeuronPackage | None]:
    record = _sdk(ctx)
    candidates = [record] if record is not None else list(ctx.data.neuron.releases)
    for release in reversed(candidates):
        for package in getattr(release, attribute):
            if matches(version, package.version, package.match) or (
                package.match == "exact"
                and len(version.release) >= 5
                and parse_version(package.version).has_prefix(version)
            ):
                return release, package
    return record, None


def _package(ctx: Context, key: str, attribute: str, name: str) -> None:
    """`key` (torch_neuronx / torch_neuron) belongs to the SDK and supports the instance and Python."""
    rule = f"neuron.{name}"
    version = ctx.stack.v(key)
    if ctx.vendor != Vendor.NEURON or version is None:
        return
    platform = ctx.stack.accelerator.neuron_platform
    release, package = _find_package(ctx, attribute, version)
    fields = (key, "neuron_sdk")
    if package is None:
        if release is not None:
            shipped = listing(p.version for p in getattr(release, attribute))
            why = f"it ships {shipped}" if getattr(release, attribute) else f"it ships no {name}"
            ctx.bad(
                rule,
                f"{name} {version} is not part of Neuron SDK {release.sdk} ({why}); fix: the "
                f"{name} of the SDK, or the SDK that ships this build",
                release.source,
                fields,
            )
        else:
            ctx.unknown(
                rule,
                f"{name} {version} is in no Neuron SDK release the matrix knows",
                f"{DATA}/neuron.yaml",
                (key,),
            )
        return
    assert release is not None
    if platform not in package.instances:
        ctx.bad(
            rule,
            f"{name} {version} (Neuron SDK {release.sdk}) supports {listing(package.instances)}, not "
            f"{platform} ({ctx.stack.accelerator.model}); fix: a {name} build for {platform}",
            release.source,
            (key, "accelerator"),
        )
        return
    python = ctx.stack.v("python")
    if python is not None and package.python is not None and series(python) not in package.python:
        ctx.bad(
            rule,
            f"{name} {version} (Neuron SDK {release.sdk}) supports Python {listing(package.python)}, "
            f"not {series(python)}; fix: python {package.python[-1]}",
            release.source,
            (key, "python"),
        )
        return
    ctx.ok(
        rule,
        f"{name} {version} is part of Neuron SDK {release.sdk} and supports {platform}",
        release.source,
        fields,
    )


def product_line(ctx: Context) -> None:
    """Inferentia1 (inf1) runs the torch-neuron 1.x line; every later Neuron device runs torch-neuronx."""
    rule = "neuron.product-line"
    if ctx.vendor != Vendor.NEURON:
        return
    platform = ctx.stack.accelerator.neuron_platform
    model = ctx.stack.accelerator.model
    source = ctx.data.neuron.releases[-1].source
    if platform == "inf1" and ctx.stack.v("torch_neuronx") is not None:
        ctx.bad(
            rule,
            f"{model} runs torch-neuron (the Inferentia1 line, torch 1.x, neuron-cc), not torch-neuronx, which "
            "supports trn1, inf2, trn2 and trn3 only; fix: pin torch_neuron (e.g. 1.13.1.2.11.13.0) instead "
            "of torch_neuronx",
            source,
            ("torch_neuronx", "accelerator"),
        )
    if platform != "inf1" and ctx.stack.v("torch_neuron") is not None:
        ctx.bad(
            rule,
            f"torch-neuron is the Inferentia1 (inf1) line; {model} ({platform}) runs torch-neuronx; fix: pin "
            "torch_neuronx instead of torch_neuron",
            source,
            ("torch_neuron", "accelerator"),
        )


def torch_neuronx(ctx: Context) -> None:
    if ctx.stack.accelerator.neuron_platform == "inf1":
        return  # neuron.product-line
    _package(ctx, "torch_neuronx", "torch_neuronx", "torch-neuronx")


def torch_neuron(ctx: Context) -> None:
    if ctx.stack.accelerator.neuron_platform != "inf1":
        return  # neuron.product-line
    _package(ctx, "torch_neuron", "torch_neuron", "torch-neuron")


def torch_pairing(ctx: Context) -> None:
    rule = "neuron.torch"
    torch = ctx.stack.v("torch")
    if ctx.vendor != Vendor.NEURON or torch is None:
        return
    source = ctx.data.neuron.releases[-1].source
    for key, name in (("torch_neuronx", "torch-neuronx"), ("torch_neuron", "torch-neuron")):
        version = ctx.stack.v(key)
        if version is None:
            continue
        base = version.truncate(3)
        fields = ("torch", key)
        if len(version.release) >= 3 and torch.truncate(3) != base:
            ctx.bad(
                rule,
                f"{name} {version} is built for torch {base}; the stack pins torch {torch}; fix: torch {base}",
                source,
                fields,
            )
            continue
        if len(version.release) < 3 and not torch.has_prefix(version):
            ctx.bad(
                rule,
                f"{name} {version}.x is built for torch {version}.x; the stack pins torch {torch}",
                source,
                fields,
            )
            continue
        ctx.ok(rule, f"torch {torch} is the torch {name} {version} is built for", source, fields)


def torch_xla(ctx: Context) -> None:
    rule = "neuron.torch-xla"
    version = ctx.stack.v("torch_xla")
    if ctx.vendor != Vendor.NEURON or version is None:
        return
    release, package = _find_package(ctx, "torch_xla", version)
    fields = ("torch_xla", "neuron_sdk")
    if package is None:
        if release is not None:
            ctx.bad(
                rule,
                f"torch-xla {version} is not part of Neuron SDK {release.sdk} (it ships "
                f"{listing(p.version for p in release.torch_xla)}); fix: one of those",
                release.source,
                fields,
            )
        else:
            ctx.unknown(rule, f"torch-xla {version} for Neuron", f"{DATA}/neuron.yaml", ("torch_xla",))
        return
    assert release is not None
    platform = ctx.stack.accelerator.neuron_platform
    if platform not in package.instances:
        ctx.bad(
            rule,
            f"torch-xla {version} (Neuron SDK {release.sdk}) supports {listing(package.instances)}, not {platform}",
            release.source,
            ("torch_xla", "accelerator"),
        )
        return
    ctx.ok(rule, f"torch-xla {version} is part of Neuron SDK {release.sdk}", release.source, fields)


CHECKS = (sdk, product_line, torch_neuronx, torch_neuron, torch_pairing, torch_xla)
