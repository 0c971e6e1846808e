"""AP-RO-004: a change of weights that is not one rollout step (two canaries growing at once, weight
moving between two backends past the baseline) is a traffic split no gate ever judged. A change that
returns every request to the baseline (an abort) is always allowed. Mandatory, neither configurable
nor waivable: a change that is not a step is split into steps instead.

Only `accelplane diff` can judge it (it compares two revisions: accelplane.diff.rollout), so the
registry keeps the id reserved (`DIFF_ONLY_IDS`) and `accelplane rules` lists this record beside the
registered rules.
"""

from __future__ import annotations

from accelplane.rules import types as t
from accelplane.rules.rule import Enforcement, Family, Rule, Severity

STEP_RULE = Rule(
    id="AP-RO-004",
    name="rollout-one-step-per-change",
    description="Checks whether a change moves an inference service's weights by one rollout step: between "
    "the baseline and one other backend (accelplane diff only: it compares two revisions).",
    family=Family.rollout,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Move weight between the baseline and one canary per change (`accelplane rollout` writes the "
    "next step); split the change into steps, or return every request to the baseline (abort) at once.",
    resource_types=frozenset({t.INFERENCE_SERVICE}),
    check=lambda resource, graph: (),  # judged by accelplane.diff.rollout.step_findings, on two revisions
    categories=("rollout",),
)
