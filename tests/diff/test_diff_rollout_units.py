"""The rollout section of `accelplane diff` from hand-built graphs: weights per backend base → head, each
backend's matrix verdict on its pool, and AP-RO-004 when a change of weights is not one rollout step."""

from __future__ import annotations

import json
from datetime import date

from accelplane.diff import render
from accelplane.diff.plan_diff import PlanDiff
from accelplane.diff.rollout import STEP_RULE, merge, rollout_changes, step_findings
from accelplane.k8s.service_props import SERVICE_TYPE
from accelplane.rules import types as t
from accelplane.rules.registry import DIFF_ONLY_IDS, RULE_ID, rule_by_id
from tests.rules.cases import IMAGE_CUDA13, backend, canary_rollout, infer_pool, inference_service

TODAY = date(2026, 12, 3)
CUDA13 = IMAGE_CUDA13


def _service(*backends, rollout=None):
    return inference_service("acme-svc-chat", *backends, rollout=rollout or canary_rollout())


def _diff(base, head):
    rollout, notes = rollout_changes(base, head, TODAY)
    steps = step_findings(rollout)
    return PlanDiff(stack="prod", base_ref="main", base_commit="a" * 40, base_resources=len(base),
                    head_resources=len(head), resources=[], introduced=merge(steps, []), resolved=[], software=[],
                    notes=notes, rollout=rollout)


def test_the_component_type_is_the_one_the_program_declares() -> None:
    assert t.INFERENCE_SERVICE == SERVICE_TYPE


def test_ap_ro_004_is_reserved_for_diff_and_not_a_registered_rule() -> None:
    assert RULE_ID.match(STEP_RULE.id) and STEP_RULE.id in DIFF_ONLY_IDS
    assert rule_by_id(STEP_RULE.id) is None


def test_one_step_moves_the_canary_from_5_to_25_and_passes() -> None:
    base = [infer_pool(), _service(backend("stable", 95), backend("next", 5))]
    head = [infer_pool(), _service(backend("stable", 75), backend("next", 25))]
    diff = _diff(base, head)
    [service] = diff.rollout
    assert (service.service, service.status, service.baseline, service.canary) == ("chat", "changed", "stable", "next")
    assert [(b.name, b.pool, b.weight, b.verdict) for b in service.backends] == [
        ("stable", ("infer-l40s", "infer-l40s"), (95, 75), "compatible"),
        ("next", ("infer-l40s", "infer-l40s"), (5, 25), "compatible")]
    assert service.problems == () and diff.introduced == [] and diff.passed
    table = render(diff, "table")
    assert """\
Rollout:
  ~ service chat (baseline stable, canary next)
      stable  infer-l40s  weight 95% → 75%  matrix: compatible
      next    infer-l40s  weight 5% → 25%   matrix: compatible
""" in table


def test_two_backends_changing_at_once_is_not_a_step_and_blocks() -> None:
    base = [infer_pool(), _service(backend("stable", 90), backend("next", 5), backend("other", 5))]
    head = [infer_pool(), _service(backend("stable", 70), backend("next", 25), backend("other", 5))]
    assert _diff(base, head).passed  # one pair, with the baseline, to the next declared step
    head = [infer_pool(), _service(backend("stable", 70), backend("next", 20), backend("other", 10))]
    diff = _diff(base, head)
    [service] = diff.rollout
    assert service.problems == ("3 backends change weight (next, other, stable); a step changes one pair",)
    [finding] = diff.introduced
    assert (finding.rule, finding.name, finding.type, finding.blocking) == (
        "AP-RO-004", "acme-svc-chat", t.INFERENCE_SERVICE, True)
    assert finding.message == ("service chat: stable 90% → 70%, next 5% → 20%, other 5% → 10% is not one rollout "
                               "step: 3 backends change weight (next, other, stable); a step changes one pair")
    assert not diff.passed and diff.summary()["blocking"] == 1
    assert "not one rollout step (AP-RO-004): 3 backends change weight" in render(diff, "table")
    assert "FAILED: the change introduces 1 blocking finding" in render(diff, "table")
    data = json.loads(render(diff, "json"))
    assert data["summary"]["rollout_changes"] == 1 and data["findings"]["introduced"][0]["rule"] == "AP-RO-004"


def test_weight_moving_past_the_baseline_is_not_a_step() -> None:
    base = [infer_pool(), _service(backend("stable", 90), backend("next", 5), backend("other", 5))]
    head = [infer_pool(), _service(backend("stable", 90), backend("next", 10), backend("other", 0))]
    [service] = _diff(base, head).rollout
    assert service.problems == ("the weight moves between next and other, not between the baseline 'stable' and "
                                "one canary",)


def test_an_abort_returning_everything_to_the_baseline_is_always_allowed() -> None:
    base = [infer_pool(), _service(backend("stable", 80), backend("next", 10), backend("other", 10))]
    head = [infer_pool(), _service(backend("stable", 100), backend("next", 0, min_replicas=0),
                                   backend("other", 0, min_replicas=0))]
    diff = _diff(base, head)
    [service] = diff.rollout
    assert service.problems == () and diff.introduced == [] and diff.passed


def test_the_matrix_verdict_column_judges_each_backend_image_on_its_pool() -> None:
    base = [infer_pool(), _service(backend("stable", 100), backend("next", 0))]
    head = [infer_pool(), _service(backend("stable", 95), backend("next", 5, profile="cuda13", versions=CUDA13))]
    diff = _diff(base, head)
    [service] = diff.rollout
    stable, canary = service.backends
    assert (stable.verdict, canary.verdict) == ("compatible", "incompatible")
    assert [(rule, verdict) for rule, verdict, _ in canary.verdict_findings] == [
        ("nvidia.cuda-driver", "incompatible"), ("nvidia.cudnn", "incompatible"), ("torch.nccl-pin", "warn")]
    message = canary.verdict_findings[0][2]
    assert message.startswith("cuda 13.0 with driver 570.172.08: driver 570.172.08 is too old for CUDA 13.0")
    assert "(source: https://docs.nvidia.com/" in message
    table = render(diff, "table")
    assert "      next    infer-l40s  weight 0% → 5%     matrix: incompatible" in table
    assert "          incompatible nvidia.cuda-driver: cuda 13.0 with driver 570.172.08:" in table
    markdown = render(diff, "markdown")
    assert "| Service | Backend | Pool | Weight | Matrix (working tree) |" in markdown
    assert "| `next` | `infer-l40s` | **0% → 5%** | ❌ incompatible |" in markdown
    assert "rollout: 1 service changed" in markdown.splitlines()[2]
    data = json.loads(render(diff, "json"))
    [row] = [b for b in data["rollout"][0]["backends"] if b["name"] == "next"]
    assert row["verdict"] == "incompatible" and row["weight"] == {"old": 0, "new": 5}
    assert row["verdict_findings"][0]["rule"] == "nvidia.cuda-driver"


def test_a_driver_change_that_breaks_a_backend_shows_the_service_with_unchanged_weights() -> None:
    base = [infer_pool(), _service(backend("stable", 95), backend("next", 5, profile="cuda13", versions=CUDA13))]
    head_pool = infer_pool()
    labels = dict(head_pool.props["labels"])
    labels["versions.accelplane.io/driver"] = "580.95.05"
    from dataclasses import replace

    head = [replace(head_pool, props={**head_pool.props, "labels": labels}), base[1]]
    [service] = _diff(base, head).rollout
    assert [(b.name, b.weight, b.verdict) for b in service.backends] == [
        ("stable", (95, 95), "compatible"), ("next", (5, 5), "warn")]
    assert service.problems == ()


def test_unchanged_services_are_not_listed_and_new_or_removed_ones_are_not_steps() -> None:
    same = [infer_pool(), _service(backend("stable", 95), backend("next", 5))]
    assert _diff(same, same).rollout == []
    assert "Rollout:\n  no inference service changes\n" in render(_diff(same, same), "table")
    assert "#### Rollout" not in render(_diff(same, same), "markdown")
    other = inference_service("acme-svc-embed", backend("a", 50, service="embed"), backend("b", 50, service="embed"),
                              service="embed", rollout=canary_rollout("a", "b"))
    diff = _diff(same, [*same, other])
    assert [(s.service, s.status, s.problems) for s in diff.rollout] == [("embed", "added", ())]
    diff = _diff([*same, other], same)
    assert [(s.service, s.status) for s in diff.rollout] == [("embed", "removed")]
    assert "  - service embed (baseline a, canary b): removed" in render(diff, "table")


def test_a_base_graph_without_the_component_props_is_noted_not_judged() -> None:
    from tests.rules.cases import res

    old = res(t.INFERENCE_SERVICE, "acme-svc-chat", {})  # the component before it carried props
    head = [infer_pool(), _service(backend("stable", 70), backend("next", 20), backend("other", 10))]
    diff = _diff([infer_pool(), old], head)
    assert diff.introduced == []
    assert "the base revision records no backends" in " ".join(diff.notes)


def test_a_change_that_skips_declared_steps_is_not_one_step() -> None:
    """90/10 -> 40/60 with steps [10, 25, 50, 100]: the pair is right, the size is not (two steps skipped)."""
    steps = {**canary_rollout(), "steps": [10, 25, 50, 100]}
    base = [infer_pool(), _service(backend("stable", 90), backend("next", 10), rollout=steps)]
    head = [infer_pool(), _service(backend("stable", 40), backend("next", 60), rollout=steps)]
    [service] = _diff(base, head).rollout
    assert service.problems == ("the canary 'next' moves 10% -> 60%; the declared steps [10, 25, 50, 100] allow 25% "
                                "(the step after 10%) or 0% (a rollback)",)
    # The next step, and a rollback of the canary to 0, are steps.
    for stable, nxt in ((75, 25), (100, 0)):
        head = [infer_pool(), _service(backend("stable", stable), backend("next", nxt), rollout=steps)]
        assert _diff(base, head).rollout[0].problems == ()


def _parity_rollout(golden: str = "a" * 64) -> dict:
    return {**canary_rollout(), "parity": {"goldenSha256": golden}}


def _with_image(item: dict, digest: str) -> dict:
    return {**item, "imageDigest": digest * 64}


def test_a_new_canary_image_invalidates_its_parity_report() -> None:
    base = [infer_pool(), _service(backend("stable", 95), _with_image(backend("next", 5), "1"),
                                   rollout=_parity_rollout())]
    head = [infer_pool(), _service(backend("stable", 95), _with_image(backend("next", 5), "2"),
                                   rollout=_parity_rollout())]
    [service] = _diff(base, head).rollout
    assert service.parity == ("canary next's image changes (111111111111 → 222222222222): its parity report no "
                              "longer applies; run `accelplane rollout parity` before advancing past the first step",)
    diff = _diff(base, head)
    assert "parity: canary next's image changes" in render(diff, "table")
    assert "⚠️ parity of service `chat`" in render(diff, "markdown")
    assert json.loads(render(diff, "json"))["rollout"][0]["parity_invalidated"] == list(service.parity)


def test_a_re_recorded_golden_set_or_another_profile_invalidates_it_too() -> None:
    base = [infer_pool(), _service(backend("stable", 95), backend("next", 5), rollout=_parity_rollout("a" * 64))]
    head = [infer_pool(), _service(backend("stable", 95), backend("next", 5, profile="l40s-next"),
                                   rollout=_parity_rollout("b" * 64))]
    [service] = _diff(base, head).rollout
    assert [reason.split(":")[0] for reason in service.parity] == [
        "canary next's software profile changes (l40s → l40s-next)", "the golden set is re-recorded"]


def test_without_parity_declared_an_image_change_says_nothing_of_it() -> None:
    base = [infer_pool(), _service(backend("stable", 95), _with_image(backend("next", 5), "1"))]
    head = [infer_pool(), _service(backend("stable", 95), _with_image(backend("next", 5), "2"))]
    assert all(not s.parity for s in _diff(base, head).rollout)
