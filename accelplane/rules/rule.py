"""What a rule is and what it finds: metadata, severities, enforcement levels and findings.

A rule is a pure function over a small resource view (`accelplane.rules.view.Resource`) and, for
rules that need the rest of the graph, the graph (`accelplane.rules.graph.ReferenceGraph`). It yields one
message per problem; the engine turns messages into `Finding`s carrying the rule's metadata. A stack
rule that judges one resource but finds the problem on another (a Gateway judged, its backend Service
unprotected) yields `About(other, message)`: the finding is that resource's, so it points where the fix is.
Nothing here knows about CrossGuard, the Pulumi engine or the stack declaration (docs/conventions.md 14).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from accelplane.rules.graph import ReferenceGraph
    from accelplane.rules.view import Resource


class Severity(StrEnum):
    low = "low"
    medium = "medium"
    high = "high"
    critical = "critical"

    @property
    def rank(self) -> int:
        return _SEVERITY_RANK[self]


_SEVERITY_RANK = {Severity.low: 1, Severity.medium: 2, Severity.high: 3, Severity.critical: 4}


class Enforcement(StrEnum):
    """What a finding does: `mandatory` blocks (exit 1), `advisory` is shown only."""

    mandatory = "mandatory"
    advisory = "advisory"


class Family(StrEnum):
    """The rule families of issue 4 (and issue 14's rollout); also the SARIF/JUnit grouping."""

    iam = "iam"
    storage = "storage"
    secrets = "secrets"
    network = "network"
    compute = "compute"
    cluster = "cluster"
    load_balancer = "load-balancer"
    kubernetes = "kubernetes"
    matrix = "version-matrix"
    rollout = "rollout"
    hygiene = "hygiene"
    audit = "audit"
    cost = "cost"


class Scope(StrEnum):
    """`resource`: judges one resource alone (CrossGuard `Analyze`, sees inputs at preview).
    `stack`: also looks at other resources of the graph (CrossGuard `AnalyzeStack`)."""

    resource = "resource"
    stack = "stack"


@dataclass(frozen=True)
class About:
    """A message about another resource than the one the check was given (stack rules)."""

    resource: Resource
    message: str


Check = Callable[["Resource", "ReferenceGraph"], Iterable["str | About"]]


@dataclass(frozen=True)
class Rule:
    """One rule: stable id (never reused), metadata and its check function."""

    id: str
    name: str
    description: str
    family: Family
    severity: Severity
    enforcement: Enforcement
    remediation: str
    resource_types: frozenset[str]
    check: Check = field(repr=False, compare=False)
    scope: Scope = Scope.resource
    categories: tuple[str, ...] = ()
    references: tuple[str, ...] = ()
    # Ids this rule had before (a rule moved to another family): waivers and `--policy-config`
    # entries naming an old id still apply to it.
    aliases: tuple[str, ...] = ()
    # The declaration field whose change fixes a finding, when it is not the element the resource
    # is built from itself (rate_limit: a service's, whichever backend's resource the finding is on).
    # A finding's line is that field of the nearest enclosing element that can declare it, or that
    # element when the field is missing (engine/provenance.py `fix_lines`).
    fix_field: str | None = None
    # Types a stack rule reads beyond `resource_types` to decide (a trail's bucket, the project's audit
    # configs): `verify` judges the rule only where it reads them all from the live cloud, since a type it
    # does not read is absent from its view, not absent from the cloud.
    reads: frozenset[str] = frozenset()

    def applies_to(self, type_token: str) -> bool:
        return type_token in self.resource_types


@dataclass(frozen=True)
class Finding:
    """One problem one rule found on one resource."""

    rule: Rule
    urn: str
    type: str
    name: str
    message: str
    enforcement: Enforcement  # the rule's, or the level configured for this run
    waived: bool = False
    waiver_reason: str | None = None

    @property
    def severity(self) -> Severity:
        return self.rule.severity

    def to_json(self) -> dict[str, Any]:
        """The docs/design.md `check --format json` finding shape, exactly these keys."""
        return {
            "rule": self.rule.id,
            "severity": self.rule.severity.value,
            "enforcement": self.enforcement.value,
            "urn": self.urn,
            "type": self.type,
            "name": self.name,
            "message": self.message,
            "remediation": self.rule.remediation,
            "waived": self.waived,
        }
