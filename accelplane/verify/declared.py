"""The declared side: the offline graph of the stack (exactly what `pulumi up` would send), with
the identities other resources use to refer to each resource.

The offline engine records inputs, not outputs. The outputs a reference can carry (ids, ARNs or self
links, autonamed physical names) are recomputed from the same deterministic mocks of the stack's
cloud that produced them, so every mock identity in a declared input can be turned into the symbol
of the resource it names (`accelplane.verify.canonical.Symbols`). Identities a cloud derives from a
resource's outputs (the EKS cluster's security group and OIDC issuer) come from the cloud's reader.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

import pulumi

from accelplane.config.loader import StackConfig
from accelplane.declaration import Platform
from accelplane.engine.graph import OfflineGraph, from_offline_graph
from accelplane.rules.view import Resource
from accelplane.verify.canonical import Symbols, symbol

ACCOUNT_SYMBOL = "<account>"
# Outputs whose value is a name the provider generated (Pulumi autonaming), i.e. differs live.
_AUTONAMED_OUTPUTS = ("name", "bucket")
# A resource's identities beyond its id, ARN and autonamed name: (identity, symbol) pairs.
Identities = Callable[[Resource], Iterable[tuple[str | None, str]]]


def _no_identities(_resource: Resource) -> Iterable[tuple[str | None, str]]:
    return ()


@dataclass
class DeclaredPlatform:
    stack: str
    platform: Platform
    resources: list[Resource]
    account: str  # the mocks' account or project: a symbol of its own
    components: frozenset[str] = frozenset()  # URNs of component resources (no cloud identity of their own)
    identities: Identities = _no_identities
    _by_type: dict[str, list[Resource]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        index: dict[str, list[Resource]] = defaultdict(list)
        for resource in self.resources:
            index[resource.type].append(resource)
        self._by_type = dict(index)

    def of_type(self, type_token: str) -> list[Resource]:
        return self._by_type.get(type_token, [])

    @property
    def types(self) -> list[str]:
        return sorted(self._by_type)

    def symbols(self) -> Symbols:
        """Every mock identity of the declaration, mapped to its resource's symbol."""
        symbols = Symbols()
        symbols.add(self.account, ACCOUNT_SYMBOL)
        for resource in self.resources:
            if resource.urn in self.components:
                # A component's registered outputs repeat its children's ARNs and names: the identity
                # is the child's, never the component's.
                continue
            sym = symbol(resource.name)
            if resource.id:
                symbols.add(resource.id, sym)
            outputs = resource.outputs
            if isinstance(outputs.get("arn"), str):
                symbols.add(outputs["arn"], sym)
            for key in _AUTONAMED_OUTPUTS:
                value = outputs.get(key)
                if isinstance(value, str) and value not in resource.props.values():
                    symbols.add(value, sym)
            for identity, identity_symbol in self.identities(resource):
                symbols.add(identity, identity_symbol)
        return symbols


def _with_outputs(mocks: pulumi.runtime.Mocks, resource: Resource, custom: bool) -> Resource:
    """A custom resource without recorded outputs gets those the mocks answer for its inputs."""
    if resource.outputs or not custom:
        return resource
    _, state = mocks.new_resource(
        pulumi.runtime.MockResourceArgs(resource.type, resource.name, dict(resource.props), custom=True)
    )
    return replace(resource, outputs=dict(state))


def declared_platform(
    stack: StackConfig, graph: OfflineGraph, mocks: pulumi.runtime.Mocks, account: str,
    identities: Identities = _no_identities,
) -> DeclaredPlatform:
    """The stack's offline graph (run with `mocks`, the stack's cloud's) as declared resources."""
    custom = {recorded.urn: recorded.custom for recorded in graph.resources}
    resources = [_with_outputs(mocks, resource, custom[resource.urn]) for resource in from_offline_graph(graph)]
    components = frozenset(urn for urn, is_custom in custom.items() if not is_custom)
    return DeclaredPlatform(stack=stack.stack, platform=stack.platform, resources=resources, account=account,
                            components=components, identities=identities)
