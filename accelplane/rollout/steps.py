"""Weights of a service's backends as a rollout moves them: next step, rollback, abort.

Pure functions of the declaration, shared by `accelplane rollout` (which writes them), the rules and
`diff` (which judge a change of them). A step moves weight between exactly two backends: the
baseline and the canary. Anything else — two canaries growing at once, weight appearing on a third
backend — is not a rollout step and `step_problems` names it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from accelplane.declaration import InferenceService, Rollout

Weights = dict[str, int]


class StepError(ValueError):
    """The declared weights leave the rollout no valid next move (named in the message)."""


@dataclass(frozen=True)
class Position:
    """Where a service's rollout stands."""

    baseline: str
    canary: str
    canary_weight: int
    next_step: int | None  # the canary's next weight; None when it already takes 100

    @property
    def complete(self) -> bool:
        return self.next_step is None


def weights(service: InferenceService) -> Weights:
    return {backend.name: backend.weight for backend in service.serving_backends}


def _rollout(service: InferenceService) -> tuple[Rollout, str]:
    rollout, canary = service.rollout, service.canary
    if rollout is None or canary is None:
        raise StepError(f"service {service.name!r} declares no rollout with a baseline and a canary")
    return rollout, canary


def position(service: InferenceService) -> Position:
    rollout, canary = _rollout(service)
    current = weights(service).get(canary, 0)
    following = [step for step in rollout.steps if step > current]
    return Position(rollout.baseline, canary, current, following[0] if following else None)


def advanced(service: InferenceService) -> Weights:
    """The weights of the next step: the canary takes its next step's share from the baseline."""
    here = position(service)
    current = weights(service)
    if here.next_step is None:
        return current
    moved = here.next_step - here.canary_weight
    baseline_weight = current.get(here.baseline, 0)
    if baseline_weight < moved:
        raise StepError(
            f"the baseline {here.baseline!r} carries {baseline_weight}%, the next step moves {moved}% from it to "
            f"{here.canary!r}: other backends hold the rest; set their weights to 0 first"
        )
    return {**current, here.baseline: baseline_weight - moved, here.canary: here.next_step}


def rolled_back(service: InferenceService) -> Weights:
    """The canary's share returns to the baseline."""
    rollout, canary = _rollout(service)
    current = weights(service)
    share = current.get(canary, 0)
    if rollout.baseline not in current:
        raise StepError(f"the baseline {rollout.baseline!r} is not declared: nothing to roll back to")
    return {**current, canary: 0, rollout.baseline: current[rollout.baseline] + share}


def aborted(service: InferenceService) -> Weights:
    """Every backend but the baseline at 0: the baseline takes all requests."""
    rollout, _ = _rollout(service)
    current = weights(service)
    if rollout.baseline not in current:
        raise StepError(f"the baseline {rollout.baseline!r} is not declared: nothing to abort to")
    return {name: 100 if name == rollout.baseline else 0 for name in current}


def step_problems(
    before: Mapping[str, int], after: Mapping[str, int], baseline: str | None, steps: Sequence[int] = ()
) -> list[str]:
    """Why a change of weights is not one rollout step (empty when it is one, or no change).

    One step changes one pair: the baseline and one other backend, in opposite directions. A backend
    that appears or disappears counts as a change from or to 0. With the declared `steps`, the other
    backend's new weight must be the step after its old one (`advance`, or `advance --start` from 0),
    or 0 (a rollback): 90/10 -> 40/60 with steps [10, 25, 50, 100] skips two steps.
    """
    names = sorted(set(before) | set(after))
    changed = [n for n in names if before.get(n, 0) != after.get(n, 0)]
    if not changed:
        return []
    if len(changed) > 2:
        return [f"{len(changed)} backends change weight ({', '.join(changed)}); a step changes one pair"]
    if baseline is not None and baseline not in changed:
        return [f"the weight moves between {' and '.join(changed)}, not between the baseline {baseline!r} and one "
                "canary"]
    canary = next((n for n in changed if n != baseline), None)
    if canary is None or not steps:
        return []
    old, new = before.get(canary, 0), after.get(canary, 0)
    following = [step for step in sorted(steps) if step > old]
    if new == 0 or (following and new == following[0]):
        return []
    expected = f"{following[0]}% (the step after {old}%)" if following else "no further step (it takes 100%)"
    return [f"the canary {canary!r} moves {old}% -> {new}%; the declared steps {list(steps)} allow {expected} or 0% "
            "(a rollback)"]
