"""The rollout section of `accelplane diff`: per inference service, each backend's weight base → head
and the matrix verdict of its image on its pool; and AP-RO-004, the check only a diff can make.

Both sides are read alike, from the `accelplane:k8s:InferenceService` components of the two
revisions' graphs (their props: `accelplane/k8s/service_props.py`), never from a declaration: the
base revision's declaration may not validate under today's model, and the graph is what each
revision's own code built. The verdict column is AP-RO-001's judgement (the backend's image stack
joined with its pool's node-side versions from the pool's labels), on the working tree's graph.

AP-RO-004 (diff-only: it compares two revisions, so no single graph, plan or CrossGuard run can
judge it, and the registry keeps the id reserved): a change of weights must be one rollout step,
moving weight between the baseline and one other backend, the canary's new weight being the declared
step after its old one (or 0, a rollback) (`accelplane.rollout.steps.step_problems`).
Two canaries growing at once, or weight moving between two backends past the baseline, is not a
step the gates ever judged. A change that gives the baseline 100 (an abort or rollback, however many
canaries it empties) is always allowed: it returns every request to what served them before. The
finding is mandatory and joins the introduced findings, so it fails the diff (exit 1) like a new rule
finding. It is neither configurable with `--policy-config` nor waivable: both name registered rules
only (`accelplane check` refuses a waiver of an unknown id), and a change that is not a step is split
into steps instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date

from accelplane.diff.plan_diff import BackendChange, ServiceRollout
from accelplane.diff.step_rule import STEP_RULE
from accelplane.report.document import Item
from accelplane.report.findings import item
from accelplane.rollout.steps import step_problems
from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rollout.services import Backend, backends, judge_backend, rollout, service_name, worst
from accelplane.rules.rule import Enforcement, Finding
from accelplane.rules.view import Resource, UnknownValue, mapping


def _services(resources: Iterable[Resource]) -> dict[str, Resource]:
    # Matched by URN like every resource of the diff: a base revision older than the component's props
    # records the component without them, and still is the same service.
    return {r.urn: r for r in resources if r.type == t.INFERENCE_SERVICE}


def _verdicts(backend: Backend, graph: ReferenceGraph) -> tuple[str | None, tuple[tuple[str, str, str], ...]]:
    judged = judge_backend(backend, graph)
    findings: dict[tuple[str, str, str], None] = {}  # ordered, without the repeats of a multi-slice pool
    for one in judged:
        for finding in one.findings:
            pair = one.pair(finding)
            findings[(finding.rule, finding.verdict, f"{pair}: {finding.message}" if pair else finding.message)] = None
    return worst([one.verdict for one in judged]), tuple(findings)


def _backend_changes(
    base: Resource | None, head: Resource | None, base_graph: ReferenceGraph, head_graph: ReferenceGraph
) -> tuple[list[BackendChange], bool]:
    """(rows, whether anything about the backends differs: presence, pool, weight, versions, verdict)."""
    old = {b.name: b for b in backends(base)} if base is not None else {}
    new = {b.name: b for b in backends(head)} if head is not None else {}
    order = [*new, *(name for name in old if name not in new)]
    rows, differs = [], False
    for name in order:
        before, after = old.get(name), new.get(name)
        verdict, findings = _verdicts(after, head_graph) if after is not None else (None, ())
        if before is not None and after is not None:
            differs = differs or before != after or _verdicts(before, base_graph)[0] != verdict
        else:
            differs = True
        rows.append(BackendChange(
            name=name,
            pool=(before.node_pool if before else None, after.node_pool if after else None),
            weight=(before.weight or 0 if before else None, after.weight or 0 if after else None),
            verdict=verdict, verdict_findings=findings,
        ))
    return rows, differs


def rollout_changes(
    base: Sequence[Resource], head: Sequence[Resource], as_of: date | None = None
) -> tuple[list[ServiceRollout], list[str]]:
    """(services whose rollout picture changes, notes) from the two revisions' resources."""
    base_graph, head_graph = ReferenceGraph(base, as_of=as_of), ReferenceGraph(head, as_of=as_of)
    old, new = _services(base), _services(head)
    out, notes = [], []
    for urn in set(old) | set(new):
        before, after = old.get(urn), new.get(urn)
        shown = after if after is not None else before
        assert shown is not None
        name = service_name(shown)
        try:
            rows, differs = _backend_changes(before, after, base_graph, head_graph)
            # The working tree's policy; a removed service (or one whose rollout ended) keeps the base's.
            policy = (rollout(after) if after is not None else None) or (rollout(before) if before else None)
            policy_changed = (before is not None and after is not None
                              and mapping(before.get("rollout")) != mapping(after.get("rollout")))
            recorded = before is not None and bool(backends(before))
        except UnknownValue:
            notes.append(f"service {name}: its backends are not known until apply: rollout not compared")
            continue
        invalidated = _parity_invalidated(before, after, policy.canary if policy else None)
        if not differs and not policy_changed and not invalidated:
            continue
        status = "added" if before is None else "removed" if after is None else "changed"
        problems: tuple[str, ...] = ()
        if status == "changed" and not recorded:  # a base revision older than the component's props
            notes.append(f"service {name}: the base revision records no backends: weights not compared")
        elif status == "changed":
            problems = _step_problems(rows, policy.baseline or None if policy else None,
                                      policy.steps if policy else ())
        out.append(ServiceRollout(
            service=name, name=shown.name, urn=shown.urn, status=status,
            baseline=policy.baseline or None if policy else None,
            canary=policy.canary or None if policy else None,
            backends=tuple(rows), problems=problems, parity=invalidated,
        ))
    return sorted(out, key=lambda service: (service.service, service.urn)), notes


def _parity_invalidated(before: Resource | None, after: Resource | None, canary: str | None) -> tuple[str, ...]:
    """Why the canary's parity report (keyed by its image and the golden set) no longer applies after
    the change, where the head revision declares parity: a new image, another software profile, or a
    re-recorded golden set. A side that does not record a value (an older revision) compares as
    unchanged."""
    if before is None or after is None or not canary:
        return ()
    parity = mapping(mapping(after.get("rollout")).get("parity"))
    if not parity and mapping(after.get("rollout")).get("parity") is None:
        return ()
    old = {b.name: b for b in backends(before)}.get(canary)
    new = {b.name: b for b in backends(after)}.get(canary)
    reasons = []
    if old is not None and new is not None:
        if old.image_digest and new.image_digest and old.image_digest != new.image_digest:
            reasons.append(f"canary {canary}'s image changes ({old.image_digest[:12]} → {new.image_digest[:12]})")
        if old.software_profile and old.software_profile != new.software_profile:
            reasons.append(f"canary {canary}'s software profile changes ({old.software_profile} → "
                           f"{new.software_profile})")
        elif old.versions and new.versions and old.versions != new.versions:
            changed = sorted(k for k in {*old.versions, *new.versions} if old.versions.get(k) != new.versions.get(k))
            reasons.append(f"canary {canary}'s profile versions change ({', '.join(changed)})")
    old_golden = mapping(mapping(before.get("rollout")).get("parity")).get("goldenSha256")
    new_golden = parity.get("goldenSha256")
    if old_golden and new_golden != old_golden:
        reasons.append("the golden set is re-recorded")
    return tuple(f"{reason}: its parity report no longer applies; run `accelplane rollout parity` before "
                 "advancing past the first step" for reason in reasons)


def _step_problems(rows: Sequence[BackendChange], baseline: str | None, steps: Sequence[int]) -> tuple[str, ...]:
    before = {r.name: r.weight[0] or 0 for r in rows if r.weight[0] is not None}
    after = {r.name: r.weight[1] or 0 for r in rows if r.weight[1] is not None}
    if baseline is not None and after.get(baseline) == 100:
        return ()  # every request back on the baseline: an abort or rollback, always allowed
    return tuple(step_problems(before, after, baseline, steps))


def step_findings(services: Iterable[ServiceRollout]) -> list[Item]:
    """AP-RO-004 for each service whose change of weights is not one step."""
    found = []
    for service in services:
        for problem in service.problems:
            weights = ", ".join(f"{b.name} {_weight(b.weight[0])} → {_weight(b.weight[1])}"
                                for b in service.backends if b.weight[0] != b.weight[1])
            found.append(Finding(rule=STEP_RULE, urn=service.urn, type=t.INFERENCE_SERVICE, name=service.name,
                                 message=f"service {service.service}: {weights} is not one rollout step: {problem}",
                                 enforcement=Enforcement.mandatory))
    return [item(finding, strict=False) for finding in found]


def _weight(value: int | None) -> str:
    return "none" if value is None else f"{value}%"


def merge(step_items: list[Item], introduced: list[Item]) -> list[Item]:
    """Introduced findings with AP-RO-004's, blocking ones first (the rules engine's order)."""
    return sorted([*step_items, *introduced], key=lambda i: not i.blocking)
