"""The AWS live view under construction: what every service's reader shares."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from accelplane.clouds.aws.verify.drift_specs import SPECS
from accelplane.clouds.aws.verify.inventory import Collector
from accelplane.clouds.aws.verify.live_inventory import UNREADABLE, LiveInventory, tags_of
from accelplane.clouds.aws.verify.view import AwsLiveView
from accelplane.node_labels import POOL_LABEL
from accelplane.rules.view import UNKNOWN, Resource
from accelplane.verify.canonical import symbol
from accelplane.verify.declared import DeclaredPlatform
from accelplane.verify.live import Unexpected

POOL_TAG = POOL_LABEL

BUCKET_ROLE_TAG = "accelplane.io/bucket-role"

PLATFORM_TAG = "accelplane:platform"

# Declared types verify reads: those the drift engine has a spec for; everything else is listed as
# not verified (routes, NAT, Kubernetes).
VERIFIED_TYPES = frozenset(SPECS)

INGRESS = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"

EGRESS = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"


class ViewCore:
    """The live view being built and the helpers every AWS service's reader shares."""

    def __init__(self, declared: DeclaredPlatform, collector: Collector) -> None:
        self.declared = declared
        self.collector = collector
        self.inv: LiveInventory = collector.inventory
        self.platform = declared.platform
        self.region = declared.platform.region
        self.view = AwsLiveView(symbols=declared.symbols())
        self.symbols = self.view.symbols

    def _live(
        self,
        declared: Resource | None,
        type_token: str,
        live_id: str,
        props: dict[str, Any],
        outputs: Mapping[str, Any] | None = None,
        *,
        raw: Any = None,
    ) -> Resource:
        stack = self.declared.stack
        unreadable = {k for k, v in props.items() if v is UNREADABLE}
        resource = Resource(
            urn=declared.urn if declared else f"urn:pulumi:{stack}::live::{type_token}::{live_id}",
            type=type_token,
            name=declared.name if declared else live_id,
            # Unread values become the rules' UNKNOWN: a rule touching one does not judge the resource.
            props={k: (UNKNOWN if v is UNREADABLE else v) for k, v in props.items() if v is not None},
            parent=declared.parent if declared else None,
            # `protect` lives in Pulumi's state, not in AWS: the declared resource's is the live one's.
            protect=declared.protect if declared else False,
            id=live_id,
            outputs={k: v for k, v in (outputs or {}).items() if v is not None},
        )
        self.view.resources.append(resource)
        self.view.read[type_token] += 1
        if declared is not None:
            self.view.matched[declared.urn] = resource
            if unreadable:
                self.view.unreadable_props[declared.urn] = unreadable
            sym = symbol(declared.name)
            verbatim = {v for v in declared.props.values() if isinstance(v, str)}
            for token in (live_id, *(v for v in (outputs or {}).values() if isinstance(v, str))):
                # A deterministic name (cluster, node group) is the same on both sides: no symbol needed.
                if token not in verbatim:
                    self.symbols.add(token, sym, live=True)
            if raw is not None:
                self.view.raw[declared.urn] = raw
        return resource

    def _unexpected(self, resource: Resource, reason: str) -> None:
        self.view.unexpected.append(Unexpected(resource, reason))

    def _unreadable(self, declared: Iterable[Resource], reason: str) -> None:
        for resource in declared:
            self.view.unreadable[resource.urn] = reason

    def _live_ref(self, declared_value: Any) -> str | None:
        """The live id/ARN/name that a declared reference (a mock id or ARN) points at, if matched."""
        return self.symbols.live_value(declared_value)

    def _arn(self, service: str, resource: str) -> str:
        return f"arn:aws:{service}:{self.region}:{self.inv.account or self.declared.account}:{resource}"

    def _by_name_tag(self, items: Any, type_token: str, build: Any) -> None:
        declared = self.declared.of_type(type_token)
        if items is UNREADABLE:
            self._unreadable(declared, "the describe call failed")
            return
        by_name = {tags_of(item.get("Tags")).get("Name"): item for item in items}
        for resource in declared:
            item = by_name.get(resource.tags().get("Name"))
            if item is not None:
                build(resource, item)

    def declared_name(self, urn: str) -> str:
        return urn.rsplit("::", 1)[-1]

    def _pair(
        self, declared: list[Resource], live: dict[str, dict[str, Any]], name_key: str
    ) -> list[tuple[Resource, str]]:
        if len(declared) == 1 and len(live) == 1:
            return [(declared[0], next(iter(live)))]
        pairs = []
        for resource in declared:
            name = resource.props.get("name")
            prefix = resource.name[:24]
            found = next(
                (
                    arn
                    for arn, item in live.items()
                    if (item.get(name_key) == name if name else str(item.get(name_key, "")).startswith(prefix))
                ),
                None,
            )
            if found:
                pairs.append((resource, found))
        return pairs

    @staticmethod
    def _autonamed(logical: str, physical: str) -> bool:
        return re.fullmatch(re.escape(logical) + r"-[0-9a-f]{7}", physical) is not None
