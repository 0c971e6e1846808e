"""Software-profile version changes per node pool (and bare-metal group, and the cluster add-ons),
with the version-matrix verdict of each new set.

The version sets are read from the two declarations, not from the graphs: node labels carry the
versions of cloud node pools only, while bare-metal groups (Ansible) and the add-ons profile never
become labels. The base declaration is read as plain data, without validation: it was valid for
the base revision's model, which may differ from today's (a renamed key must not stop a review).
The working tree's declaration is validated (it has to be, to be deployed) and the new sets are
judged by today's matrix, exactly as `accelplane preview` and `check` judge them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from accelplane import matrix
from accelplane.declaration import Platform, SoftwareProfile
from accelplane.diff.plan_diff import SoftwareChange, VersionChange
from accelplane.errors import InputError

NODE_POOL = "node pool"
BARE_METAL = "bare-metal group"
ADDONS = "cluster add-ons"
_KIND_ORDER = {NODE_POOL: 0, BARE_METAL: 1, ADDONS: 2}


@dataclass(frozen=True)
class Target:
    """What runs one pinned version set: a node pool, a bare-metal group, or the cluster add-ons."""

    kind: str
    name: str
    profile: str | None
    accelerator: str | None
    instance: str | None = None
    versions: dict[str, str] = field(default_factory=dict)


def targets(platform: Mapping[str, Any]) -> dict[tuple[str, str], Target]:
    """Every target of a declaration given as plain data (`accelplane:platform`), keyed by (kind, name)."""
    profiles = platform.get("software_profiles") if isinstance(platform.get("software_profiles"), Mapping) else {}
    assert isinstance(profiles, Mapping)

    def versions(name: Any) -> dict[str, str]:
        profile = profiles.get(name) if isinstance(name, str) else None
        if not isinstance(profile, Mapping):
            return {}
        return {str(k): str(v) for k, v in profile.items() if k != "description" and v is not None and v != ""}

    out: dict[tuple[str, str], Target] = {}
    for pool in _mappings(platform.get("node_pools")):
        name = str(pool.get("name"))
        out[(NODE_POOL, name)] = Target(NODE_POOL, name, _str(pool.get("software_profile")),
                                        _str(pool.get("accelerator")), _str(pool.get("instance_type")),
                                        versions(pool.get("software_profile")))
    bare_metal = platform.get("bare_metal")
    for group in _mappings(bare_metal.get("groups") if isinstance(bare_metal, Mapping) else None):
        name = str(group.get("name"))
        out[(BARE_METAL, name)] = Target(BARE_METAL, name, _str(group.get("software_profile")),
                                         _str(group.get("accelerator")), None, versions(group.get("software_profile")))
    kubernetes = platform.get("kubernetes")
    addons = kubernetes.get("addons_profile") if isinstance(kubernetes, Mapping) else None
    if isinstance(addons, str):
        out[(ADDONS, "cluster")] = Target(ADDONS, "cluster", addons, None, None, versions(addons))
    return out


def software_changes(
    base: Mapping[str, Any], head: Mapping[str, Any], platform: Platform, as_of: date | None = None
) -> list[SoftwareChange]:
    """Changes from the base declaration's targets to the working tree's; `platform` is the latter, validated."""
    old, new = targets(base), targets(head)
    # Versions listed in the order the stack's cloud's profile model declares them (a cloud adds its own pins).
    profiles = list(platform.software_profiles.values())
    profile_model = type(profiles[0]) if profiles else SoftwareProfile
    order = {name: index for index, name in enumerate(profile_model.model_fields)}
    out = []
    for key in sorted(set(old) | set(new), key=lambda k: (_KIND_ORDER[k[0]], k[1])):
        before, after = old.get(key), new.get(key)
        if before is None and after is not None:
            if not after.profile:
                continue  # a CPU pool without a profile pins nothing
            status = "added"
        elif after is None and before is not None:
            if not before.profile:
                continue
            status = "removed"
        else:
            assert before is not None and after is not None
            if (before.profile, before.accelerator, before.versions) == (after.profile, after.accelerator,
                                                                         after.versions):
                continue
            status = "changed"
        changes = _version_changes(before.versions if before else {}, after.versions if after else {}, order)
        verdict, findings = _verdict(after, platform, as_of) if after else (None, ())
        out.append(SoftwareChange(
            kind=key[0], name=key[1], status=status,
            profile=(before.profile if before else None, after.profile if after else None),
            accelerator=(before.accelerator if before else None, after.accelerator if after else None),
            changes=changes, verdict=verdict, verdict_findings=findings,
        ))
    return out


def _version_changes(
    old: Mapping[str, str], new: Mapping[str, str], order: Mapping[str, int]
) -> tuple[VersionChange, ...]:
    keys = sorted(set(old) | set(new), key=lambda k: (order.get(k, len(order)), k))
    return tuple(VersionChange(k, old.get(k), new.get(k)) for k in keys if old.get(k) != new.get(k))


def _verdict(target: Target, platform: Platform, as_of: date | None) -> tuple[str | None, tuple[tuple[str, str, str],
                                                                                                ...]]:
    profile = platform.software_profiles.get(target.profile) if target.profile else None
    if profile is None or target.accelerator is None:
        return None, ()
    origin = f"software_profiles.{target.profile} ({target.kind} {target.name})"
    try:
        report = matrix.check(profile.matrix_stack(target.accelerator, target.instance), as_of=as_of, origin=origin)
    except InputError as error:
        return "invalid", tuple(("input", "invalid", problem.message) for problem in error.problems)
    return report.verdict.value, tuple(
        (f.rule, f.verdict.value, f.message) for f in report.findings if f.verdict.value != "compatible")


def _mappings(value: Any) -> list[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, Mapping) and item.get("name")] if isinstance(value, list) else []


def _str(value: Any) -> str | None:
    return None if value is None else str(value)
