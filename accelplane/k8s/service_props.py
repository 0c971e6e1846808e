"""An inference service's backends and rollout as plain data: the props of its component resource.

The `accelplane:k8s:InferenceService` component carries these props, so the rollout rules and `diff`
judge a preview graph, a plan or the CrossGuard pack's view alike, without the declaration at hand:
which pool (accelerator) each backend runs on, the versions its image relies on, its weight and
replica floor, and the rollout policy.
"""

from __future__ import annotations

from typing import Any

from accelplane.declaration import InferenceService, Platform

SERVICE_TYPE = "accelplane:k8s:InferenceService"


def backend_profile(platform: Platform, service: InferenceService, backend_name: str) -> str | None:
    """The software profile a backend's image relies on: its own, else its pool's."""
    backend = next(b for b in service.serving_backends if b.name == backend_name)
    if backend.software_profile is not None:
        return backend.software_profile
    pool = next((p for p in platform.node_pools if p.name == backend.node_pool), None)
    return pool.software_profile if pool is not None else None


def service_props(platform: Platform, service: InferenceService) -> dict[str, Any]:
    pools = {pool.name: pool for pool in platform.node_pools}
    backends = []
    for backend in service.serving_backends:
        pool = pools.get(backend.node_pool)
        profile_name = backend_profile(platform, service, backend.name)
        profile = platform.software_profiles.get(profile_name) if profile_name else None
        backends.append({
            "name": backend.name,
            "objectName": service.object_name(backend),
            # The digest alone: what a parity report is keyed by, the same under an air-gapped mirror.
            "imageDigest": backend.image.rsplit("@sha256:", 1)[-1],
            "nodePool": backend.node_pool,
            "accelerator": pool.accelerator if pool is not None else None,
            "weight": backend.weight,
            "minReplicas": backend.autoscaling.min_replicas,
            "maxReplicas": backend.autoscaling.max_replicas,
            "softwareProfile": profile_name,
            "versions": profile.versions() if profile is not None else {},
        })
    rollout = service.rollout
    return {
        "service": service.name,
        "pathPrefix": service.path_prefix,
        "exposed": service.expose,
        "backends": backends,
        "rollout": None if rollout is None else {
            "baseline": rollout.baseline,
            "canary": service.canary,
            "steps": list(rollout.steps),
            "metrics": rollout.metrics,
            # The pinned golden set (none yet: an empty mapping, as the engine records a null value).
            "parity": None if rollout.parity is None else (
                {"goldenSha256": rollout.parity.golden.sha256} if rollout.parity.golden.sha256 else {}),
        },
    }
