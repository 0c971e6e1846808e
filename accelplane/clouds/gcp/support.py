"""`SUPPORT`: Google Cloud's `CloudSupport`, the entry point of the `accelplane.clouds` group.

See `accelplane.cloud_support` for the sub-layout every cloud shares. What Google Cloud does not
support yet is its `not_yet` table. The declaration checks and the catalog load with it;
pulumi-gcp and the offline mocks inside the methods that use them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from accelplane.cloud_support import Capability, CloudSupport, Connection, DeclarationPath, Issue, NodeImage
from accelplane.clouds.gcp import catalog, checks, kubernetes_checks, provenance, resilience_checks
from accelplane.clouds.gcp.connection import gcp_connection
from accelplane.clouds.gcp.declaration import GcpPlatform, gcp_platform

if TYPE_CHECKING:
    import pulumi

    from accelplane.declaration import Platform


class GcpSupport(CloudSupport):
    name = "gcp"
    platform_model = GcpPlatform
    not_yet = {
        Capability.cloud_metrics: "use `rollout.metrics: prometheus`",
    }

    def declaration_problems(self, platform: Platform) -> Iterable[Issue]:
        own = gcp_platform(platform)
        yield from checks.gcp_problems(own)
        yield from kubernetes_checks.gke_problems(own)
        yield from resilience_checks.resilience_problems(own)

    def provider_config(self, platform: Platform) -> Mapping[str, str]:
        settings = gcp_platform(platform).gcp
        return {"gcp:region": platform.region, **({"gcp:project": settings.project} if settings else {})}

    def addon_fields(self) -> tuple[str, ...]:
        return kubernetes_checks.ADDON_FIELDS

    def vendor_plugin_fields(self, vendor: str) -> tuple[str, ...]:
        return ()  # GKE installs and upgrades the GPU and TPU device plugins itself

    def efa_plugin_field(self) -> str | None:
        return None

    def node_images(self, platform: Platform) -> list[NodeImage]:
        return []  # GKE picks the node image from the cluster version

    def declaration_paths(self, platform: Platform) -> dict[tuple[str, str], DeclarationPath]:
        return provenance.declaration_paths(gcp_platform(platform))

    def vocabularies(self) -> Mapping[str, Sequence[str]]:
        shapes = catalog.tpu_shapes()
        return {"tpu_topology": sorted({shape.topology for shape in shapes})}

    def build(self, platform: Platform) -> dict[str, Any]:
        # Start-up time: pulumi-gcp's service modules load only when the program runs.
        from accelplane.clouds.gcp.composition import build_gcp

        return build_gcp(gcp_platform(platform))

    def preflight(self, platform: Platform, options: Any) -> Any:
        # Start-up time: the Google API client loads only for live commands.
        from accelplane.clouds.gcp.preflight import run_preflight

        return run_preflight(gcp_platform(platform), options)

    def live_reader(self) -> Any:
        # Start-up time: google-api-python-client loads only for live commands.
        from accelplane.clouds.gcp.verify.reader import GcpReader

        return GcpReader()

    def live_route(self, request: Any) -> Any:
        # Start-up time: google-api-python-client loads only for live commands.
        from accelplane.clouds.gcp.rollout.route import gke_route

        return gke_route(request)

    def object_store(self, platform: Platform, scheme: str, connection: Connection) -> Any:
        if scheme != "gs":
            return None
        # Start-up time: google-api-python-client loads only for live commands.
        from accelplane.clouds.gcp.object_store import gcs_objects

        return gcs_objects(gcp_platform(platform), connection)

    def cluster_access(self, platform: Platform, connection: Connection) -> Any:
        # Start-up time: google-auth loads only for live commands.
        from accelplane.clouds.gcp.rollout.route import gke_access

        return gke_access(gcp_platform(platform), connection)

    def metrics_authorization(self, url: str, connection: Connection) -> Callable[[], str] | None:
        # Start-up time: google-auth loads only when a rollout reads metrics.
        from accelplane.clouds.gcp.rollout.managed_prometheus import bearer

        return bearer(url, gcp_connection(connection).impersonate_service_account)

    def offline_mocks(self, platform: Platform) -> pulumi.runtime.Mocks:
        # Start-up time: the Pulumi SDK loads only for the offline engine.
        from accelplane.clouds.gcp.mocks import GcpLikeMocks

        settings = gcp_platform(platform).gcp
        assert settings is not None  # required on Google Cloud by the declaration checks
        return GcpLikeMocks(project=settings.project, region=platform.region)


SUPPORT = GcpSupport()
