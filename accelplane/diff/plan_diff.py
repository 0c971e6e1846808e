"""What `accelplane diff` found: resource changes, finding changes, software changes and rollout changes.

Every formatter (table, JSON, Markdown) renders a `PlanDiff`; nothing here knows about git, the
engine or the rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from accelplane.diff.text_changes import is_downgrade, is_multiline, line_diff, names_version
from accelplane.report.document import Item
from accelplane.rules.sources import is_bookkeeping
from accelplane.tool import report_header

if TYPE_CHECKING:
    from accelplane.diff.bundle_lock import ArtifactChange
    from accelplane.diff.cost import CostDiff

SECRET = "[secret]"


class _Absent:
    """No value on this side of a change (the key or element does not exist there)."""

    _instance: _Absent | None = None

    def __new__(cls) -> _Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()


@dataclass(frozen=True)
class InputChange:
    """One input that differs: its path (`labels["versions.accelplane.io/driver"]`) and both values."""

    path: str
    old: Any = ABSENT
    new: Any = ABSENT
    secret: bool = False  # values are masked: only the fact that it changed is shown

    @property
    def op(self) -> str:
        if self.old is ABSENT:
            return "add"
        return "remove" if self.new is ABSENT else "change"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "op": self.op}
        if self.old is not ABSENT:
            out["old"] = SECRET if self.secret else self.old
        if self.new is not ABSENT:
            out["new"] = SECRET if self.secret else self.new
        if self.op == "change" and is_multiline(self.old, self.new, self.secret):
            out["lines"] = line_diff(self.old, self.new)
        if not self.secret and names_version(self.path) and is_downgrade(self.old, self.new):
            out["downgrade"] = True
        return out


@dataclass(frozen=True)
class Component:
    """The component resource a resource belongs to (its parent); `urn` None only without a parent."""

    urn: str | None
    type: str
    name: str

    @property
    def is_stack(self) -> bool:
        return self.type == "pulumi:pulumi:Stack" or self.urn is None

    @property
    def label(self) -> str:
        return "stack" if self.is_stack else f"{self.type.rsplit(':', 1)[-1]} {self.name}"

    @property
    def sort_key(self) -> tuple[int, str, str]:
        return (0 if self.is_stack else 1, self.type.rsplit(":", 1)[-1], self.name)

    def to_json(self) -> dict[str, Any]:
        return {"urn": self.urn, "type": self.type, "name": self.name}


# As `pulumi preview` marks them; a replacement whose old resource goes first reads "-+".
_SYMBOLS = {"create": "+", "update": "~", "replace": "+-", "delete-before-replace": "-+", "delete": "-"}
OPS = ("create", "update", "replace", "delete-before-replace", "delete")
REPLACING = frozenset({"replace", "delete-before-replace"})


@dataclass(frozen=True)
class ResourceDiff:
    """A resource the change creates, updates (inputs differ), replaces (an input its provider cannot
    change in place, or one its component declares, differs) or deletes, matched by URN.

    `forced_by` names the changed inputs that force a replacement; `meaning` says what it costs where
    that is more than a new id (a node pool's nodes and the jobs on them); `key_inputs` are what a
    created resource is (its type's identifying inputs)."""

    op: str  # create | update | replace | delete-before-replace | delete
    urn: str
    type: str
    name: str
    component: Component
    changes: tuple[InputChange, ...] = ()
    forced_by: tuple[str, ...] = ()
    meaning: str | None = None
    key_inputs: tuple[tuple[str, Any], ...] = ()

    @property
    def symbol(self) -> str:
        return _SYMBOLS[self.op]

    @property
    def replaces(self) -> bool:
        return self.op in REPLACING

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"op": self.op, "urn": self.urn, "type": self.type, "name": self.name,
                               "parent": self.component.urn}
        if self.op == "update" or self.replaces:
            out["changes"] = [change.to_json() for change in self.changes]
        if self.replaces:
            out["replace_because"] = list(self.forced_by)
            if self.meaning:
                out["meaning"] = self.meaning
        if self.op == "create" and self.key_inputs:
            out["inputs"] = dict(self.key_inputs)
        return out


@dataclass(frozen=True)
class VersionChange:
    key: str
    old: str | None
    new: str | None

    @property
    def downgrade(self) -> bool:
        return is_downgrade(self.old, self.new)

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "old": self.old, "new": self.new} | ({"downgrade": True} if self.downgrade else {})


@dataclass(frozen=True)
class SoftwareChange:
    """A pinned version set that changes for one node pool, bare-metal group or the cluster add-ons."""

    kind: str  # node pool | bare-metal group | cluster add-ons
    name: str
    status: str  # added | removed | changed
    profile: tuple[str | None, str | None]  # (base, new)
    accelerator: tuple[str | None, str | None]
    changes: tuple[VersionChange, ...]
    verdict: str | None = None  # the matrix verdict of the new set; None where nothing is judged
    verdict_findings: tuple[tuple[str, str, str], ...] = ()  # (rule, verdict, message), not compatible ones

    @property
    def title(self) -> str:
        return self.kind if self.kind == "cluster add-ons" else f"{self.kind} {self.name}"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "name": self.name, "status": self.status,
            "profile": {"old": self.profile[0], "new": self.profile[1]},
            "accelerator": {"old": self.accelerator[0], "new": self.accelerator[1]},
            "changes": [change.to_json() for change in self.changes],
            "verdict": self.verdict,
            "verdict_findings": [{"rule": r, "verdict": v, "message": m} for r, v, m in self.verdict_findings],
        }


@dataclass(frozen=True)
class BackendChange:
    """One backend of an inference service: its pool and weight on each side (weight None: not there) and the
    matrix verdict of its image on its pool in the working tree (None where nothing is judged: a removed
    backend, a pool outside the graph or without accelerators)."""

    name: str
    pool: tuple[str | None, str | None]
    weight: tuple[int | None, int | None]
    verdict: str | None = None
    verdict_findings: tuple[tuple[str, str, str], ...] = ()  # (rule, verdict, message), not compatible ones

    @property
    def status(self) -> str:
        if self.weight[0] is None:
            return "added"
        if self.weight[1] is None:
            return "removed"
        return "changed" if self.weight[0] != self.weight[1] or self.pool[0] != self.pool[1] else "unchanged"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "status": self.status,
            "pool": {"old": self.pool[0], "new": self.pool[1]},
            "weight": {"old": self.weight[0], "new": self.weight[1]},
            "verdict": self.verdict,
            "verdict_findings": [{"rule": r, "verdict": v, "message": m} for r, v, m in self.verdict_findings],
        }


@dataclass(frozen=True)
class ServiceRollout:
    """An inference service whose backends, weights, rollout policy or backends' verdicts change."""

    service: str
    name: str  # the component resource's name (what an AP-RO-004 waiver names)
    urn: str
    status: str  # added | removed | changed
    baseline: str | None
    canary: str | None
    backends: tuple[BackendChange, ...]
    problems: tuple[str, ...] = ()  # why the change of weights is not one rollout step (AP-RO-004)
    parity: tuple[str, ...] = ()  # why the canary's last parity report no longer vouches for it

    def to_json(self) -> dict[str, Any]:
        return {
            "service": self.service, "name": self.name, "urn": self.urn, "status": self.status,
            "baseline": self.baseline, "canary": self.canary,
            "backends": [backend.to_json() for backend in self.backends],
            "problems": list(self.problems),
            "parity_invalidated": list(self.parity),
        }


def _item_json(item: Item) -> dict[str, Any]:
    out = {**item.to_json(), "blocking": item.blocking}
    if item.waived:
        out["waiver_reason"] = item.waiver_reason
    return out


@dataclass
class PlanDiff:
    """Base revision against the working tree, for one stack."""

    stack: str
    base_ref: str
    base_commit: str
    base_resources: int
    head_resources: int
    resources: list[ResourceDiff]
    introduced: list[Item]  # open in the working tree, not open at the base
    resolved: list[Item]  # open at the base, gone or waived in the working tree (then `waived`)
    software: list[SoftwareChange]
    head: str = "working tree"
    notes: list[str] = field(default_factory=list)
    rollout: list[ServiceRollout] = field(default_factory=list)
    # Bundle-lock artifacts added, removed and changed; None when the stack has no lock in both revisions.
    artifacts: list[ArtifactChange] | None = None
    lock_file: str | None = None
    # Monthly cost of both revisions and the picture of pools and traffic; None when the plan says no region.
    cost: CostDiff | None = None
    # False when the stack is new in the change: the stack itself is then created too.
    base_exists: bool = True

    def of(self, op: str) -> list[ResourceDiff]:
        return [resource for resource in self.resources if resource.op == op]

    @property
    def blocking(self) -> list[Item]:
        """Introduced findings that block: unwaived and mandatory."""
        return [item for item in self.introduced if item.blocking]

    @property
    def passed(self) -> bool:
        return not self.blocking

    @property
    def base_label(self) -> str:
        return f"{self.base_ref} ({self.base_commit[:7]})"

    def components(self) -> list[tuple[Component, list[ResourceDiff]]]:
        groups: dict[str | None, list[ResourceDiff]] = {}
        for resource in self.resources:
            groups.setdefault(resource.component.urn, []).append(resource)
        ordered = sorted(groups.values(), key=lambda members: members[0].component.sort_key)
        return [(members[0].component, sorted(members, key=lambda r: (r.name, r.type))) for members in ordered]

    def summary(self) -> dict[str, Any]:
        return {
            # A stack new in the change creates its Stack resource too, which `pulumi preview` (and
            # `accelplane preview`) count: the same stack reads the same number in both.
            "create": len(self.of("create")) + (0 if self.base_exists else 1),
            "update": len(self.of("update")),
            "replace": len(self.of("replace")) + len(self.of("delete-before-replace")),
            "delete_before_replace": len(self.of("delete-before-replace")),
            "delete": len(self.of("delete")),
            # Providers are listed (a provider change is worth a reviewer's eye) but, as in every count of
            # resources, not counted.
            "unchanged": self.head_resources - sum(
                1 for op in ("create", "update", *REPLACING) for r in self.of(op) if not is_bookkeeping(r.type)),
            "resources": {"base": self.base_resources, "new": self.head_resources},
            "findings_introduced": len(self.introduced),
            "findings_resolved": len(self.resolved),
            "blocking": len(self.blocking),
            "software_changes": len(self.software),
            "rollout_changes": len(self.rollout),
            "passed": self.passed,
        } | ({"artifact_changes": len(self.artifacts)} if self.artifacts is not None else {})

    def to_json(self) -> dict[str, Any]:
        return {
            **report_header(),
            "stack": self.stack,
            "base": {"ref": self.base_ref, "commit": self.base_commit},
            "head": self.head,
            "summary": self.summary(),
            "components": [
                {**component.to_json(), "resources": [r.to_json() for r in members]}
                for component, members in self.components()
            ],
            "findings": {"introduced": [_item_json(i) for i in self.introduced],
                         "resolved": [_item_json(i) for i in self.resolved]},
            "software": [change.to_json() for change in self.software],
            "rollout": [service.to_json() for service in self.rollout],
            "notes": list(self.notes),
        } | ({"artifacts": {"lock": self.lock_file, "changes": [c.to_json() for c in self.artifacts]}}
             if self.artifacts is not None else {}) | ({"cost": self.cost.to_json()} if self.cost is not None else {})


def plan_counts(summary: dict[str, Any]) -> str:
    """`3 to create, 1 to update, 2 to delete`, with replacements only when there are some (and how many
    of them delete first)."""
    parts = []
    for op in ("create", "update", "replace", "delete"):
        if op == "replace" and not summary[op]:
            continue
        text = f"{summary[op]} to {op}"
        if op == "replace" and summary.get("delete_before_replace"):
            text += f" ({summary['delete_before_replace']} deleted before the new one exists)"
        parts.append(text)
    return ", ".join(parts)
