"""`rollout.metrics`: the cluster's Prometheus on every cloud, or the stack's cloud's own load-balancer
metrics (cloudwatch on AWS). Another cloud's source is refused as that cloud's, naming what to use; an
unknown one names the allowed values. The values come from each cloud (CloudSupport.load_balancer_metrics),
not from a neutral list of both clouds' names."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.stack_files import edit_problems


def _problems(tmp_path: Path, stack: str, old: str, new: str) -> list[tuple[str, str]]:
    return edit_problems(tmp_path, (old, new), stack=stack)


def test_cloudwatch_on_a_gke_stack_is_named_as_awss(tmp_path: Path) -> None:
    found = _problems(tmp_path, "tpu-prod", "metrics: prometheus", "metrics: cloudwatch")
    [(field, message)] = found
    assert field.endswith("rollout.metrics")
    assert message == "cloudwatch reads aws's load-balancer metrics: use prometheus on gcp"


@pytest.mark.parametrize(("stack", "old", "allowed"), [
    ("prod", "metrics: cloudwatch", "prometheus or cloudwatch"),
    ("tpu-prod", "metrics: prometheus", "prometheus"),
])
def test_an_unknown_source_names_what_the_stacks_cloud_allows(tmp_path: Path, stack: str, old: str,
                                                              allowed: str) -> None:
    [(field, message)] = _problems(tmp_path, stack, old, "metrics: prometheu")
    assert field.endswith("rollout.metrics")
    assert message.startswith(f"expected {allowed}, got 'prometheu'") and "did you mean prometheus" in message


def test_each_clouds_own_source_and_prometheus_pass(tmp_path: Path) -> None:
    assert _problems(tmp_path, "prod", "metrics: cloudwatch", "metrics: prometheus") == []
    assert _problems(tmp_path, "tpu-prod", "metrics: prometheus", "metrics: prometheus") == []


def test_a_misspelt_source_in_other_case_is_named_with_what_to_use(tmp_path: Path) -> None:
    """The field is closed by the stack's cloud, not by a pattern: "CloudWatch" gets the allowed values and a
    did-you-mean, as an enum's error did, instead of a regular expression."""
    [(field, message)] = _problems(tmp_path, "prod", "metrics: cloudwatch", "metrics: CloudWatch")
    assert field.endswith("rollout.metrics")
    assert message.startswith("expected prometheus or cloudwatch, got 'CloudWatch'"), message
