"""Judge every node pool's software profile against the version matrix, for its accelerator.

One profile may serve several pools with different accelerators or instance types, so the
check runs per (pool, profile) pair, not per profile.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from accelplane.declaration import Platform
from accelplane.matrix import check


@dataclass(frozen=True)
class PoolProfileCheck:
    pool: str
    profile: str
    accelerator: str
    verdict: str
    findings: tuple[tuple[str, str, str], ...]  # (rule, verdict, message)

    @property
    def blocking(self) -> bool:
        return self.verdict == "incompatible"


def check_pool_profiles(platform: Platform, as_of: date | None = None, strict: bool = False) -> list[PoolProfileCheck]:
    results = []
    for pool in platform.node_pools:
        profile = platform.pool_profile(pool)
        if profile is None or pool.accelerator is None or pool.software_profile is None:
            continue
        report = check(
            profile.matrix_stack(pool.accelerator, pool.instance_type),
            as_of=as_of,
            strict=strict,
            origin=f"software_profiles.{pool.software_profile} (pool {pool.name})",
        )
        results.append(
            PoolProfileCheck(
                pool=pool.name,
                profile=pool.software_profile,
                accelerator=pool.accelerator,
                verdict=report.verdict,
                findings=tuple((f.rule, f.verdict, f.message) for f in report.findings if f.verdict != "compatible"),
            )
        )
    return results


def render_profile_checks(results: list[PoolProfileCheck]) -> str:
    lines = ["Software profiles (version matrix):"]
    if not results:
        lines.append("    no accelerator pools")
    for result in results:
        lines.append(f"    {result.pool:<16} {result.profile:<16} {result.accelerator:<24} {result.verdict}")
        for rule, verdict, message in result.findings:
            lines.append(f"        {verdict:<12} {rule}: {message}")
    return "\n".join(lines)
