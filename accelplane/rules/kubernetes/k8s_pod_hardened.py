"""AP-K8S-009: the platform's workloads run hardened pods.

Every pod of an inference or platform workload in the graph has: a read-only root file system in
every container (writable places are emptyDir volumes), no service-account API token
(`automountServiceAccountToken: false`: a model server never calls the Kubernetes API, and IRSA and
GKE Workload Identity need no such token), a pod-level security context that runs as a non-root user
of UID and GID >= 10000 (never a user of the node) with an `fsGroup`, and the runtime's default
seccomp profile. These are the hardening checks a peer scanner (checkov CKV_K8S_22, _29, _38, _40)
asks of them.

The only exemptions are the platform's own privileged device components (`platform_components`),
each with the reason it needs more, recognised by identity as AP-K8S-001 does.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.kubernetes.platform_components import privileged_component
from accelplane.rules.kubernetes.pods import containers, is_inference, labels, pod_spec
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool, as_str, get

HIGH_ID = 10000
# A workload of the platform: what accelplane deploys carries this label (read from the resource alone,
# so CrossGuard's one-resource calls and `check` agree).
PART_OF = ("app.kubernetes.io/part-of", "accelplane")


def _id(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _problems(resource: Resource) -> Iterator[str]:
    spec = pod_spec(resource)
    if as_bool(get(spec, "automountServiceAccountToken")) is not False:
        yield "the pods mount a service-account API token (automountServiceAccountToken is not false)"
    pod: Mapping[str, Any] = get(spec, "securityContext") or {}
    if not pod:
        yield "no pod-level securityContext"
    for container in containers(resource):
        name = as_str(get(container, "name"), "?")
        own: Mapping[str, Any] = get(container, "securityContext") or {}

        def setting(key: str, own: Mapping[str, Any] = own) -> Any:
            value = get(own, key)
            return value if value is not None else get(pod, key)

        if as_bool(get(own, "readOnlyRootFilesystem")) is not True:
            yield f"container {name}: the root file system is writable (readOnlyRootFilesystem)"
        if as_bool(setting("runAsNonRoot")) is not True:
            yield f"container {name}: runAsNonRoot is not true"
        for key in ("runAsUser", "runAsGroup"):
            value = _id(setting(key))
            if value is None or value < HIGH_ID:
                yield f"container {name}: {key} {value if value is not None else 'unset'} (expected >= {HIGH_ID})"
        profile = get(own, "seccompProfile", "type") or get(pod, "seccompProfile", "type")
        if as_str(profile) not in ("RuntimeDefault", "Localhost"):
            yield f"container {name}: no RuntimeDefault seccomp profile"
    if pod and _id(get(pod, "fsGroup")) is None:
        yield "the pod security context declares no fsGroup (owner of its writable volumes)"


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if privileged_component(resource) is not None:
        return
    if not is_inference(resource) and labels(resource).get(PART_OF[0]) != PART_OF[1]:
        return
    yield from _problems(resource)


RULE = Rule(
    id="AP-K8S-009",
    name="k8s-pod-hardened",
    description="Checks whether an inference or platform workload's pods run with a read-only root file system, "
    "no service-account token, a non-root UID/GID of 10000 or more with an fsGroup, and RuntimeDefault seccomp.",
    family=Family.kubernetes,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="accelplane's inference Deployments are hardened by default; set the workload's run_as "
    "(user, group, fs_group >= 10000) to the image's own user, and give writable paths emptyDir volumes.",
    resource_types=t.K8S_WORKLOAD_TYPES,
    check=check,
    categories=("kubernetes", "isolation"),
    references=("https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted",),
)
