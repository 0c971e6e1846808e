"""AP-RO-001: every backend's image stack is matrix-compatible with the node pool it runs on.

A weighted canary usually moves a service to another accelerator (L40S to Inferentia2, H100 to
B200) or to an image built for another CUDA: the image's user-space versions (its software profile:
CUDA, cuDNN, NCCL, torch, the Neuron SDK, libtpu, ...) are joined with the pool's node side
(driver, kernel module, Fabric Manager, OS, instance type, read from the pool's labels) and the
version matrix decides. Only incompatibilities the pool does not have on its own count: those are
AP-VER-001's. EKS node groups and GKE node pools alike.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rollout.services import backends, judge_backend
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    seen = set()
    for backend in backends(resource):
        profile = f" (profile {backend.software_profile})" if backend.software_profile else ""
        for judged in judge_backend(backend, graph):
            for finding in judged.new:
                pair = judged.pair(finding)
                message = (f"backend {backend.name}{profile} on pool {judged.pool}: "
                           f"{pair + ': ' if pair else ''}{finding.rule}: {finding.message}")
                if message not in seen:  # the slices of one pool carry the same labels
                    seen.add(message)
                    yield message


RULE = Rule(
    id="AP-RO-001",
    name="rollout-backend-matrix-compatible",
    description="Checks whether each inference backend's image versions (its software profile) pass the "
    "version matrix together with the driver stack of the node pool it runs on.",
    family=Family.rollout,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Give the backend a software_profile its image was really built with and that the pool's driver "
    "supports (`accelplane matrix check` explains each fact), or run it on a pool with a newer driver.",
    resource_types=frozenset({t.INFERENCE_SERVICE}),
    check=check,
    scope=Scope.stack,
    categories=("rollout", "version-matrix"),
)
