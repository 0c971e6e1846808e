"""The program deploys through a provider for the declared region, never the ambient one: every
AWS resource names the explicit provider, and the provider carries `accelplane:platform.region`
whatever AWS_REGION or AWS_DEFAULT_REGION say."""

from __future__ import annotations

import pytest

from accelplane.config.loader import load_stack
from accelplane.program import offline_graph


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_every_aws_resource_uses_the_declared_region_s_provider(stack: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_REGION", "ap-southeast-2")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-southeast-2")
    config = load_stack(stack)
    graph = offline_graph(config)
    providers = [r for r in graph.resources if r.type == "pulumi:providers:aws"]
    assert len(providers) == 1
    provider = providers[0]
    assert provider.inputs["region"] == config.platform.region
    reference = f"{provider.urn}::{provider.id}"
    aws_resources = [r for r in graph.resources if r.type.startswith("aws:")]
    assert aws_resources
    assert [r.name for r in aws_resources if r.provider != reference] == []
