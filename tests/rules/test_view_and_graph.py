"""The resource view: unknown values raise, wire quirks (string booleans, float numbers) read right;
the graph follows references by property dependency, by id and by single dependency."""

from __future__ import annotations

import pytest

from accelplane.clouds.aws import resource_types as aws_types
from accelplane.clouds.gcp import resource_types as gcp_types
from accelplane.rules.engine import run_rule
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.registry import rule_by_id
from accelplane.rules.view import UNKNOWN, Resource, UnknownValue, as_bool, as_int, as_list, get, json_document
from tests.rules.cases import PAB, bucket, launch_template, res


def test_unknown_raises_on_every_use() -> None:
    for use in (bool, str, len, iter, lambda v: v == "x", lambda v: "x" in v, lambda v: f"{v}"):
        with pytest.raises(UnknownValue):
            use(UNKNOWN)
    assert repr(UNKNOWN) == "<unknown>"


def test_accessors_raise_on_unknown_instead_of_treating_it_as_absent() -> None:
    with pytest.raises(UnknownValue):
        get({"a": {"b": UNKNOWN}}, "a", "b")
    with pytest.raises(UnknownValue):
        as_list(UNKNOWN)
    with pytest.raises(UnknownValue):
        json_document(UNKNOWN)
    assert get({"a": {}}, "a", "b", default="d") == "d"


def test_wire_quirks_read_as_values() -> None:
    assert as_bool("true") is True and as_bool("false") is False and as_bool(None) is None
    assert as_int(1.0) == 1 and as_int("2") == 2 and as_int(1.5) is None and as_int(True) is None
    assert as_list("s3:GetObject") == ["s3:GetObject"]


def test_rule_on_unknown_value_is_not_applicable_not_passed() -> None:
    rule = rule_by_id("AP-EC2-002")
    template = launch_template("lt", metadata={"httpTokens": "required", "httpPutResponseHopLimit": UNKNOWN})
    findings, skipped = run_rule(rule, ReferenceGraph([template]))
    assert findings == [] and skipped == 1


def test_graph_follows_property_dependencies_before_values() -> None:
    b = bucket("b")
    block = Resource(urn="urn:pulumi:test::p::pab::x", type=aws_types.S3_PUBLIC_ACCESS_BLOCK, name="x",
                     props={**PAB, "bucket": UNKNOWN}, property_dependencies={"bucket": (b.urn,)})
    graph = ReferenceGraph([b, block])
    assert graph.referring(b, "bucket", aws_types.S3_PUBLIC_ACCESS_BLOCK) == [block]


def test_graph_follows_a_single_dependency_when_ids_are_unknown() -> None:
    b = Resource(urn="urn:b", type=aws_types.S3_BUCKET, name="b", props={})
    block = Resource(urn="urn:pab", type=aws_types.S3_PUBLIC_ACCESS_BLOCK, name="pab", props={**PAB, "bucket": UNKNOWN},
                     dependencies=("urn:b",))
    other = Resource(urn="urn:other", type=aws_types.S3_BUCKET, name="other", props={})
    graph = ReferenceGraph([b, other, block])
    assert graph.referring(b, "bucket", aws_types.S3_PUBLIC_ACCESS_BLOCK) == [block]
    assert graph.referring(other, "bucket", aws_types.S3_PUBLIC_ACCESS_BLOCK) == []


def test_graph_environment_comes_from_tags_unless_given() -> None:
    prod = res(aws_types.S3_BUCKET, "b", {"tags": {"accelplane:environment": "prod"}})
    assert ReferenceGraph([prod]).environment == "prod"
    assert ReferenceGraph([prod], environment="dev").environment == "dev"
    assert ReferenceGraph([]).environment is None


def test_graph_environment_comes_from_gcp_labels_too() -> None:
    """GCP label keys take no `:`: the environment is the `accelplane-environment` label (`labels`, a GKE
    cluster's `resourceLabels`); an unknown label map is not counted."""
    bucket_ = res(gcp_types.GCS_BUCKET, "b", {"labels": {"accelplane-environment": "prod"}})
    cluster = res(gcp_types.GKE_CLUSTER, "c", {"resourceLabels": {"accelplane-environment": "prod"}})
    pending = res(gcp_types.GCP_KMS_CRYPTO_KEY, "k", {"labels": UNKNOWN})
    assert ReferenceGraph([bucket_, pending]).environment == "prod"
    assert ReferenceGraph([cluster]).environment == "prod"
    assert ReferenceGraph([pending]).environment is None
    aws_style = res(gcp_types.GCS_BUCKET, "b", {"labels": {"accelplane:environment": "prod"}})
    assert ReferenceGraph([aws_style]).environment is None
