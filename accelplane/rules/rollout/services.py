"""An inference service's backends and rollout as the rules read them, and the version-matrix join of a
backend's image with the pool it runs on.

The `accelplane:k8s:InferenceService` component carries the props `accelplane/k8s/service_props.py`
writes (camelCase, as the engine records them): `service`, `backends` (name, nodePool, accelerator,
weight, minReplicas, maxReplicas, softwareProfile, versions) and `rollout` (baseline, canary, steps)
or none. A backend's image brings its user-space stack (CUDA, cuDNN, NCCL, the framework, the Neuron
SDK, libtpu, ...) from its own software profile; the node brings the rest (driver, kernel module,
Fabric Manager, OS, instance type), read from the pool's labels in the graph, exactly as AP-VER-004
joins a pod's image with its pool. `accelplane diff` uses the same join for its verdict column.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from accelplane.errors import InputError
from accelplane.node_labels import POOL_LABEL
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.kubernetes.pods import node_groups_by_label
from accelplane.rules.matrix.labels import MATRIX_KEYS, matrix_stack, node_labels
from accelplane.rules.view import Resource, as_int, as_list, as_str, get, mapping

# What the node brings: the host, its kernel-side driver stack and the instance. Everything else the
# matrix judges (CUDA, cuDNN, NCCL, the frameworks, ROCm user space, the Neuron SDK, libtpu, Python)
# ships inside the image and comes from the backend's profile.
NODE_KEYS = frozenset(
    {"accelerator", "instance", "os", "kernel", "glibc", "driver", "kernel_module", "fabric_manager",
     "compat_package", "amdgpu_kmd", "tpu_runtime", "efa_installer"}
)
USER_SPACE_KEYS = MATRIX_KEYS - NODE_KEYS


@dataclass(frozen=True)
class Backend:
    name: str
    node_pool: str
    weight: int | None
    min_replicas: int | None
    software_profile: str
    versions: Mapping[str, str]
    image_digest: str = ""  # the image's sha256 hex; "": a revision whose component does not record it


def _declared(service: Resource, key: str) -> object:
    """A prop of the component, else its registered output of that name: a `pulumi stack export`
    keeps a component's registered outputs, and the component registers its props as outputs."""
    value = service.get(key)
    return value if value is not None else service.outputs.get(key)


def service_name(service: Resource) -> str:
    return as_str(_declared(service, "service")) or service.name


def backends(service: Resource) -> list[Backend]:
    out = []
    for raw in as_list(_declared(service, "backends")):
        name = as_str(get(raw, "name"))
        if not name:
            continue
        out.append(Backend(
            name=name,
            node_pool=as_str(get(raw, "nodePool")),
            weight=as_int(get(raw, "weight")),
            min_replicas=as_int(get(raw, "minReplicas")),
            software_profile=as_str(get(raw, "softwareProfile")),
            versions={str(k): as_str(v) for k, v in mapping(get(raw, "versions")).items() if as_str(v)},
            image_digest=as_str(get(raw, "imageDigest")),
        ))
    return out


def weights(service: Resource) -> dict[str, int]:
    return {backend.name: backend.weight or 0 for backend in backends(service)}


@dataclass(frozen=True)
class RolloutView:
    baseline: str
    canary: str
    steps: tuple[int, ...] = ()  # the canary's weights, step by step (rollout.steps)


def rollout(service: Resource) -> RolloutView | None:
    raw = mapping(_declared(service, "rollout"))
    if not raw:
        return None
    steps = get(raw, "steps")
    return RolloutView(baseline=as_str(get(raw, "baseline")), canary=as_str(get(raw, "canary")),
                       steps=tuple(int(s) for s in steps if isinstance(s, int | float)) if isinstance(steps, list)
                       else ())


# ---------------------------------------------------------------------------------------------- matrix


@dataclass(frozen=True)
class MatrixFinding:
    rule: str
    verdict: str
    message: str  # with its source
    fields: tuple[str, ...]  # the keys the fact relates: the pair


Judged = tuple[str, tuple[MatrixFinding, ...]]


@dataclass(frozen=True)
class BackendJudgement:
    """One backend on one pool resource: the verdict of the joined stack and the incompatibilities the
    pool does not have on its own (those are AP-VER-001's)."""

    backend: str
    pool: str  # the declared pool name
    pool_resource: str
    stack: Mapping[str, str]
    verdict: str
    findings: tuple[MatrixFinding, ...]  # every finding of the joined stack that is not plainly compatible
    new: tuple[MatrixFinding, ...]

    def pair(self, finding: MatrixFinding) -> str:
        return " with ".join(f"{key} {self.stack.get(key, 'unset')}" for key in finding.fields)


def judge_stack(stack: Mapping[str, str], as_of: date | None) -> Judged:
    """(verdict, findings that are not plainly compatible) from the version matrix, cached per stack."""
    return _judge(tuple(sorted(stack.items())), as_of)


@lru_cache(maxsize=1024)
def _judge(items: tuple[tuple[str, str], ...], as_of: date | None) -> Judged:
    try:
        # Start-up time: the matrix loads only when a backend's versions are judged.
        from accelplane.matrix import check as matrix_check

        report = matrix_check(dict(items), as_of=as_of, strict=False, origin="inference service backend")
    except InputError as error:
        # A value the matrix cannot parse (a hand-edited plan) runs nowhere: reported, not raised.
        return "incompatible", tuple(MatrixFinding("input", "incompatible", p.message, (p.field,) if p.field else ())
                                     for p in error.problems)
    return str(report.verdict), tuple(
        MatrixFinding(str(f.rule), str(f.verdict), f.message + (f" (source: {f.source})" if f.source else ""),
                      tuple(f.fields))
        for f in report.findings if str(f.verdict) != "compatible"
    )


def judge_backend(backend: Backend, graph: ReferenceGraph) -> list[BackendJudgement]:
    """The backend judged on each resource of its pool (a multi-slice TPU pool has several); none when the
    pool is not in the graph or runs no accelerator."""
    out = []
    for pool in node_groups_by_label(graph, POOL_LABEL).get(backend.node_pool, []):
        own = matrix_stack(pool)
        if own is None:
            continue
        node = {k: v for k, v in own.items() if k in NODE_KEYS}
        image = {k: v for k, v in backend.versions.items() if k in USER_SPACE_KEYS}
        joined = {**node, **image}
        verdict, findings = judge_stack(joined, graph.as_of)
        known = {*judge_stack(node, graph.as_of)[1], *judge_stack(own, graph.as_of)[1]}
        new = tuple(f for f in findings if f.verdict == "incompatible" and f not in known)
        label = as_str(node_labels(pool).get(POOL_LABEL)) or pool.name
        out.append(BackendJudgement(backend.name, label, pool.name, joined, verdict, findings, new))
    return out


_RANK = {"compatible": 0, "warn": 1, "conditional": 2, "incompatible": 3}


def worst(verdicts: list[str]) -> str | None:
    return max(verdicts, key=lambda v: _RANK.get(v, 3)) if verdicts else None
