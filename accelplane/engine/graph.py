"""The offline engine's record of one run: every resource registration with its parent,
dependencies (per property too), the outputs the mocks answered with and the explicit provider, and
the one conversion into the rules' resources. Plain data: reading or judging a graph needs no Pulumi
(`offline.py` is what runs the program).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from accelplane.config.project import DEFAULT_PROJECT
from accelplane.rules.sources import is_bookkeeping
from accelplane.rules.view import Resource


@dataclass(frozen=True)
class RecordedResource:
    urn: str
    type: str
    name: str
    parent: str | None
    custom: bool
    inputs: dict[str, Any]
    dependencies: tuple[str, ...] = ()
    protect: bool = False
    id: str | None = None  # the mock's physical id, so references between inputs can be followed
    provider: str | None = None  # "<provider urn>::<id>" when an explicit provider is used
    outputs: dict[str, Any] = field(default_factory=dict)  # what the mock answered: ids, ARNs, names
    property_dependencies: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Input paths a change of which replaces the resource (ResourceOptions.replace_on_changes).
    replace_on_changes: tuple[str, ...] = ()
    delete_before_replace: bool = False  # ResourceOptions.delete_before_replace

    def to_json(self) -> dict[str, Any]:
        return {
            "urn": self.urn,
            "type": self.type,
            "name": self.name,
            "parent": self.parent,
            "inputs": self.inputs,
            "outputs": self.outputs,
            "custom": self.custom,
            "protect": self.protect,
            "id": self.id,
            "provider": self.provider,
            "dependencies": list(self.dependencies),
            "propertyDependencies": {k: list(v) for k, v in self.property_dependencies.items()},
            "replaceOnChanges": list(self.replace_on_changes),
            "deleteBeforeReplace": self.delete_before_replace,
        }


@dataclass
class OfflineGraph:
    stack: str
    project: str = DEFAULT_PROJECT
    resources: list[RecordedResource] = field(default_factory=list)
    outputs: dict[str, Any] = field(default_factory=dict)
    # The stack's outputs as plain values, as `pulumi stack output --json` gives them: what another stack
    # reads through a StackReference (a migration reads its ends' endpoints).
    stack_outputs: dict[str, Any] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        """`resources` (what check and diff count too: no stack, no providers), split into cloud
        resources and components, and the explicit providers."""
        real = [r for r in self.resources if not is_bookkeeping(r.type)]
        cloud = sum(1 for r in real if r.custom)
        return {"resources": len(real), "cloud": cloud, "components": len(real) - cloud,
                "providers": len(self.resources) - len(real)}

    def to_json(self) -> dict[str, Any]:
        return {"stack": self.stack, "project": self.project, "summary": self.counts(),
                "resources": [r.to_json() for r in self.resources]}

    def by_type(self, type_token: str) -> list[RecordedResource]:
        return [r for r in self.resources if r.type == type_token]

    def by_id(self, resource_id: str) -> RecordedResource:
        for resource in self.resources:
            if resource.id == resource_id:
                return resource
        raise KeyError(f"no resource with id {resource_id!r}")

    def named(self, name: str) -> RecordedResource:
        for resource in self.resources:
            if resource.name == name:
                return resource
        raise KeyError(f"no resource named {name!r}")


def from_offline_graph(graph: OfflineGraph) -> list[Resource]:
    """The graph's resources as the rules see them (no stack, no providers), with the outputs and
    property dependencies the engine recorded: the one conversion `check` and `verify` share."""
    return [
        Resource(
            urn=recorded.urn,
            type=recorded.type,
            name=recorded.name,
            props=recorded.inputs,
            parent=recorded.parent,
            dependencies=tuple(recorded.dependencies),
            property_dependencies=recorded.property_dependencies,
            protect=recorded.protect,
            id=recorded.id,
            outputs=recorded.outputs,
        )
        for recorded in graph.resources
        if not is_bookkeeping(recorded.type)
    ]
