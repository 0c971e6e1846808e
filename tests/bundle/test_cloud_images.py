"""Cloud images in the lock: the EKS AMI release each pool pins, recorded with the SSM parameter it
resolves from (docs.aws.amazon.com/eks/latest/userguide/retrieve-ami-id.html); no AWS call."""

from __future__ import annotations

from accelplane.bundle.locker import _lock_cloud_images
from accelplane.bundle.lockfile import Kind, Lock
from accelplane.config.loader import load_stack


def test_each_pinned_pool_has_its_ami_release_and_ssm_parameter():
    stack = load_stack("dev")
    lock = Lock("dev", "2026-12-03T00:00:00Z")
    _lock_cloud_images(stack, lock)
    images = {a.name: a for a in lock.artifacts}
    assert set(images) == {"infer-l4", "train-l4"}  # the CPU pool pins no release
    infer = images["infer-l4"]
    assert infer.kind is Kind.cloud_image and infer.version == "1.33.5-20251120"
    assert infer.url == (
        "ssm:/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/nvidia/"
        "amazon-eks-node-al2023-x86_64-nvidia-1.33-v20251120/image_id"
    )
    assert infer.meta["ami_type"] == "AL2023_x86_64_NVIDIA"
    assert infer.provenance[0][0] == "node_pools.infer-l4 (profile l4-cuda13)"
