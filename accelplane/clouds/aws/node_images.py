"""The EKS-optimised AMIs a stack's node groups boot, as each pool's profile pins them.

A profile's `ami_release_version` (`1.33.5-20251120`) pins the release of the AMI type EKS uses for
the pool's accelerator and architecture. AWS publishes each release's image id as a public SSM
parameter (https://docs.aws.amazon.com/eks/latest/userguide/retrieve-ami-id.html), which is what
the bundle lock records: the image itself never leaves AWS.
"""

from __future__ import annotations

import re

from accelplane.cloud_support import CloudImages, NodeImage
from accelplane.clouds.aws import catalog
from accelplane.clouds.aws.ami_software import with_ami_software
from accelplane.clouds.aws.declaration import AwsNodePool, AwsPlatform, aws_platform
from accelplane.clouds.aws.node_vendors import node_facts
from accelplane.declaration import Platform
from accelplane.errors import InputError

# EKS AMI type -> (architecture, variant) in the AL2023 SSM parameter names.
_AMI_FAMILIES = {
    "AL2023_x86_64_STANDARD": ("x86_64", "standard"),
    "AL2023_ARM_64_STANDARD": ("arm64", "standard"),
    "AL2023_x86_64_NVIDIA": ("x86_64", "nvidia"),
    "AL2023_ARM_64_NVIDIA": ("arm64", "nvidia"),
    "AL2023_x86_64_NEURON": ("x86_64", "neuron"),
}


def _refuse_floating(text: str, where: str) -> None:
    if not text or re.search(r"[<>^~!,|\s]|\blatest\b", text) or text.endswith(".x"):
        raise InputError.single(f"{text!r} is a floating reference; pin an exact version", field=where)


def ami_parameter(pool: AwsNodePool, minor: str, release: str | None) -> tuple[str, str] | None:
    """(EKS AMI type, public SSM parameter of its image id) for `pool` on Kubernetes `minor`: the
    pinned release (`1.33.5-20251120`) where given, else the type's recommended image; None where
    EKS has no AL2023 AMI family for the pool's accelerator."""
    facts = node_facts(pool.accelerator)
    ami_type = facts.ami_types.get(catalog.architecture(pool.instance_type)) if facts else None
    family = _AMI_FAMILIES.get(ami_type or "")
    if ami_type is None or family is None:
        return None
    cpu, variant = family
    base = f"/aws/service/eks/optimized-ami/{minor}/amazon-linux-2023/{cpu}/{variant}"
    if release is None:
        return ami_type, f"{base}/recommended/image_id"
    date = release.partition("-")[2]
    return ami_type, f"{base}/amazon-eks-node-al2023-{cpu}-{variant}-{minor}-v{date}/image_id"


def node_images(platform: AwsPlatform) -> list[NodeImage]:
    images = []
    for pool in platform.node_pools:
        profile = platform.pool_profile(pool)
        if profile is None or profile.ami_release_version is None:
            continue
        _refuse_floating(profile.ami_release_version, f"software_profiles.{pool.software_profile}.ami_release_version")
        kubernetes = profile.ami_release_version.partition("-")[0]
        minor = ".".join(kubernetes.split(".")[:2])
        found = ami_parameter(pool, minor, profile.ami_release_version)
        if found is None:
            continue
        ami_type, parameter = found
        images.append(
            NodeImage(
                pool=pool.name,
                version=profile.ami_release_version,
                architecture=catalog.architecture(pool.instance_type),
                reference=f"ssm:{parameter}",
                declared_at=f"node_pools.{pool.name} (profile {pool.software_profile})",
                meta={"ami_type": ami_type, "ssm_parameter": parameter},
            )
        )
    return images


def _with_image_software(platform: Platform) -> Platform:
    return with_ami_software(aws_platform(platform))


def _node_images(platform: Platform) -> list[NodeImage]:
    return node_images(aws_platform(platform))


IMAGES = CloudImages("aws", node_images=_node_images, with_image_software=_with_image_software)  # `accelplane.images`
