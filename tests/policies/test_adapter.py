"""The adapter's conversions, without a process: CrossGuard proxies to plain rule data."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from pulumi_policy.proxy import unknown_checking_proxy

from accelplane.rules.view import UNKNOWN

PACK_DIR = Path(__file__).resolve().parents[2] / "policies"


def _adapter():
    spec = importlib.util.spec_from_file_location("accelplane_crossguard_adapter", PACK_DIR / "crossguard.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_proxies_become_plain_data_with_unknowns_and_whole_floats() -> None:
    adapter = _adapter()
    props = unknown_checking_proxy({
        "metadataOptions": {"httpPutResponseHopLimit": 1.0, "httpTokens": "04da6b54-80e4-46f7-96ec-b56ff0331ba9"},
        "ratio": 0.5,
        "subnets": ["s-1", "04da6b54-80e4-46f7-96ec-b56ff0331ba9"],
        "enabled": True,
    })
    plain = adapter.to_plain(props)
    assert plain["metadataOptions"]["httpPutResponseHopLimit"] == 1
    assert isinstance(plain["metadataOptions"]["httpPutResponseHopLimit"], int)
    assert plain["metadataOptions"]["httpTokens"] is UNKNOWN
    assert plain["subnets"][0] == "s-1" and plain["subnets"][1] is UNKNOWN
    assert plain["ratio"] == 0.5 and plain["enabled"] is True
    assert isinstance(plain, dict) and isinstance(plain["subnets"], list)


def test_pack_policies_follow_the_registry_and_config(monkeypatch, tmp_path) -> None:
    adapter = _adapter()
    from accelplane.rules.registry import RULES

    policies = adapter.policies()
    assert [p.name for p in policies] == [r.id for r in RULES]
    config = tmp_path / "policy.json"
    config.write_text('{"all": "advisory", "AP-KMS-001": "disabled"}')
    monkeypatch.setenv(adapter.CONFIG_ENV, str(config))
    levels = {p.name: p.enforcement_level.value for p in adapter.policies()}
    assert levels["AP-KMS-001"] == "disabled" and levels["AP-IAM-001"] == "advisory"
