"""`SUPPORT`: Google Cloud's `CloudSupport`, the entry point of the `accelplane.clouds` group.

See `accelplane.cloud_support` for the sub-layout every cloud shares. What Google Cloud does not
support yet is its `not_yet` table. The declaration models, checks and the catalog load on first use;
pulumi-gcp and the offline mocks inside the methods that use them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from accelplane.cloud_support import Capability, CloudSupport, DeclarationPath, Issue

if TYPE_CHECKING:
    import pulumi

    from accelplane.declaration import Platform


class GcpSupport(CloudSupport):
    name = "gcp"
    not_yet = {
        Capability.cloud_metrics: "use `rollout.metrics: prometheus`",
    }

    # The declaration models, checks and facts load on first use (not on import): a stack of another
    # cloud loads this object for Kueue's fabric resources only.
    @property
    def platform_model(self) -> type[Platform]:
        from accelplane.clouds.gcp.declaration import GcpPlatform  # start-up time: see above

        return GcpPlatform

    def declaration_problems(self, platform: Platform) -> Iterable[Issue]:
        # Start-up time: as for platform_model.
        from accelplane.clouds.gcp import addon_checks, declaration_checks, gpu_driver, resilience_checks
        from accelplane.clouds.gcp.declaration import gcp_platform

        own = gcp_platform(platform)
        yield from declaration_checks.gcp_problems(own)
        yield from gpu_driver.gke_driver_problems(own)
        yield from addon_checks.gke_problems(own)
        yield from resilience_checks.resilience_problems(own)

    def provider_config(self, platform: Platform) -> Mapping[str, str]:
        from accelplane.clouds.gcp.declaration import gcp_platform  # start-up time: as for platform_model

        settings = gcp_platform(platform).gcp
        return {"gcp:region": platform.region, **({"gcp:project": settings.project} if settings else {})}

    def addon_fields(self) -> tuple[str, ...]:
        from accelplane.clouds.gcp import addon_checks  # start-up time: as for platform_model

        return addon_checks.ADDON_FIELDS

    def vendor_plugin_fields(self, vendor: str) -> tuple[str, ...]:
        return ()  # GKE installs and upgrades the GPU and TPU device plugins itself

    def declaration_paths(self, platform: Platform) -> dict[tuple[str, str], DeclarationPath]:
        # Start-up time: as for platform_model.
        from accelplane.clouds.gcp import provenance
        from accelplane.clouds.gcp.declaration import gcp_platform

        return provenance.declaration_paths(gcp_platform(platform))

    def vocabularies(self) -> Mapping[str, Sequence[str]]:
        from accelplane.clouds.gcp import catalog  # start-up time: as for platform_model

        shapes = catalog.tpu_shapes()
        return {"tpu_topology": sorted({shape.topology for shape in shapes})}

    def build(self, platform: Platform) -> dict[str, object]:
        # Start-up time: pulumi-gcp's service modules load only when the program runs.
        from accelplane.clouds.gcp.composition import build_gcp
        from accelplane.clouds.gcp.declaration import gcp_platform  # start-up time: as for platform_model

        return build_gcp(gcp_platform(platform))

    def offline_mocks(self, platform: Platform) -> pulumi.runtime.Mocks:
        # Start-up time: the Pulumi SDK loads only for the offline engine.
        from accelplane.clouds.gcp.declaration import gcp_platform  # start-up time: as for platform_model
        from accelplane.clouds.gcp.mocks import GcpLikeMocks

        settings = gcp_platform(platform).gcp
        assert settings is not None  # required on Google Cloud by the declaration checks
        return GcpLikeMocks(project=settings.project, region=platform.region)


SUPPORT = GcpSupport()
