"""An ALB forward action as the API writes it, read once for `verify` (routing drift) and `rollout`
(live weights, `--apply-now`).

AWS reports a one-target forward both as `TargetGroupArn` and as a `ForwardConfig` with weight 1;
some emulators only as `TargetGroupArn` (no weight).
(https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_Action.html)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def forward_action(actions: Sequence[Mapping[str, Any]] | None) -> Mapping[str, Any] | None:
    """The forward action among a listener's or rule's actions."""
    return next((action for action in actions or [] if action.get("Type") == "forward"), None)


def forward_targets(action: Mapping[str, Any]) -> list[tuple[str, int | None]]:
    """(target group ARN, weight) of every group the action forwards to; weight None where only
    `TargetGroupArn` names the group."""
    groups = (action.get("ForwardConfig") or {}).get("TargetGroups")
    if groups is not None:
        return [(str(group.get("TargetGroupArn")), group.get("Weight")) for group in groups]
    return [(str(action["TargetGroupArn"]), None)] if action.get("TargetGroupArn") else []
