"""Enum-like values the program sends are ones AWS accepts (botocore service models), because
Pulumi mocks accept anything and AWS would reject a typo only halfway through `pulumi up`."""

from __future__ import annotations

import json
import runpy

import pytest

from accelplane.clouds.aws import catalog as aws_catalog
from accelplane.clouds.aws.components import node_pool
from accelplane.clouds.aws.node_vendors import all_node_facts
from accelplane.config.json_schema import SCHEMA_PATH
from accelplane.declaration import TaintEffect
from accelplane.engine.graph import OfflineGraph


def test_every_ami_type_of_the_vendor_table_exists_in_eks() -> None:
    for facts in all_node_facts():
        for ami_type in facts.ami_types.values():
            assert ami_type in aws_catalog.eks_ami_types(), (facts.vendor, ami_type)


def test_capacity_types_and_taint_effects_match_eks() -> None:
    assert set(node_pool._CAPACITY.values()) <= aws_catalog.eks_capacity_types()
    assert {effect.value for effect in TaintEffect} == aws_catalog.eks_taint_effects()


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_graph_values_are_in_aws_vocabularies(stack: str, dev_graph: OfflineGraph, prod_graph: OfflineGraph) -> None:
    graph = {"dev": dev_graph, "prod": prod_graph}[stack]
    for group in graph.by_type("aws:eks/nodeGroup:NodeGroup"):
        inputs = group.inputs
        assert inputs["amiType"] in aws_catalog.eks_ami_types(), group.name
        assert inputs["capacityType"] in aws_catalog.eks_capacity_types(), group.name
        assert all(t["effect"] in aws_catalog.eks_taint_effects() for t in inputs.get("taints", [])), group.name
        assert all(t in aws_catalog.ec2_instance_types() for t in inputs["instanceTypes"]), group.name
    for listener in graph.by_type("aws:lb/listener:Listener"):
        if listener.inputs["protocol"] == "HTTPS":
            protocols = aws_catalog.elb_tls_policies()[listener.inputs["sslPolicy"]]
            assert set(protocols) <= {"TLSv1.2", "TLSv1.3"}, listener.name
    classes = aws_catalog.s3_transition_storage_classes()
    for lifecycle in graph.by_type("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration"):
        for rule in lifecycle.inputs["rules"]:
            assert all(t["storageClass"] in classes for t in rule.get("transitions", [])), lifecycle.name


def test_catalog_extract_matches_its_source() -> None:
    """accelplane/clouds/aws/catalog.json is regenerated, not edited: the extractor reproduces it exactly."""
    script = SCHEMA_PATH.parents[1] / "tools" / "refresh_aws_catalog.py"
    rebuilt = runpy.run_path(str(script))["build_catalog"]()
    assert json.loads(json.dumps(rebuilt)) == aws_catalog._catalog()
