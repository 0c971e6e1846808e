"""The platform's own privileged components, recognised by identity, never by a label.

AP-K8S-001 exempts a pod from the privileged rule only when it is one of these, as the platform
deploys it (`accelplane/k8s/`):

- its kind and namespace: a DaemonSet in kube-system, where only cluster administrators create
  objects, so a workload namespace cannot claim the exemption;
- its object name (`metadata.name`, never an auto-name);
- its image: every container runs the component's repository (from any registry, so a mirror of
  the profile's image passes) pinned by digest, as the software profile pins it
  (`neuron_monitor_image`); a floating tag, a foreign image or an extra container in the same
  place is not the component.

A label such as `app.kubernetes.io/component: device-plugin`, `driver` or `device-monitor` plays no
part: any workload can set it.

The device plugins (NVIDIA, Neuron, EFA) and the DCGM exporter are `helm.v3.Release`s whose chart
and version come from the pools' software profile: their DaemonSets live inside the release and
appear in no graph the rules read (offline, `pulumi stack export`, `pulumi preview --json`,
CrossGuard), so they need no exemption, and a device-plugin DaemonSet that does appear is not the
platform's and is judged like any workload. AP-K8S-002 (host namespaces) and AP-K8S-003 (host
paths) exempt nothing.

The identity is read from the resource alone, so CrossGuard's resource policies (one resource per
call) and `accelplane check` (the whole graph) reach the same verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accelplane.rules import types as t
from accelplane.rules.kubernetes.pods import containers, labels, namespace
from accelplane.rules.view import Resource, as_str, get

_DIGEST = re.compile(r"@sha256:[0-9a-f]{64}$")
COMPONENT_LABEL = "app.kubernetes.io/component"


@dataclass(frozen=True)
class PlatformComponent:
    name: str  # metadata.name the platform gives it
    namespace: str  # where the platform deploys it
    repository: str  # last path segment of the image repository its containers run
    profile_field: str  # the software-profile field that pins its image by digest
    reason: str  # why it needs what no workload may have (privileged, root, host paths)


NEURON_MONITOR = PlatformComponent(
    "neuron-monitor", "kube-system", "neuron-monitor", "neuron_monitor_image",
    reason="reads every Neuron device (/dev/neuron*) and the host's sysfs counters, which needs a privileged, "
    "root container; it serves metrics only and never takes requests from outside the cluster",
)
PRIVILEGED_COMPONENTS: tuple[PlatformComponent, ...] = (NEURON_MONITOR,)


def repository_name(image: str) -> str:
    """`registry:5000/team/neuron-monitor:1.3.0@sha256:...` -> `neuron-monitor`."""
    last = image.split("@", 1)[0].rsplit("/", 1)[-1]
    return last.split(":", 1)[0]


def _images(resource: Resource) -> list[str]:
    return [as_str(get(container, "image")) for container in containers(resource)]


def _runs_only(resource: Resource, component: PlatformComponent) -> bool:
    images = _images(resource)
    return bool(images) and all(
        _DIGEST.search(image) and repository_name(image) == component.repository for image in images
    )


def _placed_as(resource: Resource, component: PlatformComponent) -> bool:
    return (
        resource.type == t.K8S_DAEMON_SET
        and namespace(resource) == component.namespace
        and resource.get("metadata", "name") == component.name
    )


def privileged_component(resource: Resource) -> PlatformComponent | None:
    """The platform component `resource` is, by kind, namespace, name and pinned image; None otherwise."""
    for component in PRIVILEGED_COMPONENTS:
        if _placed_as(resource, component) and _runs_only(resource, component):
            return component
    return None


def not_exempt_because(resource: Resource) -> str | None:
    """Why a pod that looks like a platform component is not one (for the finding's message)."""
    for component in PRIVILEGED_COMPONENTS:
        if _placed_as(resource, component):
            return (
                f"not the platform's {component.name}: every container must run a {component.repository} image "
                f"pinned by digest (software profile `{component.profile_field}`)"
            )
    label = labels(resource).get(COMPONENT_LABEL)
    if isinstance(label, str) and label:
        return f"the label {COMPONENT_LABEL}={label} exempts nothing"
    return None
