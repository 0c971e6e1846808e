"""Policy rules: pure functions over plain resource views, one rule per file, one explicit registry.

Used by `accelplane check` (offline graph, state file, plan file) and by the CrossGuard pack in
`policies/` (through its adapter, the only code that knows `pulumi_policy`). Rules depend only on
plain data and the version matrix (docs/design.md "Dependencies run one way").
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from accelplane.rules.engine import Evaluation, evaluate
    from accelplane.rules.graph import ReferenceGraph
    from accelplane.rules.rule import Enforcement, Family, Finding, Rule, Scope, Severity
    from accelplane.rules.view import UNKNOWN, Resource, UnknownValue

# Public name -> its module, resolved on first use (PEP 562): importing one rule module or the
# resource view must not import the registry and every rule with it (start-up time).
_EXPORTS = {
    "Evaluation": "engine", "evaluate": "engine", "ReferenceGraph": "graph", "Enforcement": "rule",
    "Family": "rule", "Finding": "rule", "Rule": "rule", "Scope": "rule", "Severity": "rule", "UNKNOWN": "view",
    "Resource": "view", "UnknownValue": "view",
}
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


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{module}"), name)
