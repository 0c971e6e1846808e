"""AWS Neuron checks: the SDK supports the instance family, torch-neuronx belongs to the SDK and
supports the instance and Python, torch matches torch-neuronx, torch-xla belongs to the SDK."""

from __future__ import annotations

from accelplane.matrix import facts as f
from accelplane.matrix.checks.context import DATA, Context, listing, matches, series
from accelplane.matrix.versions import Version, parse_version


def _sdk(ctx: Context) -> f.NeuronRelease | None:
    sdk = ctx.stack.v("neuron_sdk")
    if sdk is None:
        return None
    return next((r for r in ctx.data.neuron.releases if parse_version(r.sdk) == sdk), None)


def sdk(ctx: Context) -> None:
    rule = "neuron.sdk"
    version = ctx.stack.v("neuron_sdk")
    if ctx.vendor != "aws" or version is None:
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
        first = next((r.sdk for r in releases if platform in r.instances), None)
        hint = f"Neuron SDK {first}+" if first else "a Neuron SDK that lists it"
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


def torch_neuronx(ctx: Context) -> None:
    rule = "neuron.torch-neuronx"
    version = ctx.stack.v("torch_neuronx")
    if ctx.vendor != "aws" or version is None:
        return
    release, package = _find_package(ctx, "torch_neuronx", version)
    fields = ("torch_neuronx", "neuron_sdk")
    if package is None:
        if release is not None:
            shipped = listing(p.version for p in release.torch_neuronx)
            why = f"it ships {shipped}" if release.torch_neuronx else "it ships no torch-neuronx"
            ctx.bad(
                rule,
                f"torch-neuronx {version} is not part of Neuron SDK {release.sdk} ({why}); fix: the "
                "torch-neuronx of the SDK, or the SDK that ships this build",
                release.source,
                fields,
            )
        else:
            ctx.unknown(
                rule,
                f"torch-neuronx {version} is in no Neuron SDK release the matrix knows",
                f"{DATA}/neuron.yaml",
                ("torch_neuronx",),
            )
        return
    assert release is not None
    platform = ctx.stack.accelerator.neuron_platform
    if platform not in package.instances:
        ctx.bad(
            rule,
            f"torch-neuronx {version} (Neuron SDK {release.sdk}) supports {listing(package.instances)}, not "
            f"{platform} ({ctx.stack.accelerator.model}); fix: a torch-neuronx build for {platform}",
            release.source,
            ("torch_neuronx", "accelerator"),
        )
        return
    python = ctx.stack.v("python")
    if python is not None and package.python is not None and series(python) not in package.python:
        ctx.bad(
            rule,
            f"torch-neuronx {version} (Neuron SDK {release.sdk}) supports Python {listing(package.python)}, "
            f"not {series(python)}; fix: python {package.python[-1]}",
            release.source,
            ("torch_neuronx", "python"),
        )
        return
    ctx.ok(
        rule,
        f"torch-neuronx {version} is part of Neuron SDK {release.sdk} and supports {platform}",
        release.source,
        fields,
    )


def torch_pairing(ctx: Context) -> None:
    rule = "neuron.torch"
    version = ctx.stack.v("torch_neuronx")
    torch = ctx.stack.v("torch")
    if ctx.vendor != "aws" or version is None or torch is None:
        return
    base = version.truncate(3)
    fields = ("torch", "torch_neuronx")
    source = ctx.data.neuron.releases[-1].source
    if len(version.release) >= 3 and torch.truncate(3) != base:
        ctx.bad(
            rule,
            f"torch-neuronx {version} is built for torch {base}; the stack pins torch {torch}; fix: torch "
            f"{base}",
            source,
            fields,
        )
        return
    if len(version.release) < 3 and not torch.has_prefix(version):
        ctx.bad(
            rule,
            f"torch-neuronx {version}.x is built for torch {version}.x; the stack pins torch {torch}",
            source,
            fields,
        )
        return
    ctx.ok(rule, f"torch {torch} is the torch torch-neuronx {version} is built for", source, fields)


def torch_xla(ctx: Context) -> None:
    rule = "neuron.torch-xla"
    version = ctx.stack.v("torch_xla")
    if ctx.vendor != "aws" or version is None:
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
            f"torch-xla {version} (Neuron SDK {release.sdk}) supports {listing(package.instances)}, not "
            f"{platform}",
            release.source,
            ("torch_xla", "accelerator"),
        )
        return
    ctx.ok(rule, f"torch-xla {version} is part of Neuron SDK {release.sdk}", release.source, fields)


CHECKS = (sdk, torch_neuronx, torch_pairing, torch_xla)
