"""What every check sees: the parsed stack, the data, the date, and where findings go.

Also the facts derived once and shared by several checks: which torch build the stack means
(`torch_build`), which CUDA runtimes are in play (`cuda_runtimes`), and which glibc the OS has.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from accelplane.matrix import facts as f
from accelplane.matrix.findings import MatrixFinding, Verdict
from accelplane.matrix.loader import MatrixData
from accelplane.matrix.stack import Stack
from accelplane.matrix.versions import Version, parse_version

DATA = "accelplane/matrix/data"
_CU_LABEL = re.compile(r"^cu(?P<digits>\d{2,3})$")
_ROCM_LABEL = re.compile(r"^rocm(?P<version>\d+(?:\.\d+)*)$")


def series(version: Version, parts: int = 2) -> str:
    """`12.8.1` -> `12.8` (the part of a version that names a release line)."""
    padded = version.release + (0,) * parts
    return ".".join(str(n) for n in padded[:parts])


def matches(version: Version, listed: str, match: str = "exact") -> bool:
    """Exact version equality, or `series`: the listed prefix (1.16 matches 1.16.3)."""
    wanted = parse_version(listed)
    if match == "series":
        return version.has_prefix(wanted)
    return version == wanted


def listing(values: Iterable[object], limit: int = 8) -> str:
    items = [str(v) for v in values]
    if len(items) > limit:
        items = [*items[: limit - 1], "...", items[-1]]
    return ", ".join(items) if items else "none"


def month_name(yyyy_mm: str) -> str:
    year, month = (int(part) for part in yyyy_mm.split("-"))
    return dt.date(year, month, 1).strftime("%B %Y")


@dataclass(frozen=True)
class TorchBuild:
    """The torch wheel the stack means: release facts, and the CUDA/ROCm build.

    kind: cuda | rocm | cpu | other (a vendor build such as +hpu) | unspecified.
    `from_label` says the build came from a local label (`2.8.0+cu128`) rather than being inferred
    from the stack's `cuda`/`rocm` or the PyPI default.
    """

    version: Version
    release: f.TorchRelease | None
    kind: str
    variant: Version | None
    from_label: bool
    pypi_default: bool


@dataclass
class Context:
    stack: Stack
    data: MatrixData
    as_of: dt.date
    findings: list[MatrixFinding] = field(default_factory=list)

    # -- reporting ---------------------------------------------------------------------------------
    def add(
        self,
        rule: str,
        verdict: Verdict,
        message: str,
        source: str,
        fields: Iterable[str] = (),
        *,
        not_in_matrix: bool = False,
    ) -> None:
        self.findings.append(MatrixFinding(rule, verdict, message, source, tuple(fields), not_in_matrix))

    def ok(self, rule: str, message: str, source: str, fields: Iterable[str] = ()) -> None:
        self.add(rule, Verdict.COMPATIBLE, message, source, fields)

    def bad(self, rule: str, message: str, source: str, fields: Iterable[str] = ()) -> None:
        self.add(rule, Verdict.INCOMPATIBLE, message, source, fields)

    def unknown(self, rule: str, message: str, source: str, fields: Iterable[str] = ()) -> None:
        """A version the data does not cover: never a silent pass."""
        self.add(rule, Verdict.WARN, f"not in the matrix: {message}", source, fields, not_in_matrix=True)

    # -- shared derivations ------------------------------------------------------------------------
    @property
    def vendor(self) -> str:
        return self.stack.vendor

    @cached_property
    def torch_build(self) -> TorchBuild | None:
        torch = self.stack.v("torch")
        if torch is None:
            return None
        release = (
            self.data.torch.get(torch.truncate(3)) if len(torch.release) >= 3 else self.data.torch.get(torch)
        )
        label = (torch.local or "").lower()
        if label:
            if match := _CU_LABEL.match(label):
                digits = match["digits"]
                variant = parse_version(f"{digits[:-1]}.{digits[-1]}")
                return TorchBuild(torch, release, "cuda", variant, True, False)
            if match := _ROCM_LABEL.match(label):
                return TorchBuild(torch, release, "rocm", parse_version(match["version"]), True, False)
            if label == "cpu":
                return TorchBuild(torch, release, "cpu", None, True, False)
            return TorchBuild(torch, release, "other", None, True, False)
        if self.vendor == "nvidia":
            cuda = self.stack.v("cuda")
            if cuda is not None:
                variant = parse_version(series(cuda))
                default = release is not None and parse_version(release.pypi_cuda) == variant
                return TorchBuild(torch, release, "cuda", variant, False, default)
            if release is not None:
                return TorchBuild(torch, release, "cuda", parse_version(release.pypi_cuda), False, True)
            return TorchBuild(torch, release, "unspecified", None, False, False)
        if self.vendor == "amd":
            rocm = self.stack.v("rocm_userspace") or self.stack.v("rocm")
            if rocm is None:
                return TorchBuild(torch, release, "unspecified", None, False, False)
            variant = parse_version(series(rocm))
            if release is not None:
                for listed in release.rocm_variants:
                    candidate = parse_version(listed)
                    if candidate.has_prefix(variant) or rocm.has_prefix(candidate):
                        variant = candidate
                        break
            return TorchBuild(torch, release, "rocm", variant, False, False)
        return TorchBuild(torch, release, "unspecified", None, False, False)

    def cuda_runtimes(self) -> list[tuple[Version, str, tuple[str, ...]]]:
        """CUDA runtimes the node must run: the stack's `cuda` and the torch wheel's CUDA build."""
        out: list[tuple[Version, str, tuple[str, ...]]] = []
        cuda = self.stack.v("cuda")
        if cuda is not None:
            out.append((cuda, f"CUDA {cuda}", ("cuda", "driver")))
        build = self.torch_build
        if build is not None and build.kind == "cuda" and build.variant is not None:
            runtime = build.variant
            if build.pypi_default and build.release is not None:
                # `cuda-toolkit==13.2.2` names a toolkit release; `nvidia-cuda-runtime-cu12==12.8.90` is a
                # library build, judged by its toolkit line (12.8).
                pinned = parse_version(build.release.cuda_runtime)
                if any(pinned == listed for listed, _, _ in self.data.cuda_rows):
                    runtime = pinned
            if cuda is None or series(runtime) != series(cuda):
                out.append(
                    (
                        runtime,
                        f"the torch {build.version} wheel's CUDA {series(runtime)} runtime",
                        ("torch", "driver"),
                    )
                )
        return out

    @cached_property
    def glibc(self) -> tuple[Version, str, str] | None:
        """(glibc, where it came from, source) from `glibc`, else from the OS release."""
        glibc = self.stack.v("glibc")
        if glibc is not None:
            return glibc, f"glibc {glibc}", "stack"
        os_name = self.stack.os
        if os_name is None:
            return None
        for name, record in self.data.os_releases.items():
            if os_name.matches(name):
                return parse_version(record.glibc), f"{os_name} (glibc {record.glibc})", record.source
        return None
