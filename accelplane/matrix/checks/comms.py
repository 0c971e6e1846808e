"""Collective communication checks: NCCL package vs CUDA major, aws-ofi-nccl vs NCCL, the EFA
installer's bundled plugin and the operating systems it dropped."""

from __future__ import annotations

from accelplane.matrix import facts as f
from accelplane.matrix.checks.context import DATA, Context, listing, matches, series
from accelplane.matrix.findings import Verdict
from accelplane.matrix.stack import NcclPackageSpec
from accelplane.matrix.versions import Version, parse_version


def _cuda_major(ctx: Context) -> tuple[int, str] | None:
    package = ctx.stack.nccl_package
    if package is not None:
        return package.cuda_major, f"nccl_package {package.text}"
    cuda = ctx.stack.v("cuda")
    if cuda is not None:
        return cuda.major, f"CUDA {cuda}"
    build = ctx.torch_build
    if build is not None and build.kind == "cuda" and build.variant is not None:
        return build.variant.major, f"the torch {build.version} CUDA {series(build.variant)} build"
    return None


def nccl_package(ctx: Context) -> None:
    """The NCCL build matches the CUDA major of the stack and of torch, and the version exists for it."""
    if ctx.vendor != "nvidia":
        return
    package = ctx.stack.nccl_package
    nccl = ctx.stack.v("nccl")
    if package is not None and not _package_agrees(ctx, package, nccl):
        return
    if nccl is None:
        if package is not None:
            ctx.ok(_NCCL_PACKAGE, f"nccl_package {package.text} matches the stack's CUDA major",
                   ctx.data.comms.nccl_packages[0].source, ("nccl_package",))
        return
    _nccl_published(ctx, nccl, package is not None)


_NCCL_PACKAGE = "nccl.package"


def _package_agrees(ctx: Context, package: NcclPackageSpec, nccl: Version | None) -> bool:
    """The declared nvidia-nccl package against the stack's CUDA, torch's build and `nccl`."""
    source = ctx.data.comms.nccl_packages[0].source
    cuda = ctx.stack.v("cuda")
    if cuda is not None and package.cuda_major != cuda.major:
        ctx.bad(
            _NCCL_PACKAGE,
            f"nccl_package {package.text} is built for CUDA {package.cuda_major} but the stack's CUDA is "
            f"{cuda}; fix: the cu{cuda.major} build (nvidia-nccl-cu{cuda.major})",
            source,
            ("nccl_package", "cuda"),
        )
        return False
    build = ctx.torch_build
    if build is not None and build.kind == "cuda" and build.variant is not None and (
        package.cuda_major != build.variant.major
    ):
        ctx.bad(
            _NCCL_PACKAGE,
            f"nccl_package {package.text} is built for CUDA {package.cuda_major} but torch "
            f"{build.version} is a CUDA {series(build.variant)} build that pins nvidia-nccl-cu"
            f"{build.variant.major}; fix: nvidia-nccl-cu{build.variant.major}",
            source,
            ("nccl_package", "torch"),
        )
        return False
    if package.nccl is not None and nccl is not None and package.nccl != nccl:
        ctx.bad(
            _NCCL_PACKAGE,
            f"nccl_package {package.text} installs NCCL {package.nccl} but nccl says {nccl}; fix: declare one "
            "version",
            source,
            ("nccl_package", "nccl"),
        )
        return False
    return True


def _nccl_published(ctx: Context, nccl: Version, declared_package: bool) -> None:
    """NCCL `nccl` has a build for the CUDA major in play (the stack's, else torch's)."""
    major = _cuda_major(ctx)
    if major is None:
        return
    cuda_major, what = major
    record = next((p for p in ctx.data.comms.nccl_packages if p.cuda_major == cuda_major), None)
    fields = ("nccl", "nccl_package" if declared_package else "cuda")
    if record is None:
        ctx.unknown(_NCCL_PACKAGE, f"no nvidia-nccl package for CUDA {cuda_major} in the matrix ({what})",
                    f"{DATA}/comms.yaml", fields)
        return
    if nccl < parse_version(record.first):
        ctx.bad(
            _NCCL_PACKAGE,
            f"NCCL {nccl} has no CUDA {cuda_major} build ({record.package} starts at {record.first}; {what}); "
            f"fix: NCCL {record.first}+ or a CUDA {cuda_major - 1}.x stack",
            record.source,
            fields,
        )
        return
    if nccl > parse_version(record.last):
        ctx.unknown(_NCCL_PACKAGE,
                    f"NCCL {nccl} is newer than the newest {record.package} in the matrix ({record.last})",
                    record.source, fields)
        return
    ctx.ok(_NCCL_PACKAGE, f"NCCL {nccl} is published for CUDA {cuda_major} ({record.package})", record.source,
           fields)


def _ofi_record(ctx: Context, version: Version) -> f.AwsOfiNccl | None:
    for record in ctx.data.comms.aws_ofi_nccl:
        if matches(version, record.version, record.match):
            return record
    return None


def aws_ofi_nccl(ctx: Context) -> None:
    rule = "nccl.aws-ofi-nccl"
    plugin = ctx.stack.v("aws_ofi_nccl")
    nccl = ctx.stack.v("nccl")
    if plugin is None or nccl is None:
        return
    fields = ("aws_ofi_nccl", "nccl")
    record = _ofi_record(ctx, plugin)
    if record is None:
        newest = ctx.data.comms.aws_ofi_nccl[-1].version
        ctx.unknown(
            rule,
            f"aws-ofi-nccl {plugin} (known up to {newest}); its NCCL range cannot be checked",
            f"{DATA}/comms.yaml",
            fields,
        )
        return
    if nccl < parse_version(record.min_nccl):
        ctx.bad(
            rule,
            f"aws-ofi-nccl {plugin} needs NCCL {record.min_nccl}+; the stack pins NCCL {nccl}; fix: NCCL "
            f"{record.tested_nccl[-1] if record.tested_nccl else record.min_nccl}",
            record.source,
            fields,
        )
        return
    tested = [parse_version(v) for v in record.tested_nccl]
    if tested and nccl.truncate(2) > max(tested).truncate(2):
        ctx.add(
            rule,
            Verdict.WARN,
            f"NCCL {nccl} is newer than aws-ofi-nccl {plugin} was tested with "
            f"({listing(record.tested_nccl)}); fix: a newer aws-ofi-nccl, or NCCL {record.tested_nccl[-1]}",
            record.source,
            fields,
        )
        return
    ctx.ok(
        rule,
        f"aws-ofi-nccl {plugin} supports NCCL {nccl} (min {record.min_nccl}, tested "
        f"{listing(record.tested_nccl)})",
        record.source,
        fields,
    )


def efa_installer(ctx: Context) -> None:
    rule = "efa.installer"
    efa = ctx.stack.v("efa_installer")
    if efa is None:
        return
    installers = ctx.data.comms.efa_installer
    record = next((r for r in installers if parse_version(r.version) == efa), None)
    os_name = ctx.stack.os
    if os_name is not None:
        for dropping in installers:
            if efa >= parse_version(dropping.version):
                for dropped in dropping.drops_os:
                    if os_name.matches(dropped):
                        ctx.bad(
                            "efa.os",
                            f"EFA installer {efa} does not support {os_name} (dropped in "
                            f"{dropping.version}); fix: a newer OS image or an EFA installer older than "
                            f"{dropping.version}",
                            dropping.source,
                            ("efa_installer", "os"),
                        )
    plugin = ctx.stack.v("aws_ofi_nccl")
    if record is None:
        if plugin is not None:
            ctx.unknown(
                rule,
                f"EFA installer {efa} (known: {listing(r.version for r in installers)}); which "
                "aws-ofi-nccl it bundles cannot be checked",
                f"{DATA}/comms.yaml",
                ("efa_installer",),
            )
        return
    if plugin is None or record.aws_ofi_nccl is None:
        ctx.ok(
            rule,
            f"EFA installer {efa} bundles aws-ofi-nccl {record.aws_ofi_nccl}",
            record.source,
            ("efa_installer",),
        )
        return
    if parse_version(record.aws_ofi_nccl) != plugin:
        ctx.add(
            rule,
            Verdict.WARN,
            f"EFA installer {efa} bundles aws-ofi-nccl {record.aws_ofi_nccl} but the stack pins "
            f"{plugin}: two plugins on the node, and which one NCCL loads depends on the library path; fix: "
            f'aws_ofi_nccl: "{record.aws_ofi_nccl}" or an installer that bundles {plugin}',
            record.source,
            ("efa_installer", "aws_ofi_nccl"),
        )
        return
    ctx.ok(
        rule,
        f"EFA installer {efa} bundles aws-ofi-nccl {plugin}",
        record.source,
        ("efa_installer", "aws_ofi_nccl"),
    )


def nccl_tests(ctx: Context) -> None:
    """The nccl-tests release the node builds is one whose source tarball and SHA-256 are known."""
    rule = "nccl.tests"
    version = ctx.stack.v("nccl_tests")
    if version is None:
        return
    releases = ctx.data.comms.nccl_tests
    if ctx.vendor != "nvidia":
        ctx.bad(rule, f"nccl-tests {version} builds against NCCL and CUDA, which {ctx.stack.accelerator.model} does "
                "not run; fix: remove nccl_tests from the profile", releases[0].source, ("nccl_tests", "accelerator"))
        return
    record = next((r for r in releases if parse_version(r.version) == version), None)
    if record is None:
        ctx.bad(
            rule,
            f"nccl-tests {version} has no sourced tarball checksum in the matrix, so no node can build it verified "
            f"(known: {listing(r.version for r in releases)}); fix: one of those, or add the release with its "
            "SHA-256 to comms.yaml",
            f"{DATA}/comms.yaml",
            ("nccl_tests",),
        )
        return
    ctx.ok(rule, f"nccl-tests {version}: {record.url} (sha256 {record.sha256[:12]}…)", record.source, ("nccl_tests",))


CHECKS = (nccl_package, aws_ofi_nccl, efa_installer, nccl_tests)
