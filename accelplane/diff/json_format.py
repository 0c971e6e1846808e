"""JSON: `{"stack", "base", "head", "summary", "components", "findings", "software", "notes"}`."""

from __future__ import annotations

import json

from accelplane.diff.plan_diff import PlanDiff


def render_json(diff: PlanDiff) -> str:
    return json.dumps(diff.to_json(), indent=2, ensure_ascii=False) + "\n"
