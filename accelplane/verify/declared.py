"""The declared side: the offline graph of the stack (exactly what `pulumi up` would send), with
the identities other resources use to refer to each resource.

The offline engine records inputs, not outputs. The outputs a reference can carry (ids, ARNs,
autonamed physical names, the EKS cluster's security group and OIDC issuer) are recomputed from
the same deterministic mocks that produced them, so every mock identity in a declared input can be
turned into the symbol of the resource it names (`accelplane.verify.canonical.Symbols`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pulumi

from accelplane.config.loader import StackConfig
from accelplane.config.model import Platform
from accelplane.engine.mocks import FAKE_ACCOUNT, AwsLikeMocks
from accelplane.engine.offline import Graph, run_offline
from accelplane.rules.view import Resource
from accelplane.verify.canonical import Symbols, symbol

ACCOUNT_SYMBOL = "<account>"
# Outputs whose value is a name the provider generated (Pulumi autonaming), i.e. differs live.
_AUTONAMED_OUTPUTS = ("name", "bucket")


@dataclass
class DeclaredPlatform:
    stack: str
    platform: Platform
    resources: list[Resource]
    account: str = FAKE_ACCOUNT
    components: frozenset[str] = frozenset()  # URNs of component resources (no cloud identity of their own)
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
            if resource.type == "aws:eks/cluster:Cluster":
                cluster_sg = (outputs.get("vpcConfig") or {}).get("clusterSecurityGroupId")
                symbols.add(cluster_sg, symbol(resource.name, "clusterSecurityGroup"))
                issuer = issuer_host(outputs)
                symbols.add(issuer, symbol(resource.name, "oidcIssuer"))
        return symbols


def issuer_host(cluster_outputs: Mapping[str, Any]) -> str | None:
    identities = cluster_outputs.get("identities") or []
    try:
        issuer = identities[0]["oidcs"][0]["issuer"]
    except (IndexError, KeyError, TypeError):
        return None
    return issuer.removeprefix("https://") if isinstance(issuer, str) else None


def _outputs(mocks: AwsLikeMocks, recorded: Any) -> dict[str, Any]:
    recorded_outputs = getattr(recorded, "outputs", None)
    if isinstance(recorded_outputs, dict) and recorded_outputs:
        return recorded_outputs
    if not recorded.custom:
        return {}
    _, state = mocks.new_resource(
        pulumi.runtime.MockResourceArgs(recorded.type, recorded.name, dict(recorded.inputs), custom=True)
    )
    return state


def declared_platform(stack: StackConfig, graph: Graph | None = None) -> DeclaredPlatform:
    graph = graph or run_offline(stack)
    mocks = AwsLikeMocks(region=stack.platform.region)
    recorded_resources = [recorded for recorded in graph.resources if not recorded.type.startswith("pulumi:")]
    resources = [
        Resource(
            urn=recorded.urn,
            type=recorded.type,
            name=recorded.name,
            props=recorded.inputs,
            parent=recorded.parent,
            dependencies=tuple(recorded.dependencies),
            protect=recorded.protect,
            id=recorded.id,
            outputs=_outputs(mocks, recorded),
        )
        for recorded in recorded_resources
    ]
    components = frozenset(recorded.urn for recorded in recorded_resources if not recorded.custom)
    return DeclaredPlatform(stack=stack.stack, platform=stack.platform, resources=resources, components=components)
