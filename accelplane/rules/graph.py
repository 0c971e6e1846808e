"""The graph stack-scope rules look across: indexes over a list of `Resource`s, built lazily.

References between resources are followed the way each engine allows:

1. property dependencies (`propertyDependencies` in state, plans and CrossGuard stack requests):
   the exact resources a property was computed from;
2. the property's value matched against another resource's identity: its id, and its `arn`,
   `name`, `bucket` or `id` outputs where the engine reports them (state files, the offline graph);
3. failing both (a preview where ids are unknown), the resource's dependencies of the wanted type,
   when exactly one exists.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date
from functools import cached_property
from typing import Any, TypeVar

from accelplane.rules.view import UNKNOWN, Resource

T = TypeVar("T")
ENVIRONMENT_TAG = "accelplane:environment"
# GCP label keys allow only lower-case letters, digits, `_` and `-`: the same fact as a label.
ENVIRONMENT_LABEL = "accelplane-environment"
_ENVIRONMENT_KEYS = (("tags", ENVIRONMENT_TAG), ("labels", ENVIRONMENT_LABEL), ("resourceLabels", ENVIRONMENT_LABEL))
_IDENTITY_OUTPUTS = ("arn", "id", "name", "bucket", "keyId")


class ReferenceGraph:
    """Resources plus what rules need to relate them; `environment` is dev|staging|prod or None."""


    def __init__(
        self,
        resources: Sequence[Resource],
        *,
        stack: str | None = None,
        environment: str | None = None,
        as_of: date | None = None,
    ) -> None:
        self.resources = list(resources)
        self.stack = stack
        self._environment = environment
        self.as_of = as_of  # the day lifecycle facts (driver end of life) are judged at; None: today
        self._memo: dict[str, Any] = {}

    def __len__(self) -> int:
        return len(self.resources)

    def memo(self, key: str, build: Callable[[ReferenceGraph], T]) -> T:
        """An index a rule derives from the whole graph, built once per graph (keeps stack rules linear)."""
        if key not in self._memo:
            self._memo[key] = build(self)
        return self._memo[key]

    # -- indexes -------------------------------------------------------------------------------

    @cached_property
    def by_urn(self) -> dict[str, Resource]:
        return {resource.urn: resource for resource in self.resources}

    @cached_property
    def _by_type(self) -> dict[str, list[Resource]]:
        index: dict[str, list[Resource]] = defaultdict(list)
        for resource in self.resources:
            index[resource.type].append(resource)
        return index

    @cached_property
    def _dependents(self) -> dict[str, list[Resource]]:
        index: dict[str, list[Resource]] = defaultdict(list)
        for resource in self.resources:
            for urn in set(resource.dependencies).union(*resource.property_dependencies.values()):
                index[urn].append(resource)
        return index

    @cached_property
    def _identities(self) -> dict[str, list[Resource]]:
        index: dict[str, list[Resource]] = defaultdict(list)
        for resource in self.resources:
            for value in identities(resource):
                index[value].append(resource)
        return index

    # -- queries -------------------------------------------------------------------------------

    def of_type(self, *types: str) -> list[Resource]:
        if len(types) == 1:
            return self._by_type.get(types[0], [])
        return [resource for type_token in types for resource in self._by_type.get(type_token, [])]

    def get(self, urn: str | None) -> Resource | None:
        return self.by_urn.get(urn) if urn else None

    def dependents(self, target: Resource, *types: str) -> list[Resource]:
        """Resources of `types` that depend on `target` (directly)."""
        return [r for r in self._dependents.get(target.urn, []) if not types or r.type in types]

    def with_identity(self, value: Any, *types: str) -> list[Resource]:
        if value is UNKNOWN or not isinstance(value, str) or not value:
            return []
        return [r for r in self._identities.get(value, []) if not types or r.type in types]

    def ref(self, source: Resource, prop: str, *types: str) -> list[Resource]:
        """The resources of `types` that `source`'s property `prop` (a top-level key) refers to."""
        urns = source.property_dependencies.get(prop)
        if urns:
            found = [self.by_urn[u] for u in urns if u in self.by_urn and (not types or self.by_urn[u].type in types)]
            if found:
                return found
        value = source.props.get(prop)
        found = self.with_identity(value, *types)
        if found:
            return found
        candidates = [self.by_urn[u] for u in source.dependencies if u in self.by_urn and self.by_urn[u].type in types]
        return candidates if len(candidates) == 1 else []

    def resolve(self, source: Resource, value: Any, *types: str) -> list[Resource]:
        """Resources of `types` a nested value of `source` (an id inside a list or object) refers to:
        by identity, else `source`'s single dependency of those types."""
        found = self.with_identity(value, *types)
        if found:
            return found
        candidates = [self.by_urn[u] for u in source.dependencies if u in self.by_urn and self.by_urn[u].type in types]
        return candidates if len(candidates) == 1 else []

    def refers_to(self, source: Resource, prop: str, target: Resource) -> bool:
        """Whether `source.props[prop]` (a value or a list of values) refers to `target`."""
        urns = source.property_dependencies.get(prop)
        if urns:
            return target.urn in urns
        value = source.props.get(prop)
        values = value if isinstance(value, list) else [value]
        target_ids = identities(target)
        if any(isinstance(v, str) and v in target_ids for v in values):
            return True
        if any(isinstance(v, str) and self.with_identity(v, target.type) for v in values):
            return False  # the value names another resource of that type
        # No per-property information and no matching id (ARNs are not always recorded): a
        # dependency on exactly one resource of the target's type is the evidence left.
        same_type = [u for u in source.dependencies if u in self.by_urn and self.by_urn[u].type == target.type]
        return same_type == [target.urn]

    def referring(self, target: Resource, prop: str, *types: str) -> list[Resource]:
        """Resources of `types` whose `prop` refers to `target` (inverse of `ref`)."""
        candidates: dict[str, Resource] = {}
        for resource in self.dependents(target, *types):
            candidates[resource.urn] = resource
        for value in identities(target):
            for resource in self._identities_referring(value, types):
                candidates[resource.urn] = resource
        return [r for r in candidates.values() if self.refers_to(r, prop, target)]

    @cached_property
    def _values_index(self) -> dict[str, list[Resource]]:
        # Top-level string values (and strings in top-level lists) of every resource, for reverse lookups.
        index: dict[str, list[Resource]] = defaultdict(list)
        for resource in self.resources:
            seen: set[str] = set()
            for value in resource.props.values():
                for item in value if isinstance(value, list) else (value,):
                    if isinstance(item, str) and item not in seen and len(item) < 2048:
                        seen.add(item)
                        index[item].append(resource)
        return index

    def _identities_referring(self, value: str, types: Iterable[str]) -> list[Resource]:
        wanted = set(types)
        return [r for r in self._values_index.get(value, []) if not wanted or r.type in wanted]

    def children(self, parent: Resource, *types: str) -> list[Resource]:
        return [r for r in self._children.get(parent.urn, []) if not types or r.type in types]

    @cached_property
    def _children(self) -> dict[str, list[Resource]]:
        index: dict[str, list[Resource]] = defaultdict(list)
        for resource in self.resources:
            if resource.parent:
                index[resource.parent].append(resource)
        return index

    # -- facts -------------------------------------------------------------------------------

    @cached_property
    def environment(self) -> str | None:
        """The stack's environment: given by the caller, else the most common `accelplane:environment` tag
        (AWS) or `accelplane-environment` label (GCP: `labels`, a GKE cluster's `resourceLabels`)."""
        if self._environment:
            return self._environment
        counts: Counter[str] = Counter()
        for resource in self.resources:
            for prop, key in _ENVIRONMENT_KEYS:
                found = resource.props.get(prop)
                if isinstance(found, Mapping):
                    value = found.get(key)
                    if isinstance(value, str) and value:
                        counts[value] += 1
        return counts.most_common(1)[0][0] if counts else None


def identities(resource: Resource) -> set[str]:
    """Strings other resources use to refer to `resource`: its id and identifying outputs."""
    values: set[str] = set()
    if resource.id:
        values.add(resource.id)
    for key in _IDENTITY_OUTPUTS:
        value = resource.outputs.get(key)
        if isinstance(value, str) and value:
            values.add(value)
    return values
