"""AWS vocabularies checked before anything is sent to AWS.

Pulumi mocks accept any string, and AWS rejects a typo only halfway through `pulumi up`. So the
config layer checks enum-like values against botocore's service models (the same models the AWS
CLI validates with) and AWS API captures, both extracted into `catalog.json` by
tools/refresh_aws_catalog.py; a test fails when the extract differs from installed botocore.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True)
class InstanceFacts:
    name: str
    efa: bool
    max_efa_interfaces: int
    network_cards: int
    accelerators: tuple[tuple[str, str, int], ...]  # (vendor, model, count)
    placement_strategies: tuple[str, ...]

    @property
    def accelerator_count(self) -> int:
        return sum(count for _, _, count in self.accelerators)


@cache
def _enum(key: str) -> frozenset[str]:
    return frozenset(_catalog()["enums"][key])


@cache
def _catalog() -> dict:
    raw = resources.files("accelplane.clouds.aws").joinpath("catalog.json").read_text(encoding="utf-8")
    return json.loads(raw)


def eks_regions() -> dict[str, frozenset[str]]:
    """Partition → regions with an EKS endpoint."""
    return {partition: frozenset(regions) for partition, regions in _catalog()["regions"].items()}


def tag_limits() -> dict[str, int]:
    """`max_tags` per resource, `max_key_length`, `max_value_length`."""
    return dict(_catalog()["tag_limits"])


def ec2_instance_types() -> frozenset[str]:
    return _enum("ec2_instance_types")


def eks_ami_types() -> frozenset[str]:
    return _enum("eks_ami_types")


def eks_capacity_types() -> frozenset[str]:
    return _enum("eks_capacity_types")


def eks_taint_effects() -> frozenset[str]:
    return _enum("eks_taint_effects")


def s3_transition_storage_classes() -> frozenset[str]:
    return _enum("s3_transition_storage_classes")


def elb_tls_policies() -> dict[str, tuple[str, ...]]:
    """ELB security policy name -> TLS protocol versions it allows."""
    return {name: tuple(protocols) for name, protocols in _catalog()["tls_policies"].items()}


def instance_facts(instance_type: str) -> InstanceFacts | None:
    info = _catalog()["instance_types"].get(instance_type)
    if info is None:
        return None
    return InstanceFacts(
        name=instance_type,
        efa=info["efa"],
        max_efa_interfaces=info["max_efa_interfaces"],
        network_cards=info["network_cards"],
        accelerators=tuple((a["vendor"], a["name"], a["count"]) for a in info["accelerators"]),
        placement_strategies=tuple(info["placement_strategies"]),
    )


def architecture(instance_type: str) -> str:
    """`x86_64` or `arm64` (the first architecture EC2 lists for the type)."""
    architectures = _catalog()["instance_types"].get(instance_type, {}).get("architectures", [])
    return "arm64" if architectures[:1] == ["arm64"] else "x86_64"
