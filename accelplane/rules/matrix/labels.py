"""Read a node pool's software stack back from its labels, and ask the version matrix about it.

The program labels every node pool (an EKS node group, a GKE node pool) with
`accelplane.io/accelerator`, `accelplane.io/profile`, `accelplane.io/pool` and
`versions.accelplane.io/<key>` (each pinned version of the profile, `_` written `-`), so these rules
judge a state or plan file exactly as the declaration; each cloud says where its pools keep their
labels (`accelplane.rules.cloud_rules`). Bare-metal host groups (`accelplane.rules.bare_metal_groups`)
carry the same facts as plain props.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from functools import lru_cache
from typing import Any

from accelplane.errors import InputError
from accelplane.matrix.keys import MATRIX_KEYS as _CONTRACT_KEYS
from accelplane.rules import types as t
from accelplane.rules.cloud_rules import node_pool_shapes, node_pool_types
from accelplane.rules.view import Resource, as_str, mapping

ACCELERATOR_LABEL = "accelplane.io/accelerator"
PROFILE_LABEL = "accelplane.io/profile"
GROUP_LABEL = "accelplane.io/group"
VERSION_PREFIX = "versions.accelplane.io/"
# Keys of the `matrix check` contract (docs/design.md) other than `accelerator` and `as_of`: the
# matrix's own set (accelplane.matrix.stack), so a key the matrix learns is read from labels too.
MATRIX_KEYS = _CONTRACT_KEYS - {"accelerator", "as_of"}


# The node-pool resource types of every installed cloud, and where each keeps its labels and machine type.
POOL_TYPES = node_pool_types()


def node_labels(node_group: Resource) -> Mapping[str, Any]:
    """The Kubernetes labels of a node pool (an EKS node group, a GKE node pool, …)."""
    shape = node_pool_shapes().get(node_group.type)
    return mapping(node_group.get(*shape.labels_at)) if shape else mapping(node_group.get("labels"))


def instance_type(node_group: Resource) -> str:
    """The machine type a node pool's nodes run (an EC2 instance type, a Compute Engine machine type)."""
    shape = node_pool_shapes().get(node_group.type)
    return shape.instance_type(node_group) if shape else ""


def accelerator(node_group: Resource) -> str | None:
    value = as_str(node_labels(node_group).get(ACCELERATOR_LABEL))
    return value if value and value != "none" else None


def versions(node_group: Resource) -> dict[str, str]:
    """Every `versions.accelplane.io/*` label, keyed by profile field name."""
    return {
        key[len(VERSION_PREFIX):].replace("-", "_"): as_str(value)
        for key, value in node_labels(node_group).items()
        if key.startswith(VERSION_PREFIX) and as_str(value)
    }


def profile_name(target: Resource) -> str:
    if target.type == t.BARE_METAL_GROUP:
        return as_str(target.get("softwareProfile")) or "?"
    return as_str(node_labels(target).get(PROFILE_LABEL)) or "?"


def strict(target: Resource) -> bool:
    """Whether the declaration asks for conditional verdicts to block too (`bare_metal.strict_matrix`)."""
    return target.type == t.BARE_METAL_GROUP and target.get("strictMatrix") is True


def matrix_stack(target: Resource) -> dict[str, str] | None:
    """The flat mapping `accelplane.matrix.judge` judges for a node group or a bare-metal host
    group, or None for a CPU pool."""
    if target.type == t.BARE_METAL_GROUP:
        name = as_str(target.get("accelerator"))
        if not name:
            return None
        pinned = {k: as_str(v) for k, v in mapping(target.get("versions")).items() if k in MATRIX_KEYS}
        return {**pinned, "accelerator": name}
    node_group = target
    name = accelerator(node_group)
    if name is None:
        return None
    stack = {k: v for k, v in versions(node_group).items() if k in MATRIX_KEYS}
    instance = instance_type(node_group)
    if instance:
        stack["instance"] = instance
    stack["accelerator"] = name
    return stack


Judgment = tuple[str, tuple[tuple[str, str, str], ...]]


def judge(stack: Mapping[str, str], as_of: date | None) -> Judgment:
    """(verdict, ((rule, verdict, message + source), ...)) from the version matrix, cached per stack:
    pools sharing a profile are judged once."""
    return _judge(tuple(sorted(stack.items())), as_of)


@lru_cache(maxsize=2048)
def _judge(items: tuple[tuple[str, str], ...], as_of: date | None) -> Judgment:
    try:
        # Start-up time: the matrix loads only when a pool's labels are judged (not for every check).
        from accelplane.matrix import check

        report = check(dict(items), as_of=as_of, strict=False, origin="node pool labels")
    except InputError as error:
        # A label or profile value the matrix cannot even parse (a hand-edited state, an unknown
        # accelerator) runs nowhere: the rule reports it instead of the command failing.
        return "incompatible", tuple(("input", "incompatible", f"{p.field}: {p.message}" if p.field else p.message)
                                     for p in error.problems)
    findings = tuple(
        (str(f.rule), str(f.verdict), f.message + (f" (source: {f.source})" if f.source else ""))
        for f in report.findings
        if str(f.verdict) != "compatible"
    )
    return str(report.verdict), findings
