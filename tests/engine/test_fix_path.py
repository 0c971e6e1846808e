"""A finding whose fix is a field of an enclosing element points at that field (engine/provenance.py
`fix_path`): the nearest element along the resource's declaration path whose model declares it."""

from __future__ import annotations

from accelplane.config.loader import load_stack
from accelplane.engine.provenance import fix_path

BACKEND = ("kubernetes", "inference_services", 0, "backends", 1)


def test_a_service_field_is_found_above_the_backend_a_resource_comes_from() -> None:
    platform = load_stack("tpu-prod").platform
    assert fix_path(platform, BACKEND, "rate_limit") == ("kubernetes", "inference_services", 0, "rate_limit")


def test_a_field_the_backend_declares_itself_is_the_backend_s() -> None:
    platform = load_stack("tpu-prod").platform
    assert fix_path(platform, BACKEND, "weight") == (*BACKEND, "weight")


def test_a_field_no_element_along_the_path_declares_gives_no_path() -> None:
    platform = load_stack("tpu-prod").platform
    assert fix_path(platform, BACKEND, "no_such_field") is None
