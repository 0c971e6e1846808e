"""Policy rules: pure functions over plain resource views, one rule per file, one explicit registry.

Used by `accelplane check` (offline graph, state file, plan file) and by the CrossGuard pack in
`policies/` (through its adapter, the only code that knows `pulumi_policy`). Rules depend only on
plain data and the version matrix (docs/design.md "Dependencies run one way").
"""

from accelplane.rules.engine import Evaluation, evaluate
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Finding, Rule, Scope, Severity
from accelplane.rules.view import UNKNOWN, Resource, UnknownValue

__all__ = [
    "UNKNOWN",
    "Enforcement",
    "Evaluation",
    "Family",
    "Finding",
    "ReferenceGraph",
    "Resource",
    "Rule",
    "Scope",
    "Severity",
    "UnknownValue",
    "evaluate",
]
