"""The GKE version: `projects.locations.getServerConfig` for the region lists the versions each
release channel offers and the valid control-plane versions; the declared version must be one of
them (a pinned `gke_version` exactly; a release channel with `kubernetes_version` as a minor)."""

from __future__ import annotations

from accelplane.clouds.gcp.clients import GcpClients, GcpReadError
from accelplane.clouds.gcp.declaration import GcpPlatform
from accelplane.clouds.gcp.preflight.calls import why
from accelplane.preflight.results import PreflightCheck, Status, unknown


def version_checks(platform: GcpPlatform, clients: GcpClients) -> list[PreflightCheck]:
    assert platform.gcp is not None
    settings = platform.gcp
    channel = settings.release_channel.value if settings.release_channel is not None else None
    wanted = settings.gke_version or platform.kubernetes_version
    subject = f"GKE {wanted}" + (f" in the {channel} channel" if channel else "") + f" in {clients.region}"
    at = ("gcp", "gke_version") if settings.gke_version else ("kubernetes_version",)
    try:
        config = clients.read(clients.service("container").projects().locations().getServerConfig(
            name=f"projects/{clients.project}/locations/{clients.region}"))
    except GcpReadError as error:
        return [unknown("cluster.version", subject, why(error), at=at)]
    if channel:
        offered = next((c.get("validVersions") or [] for c in config.get("channels") or []
                        if c.get("channel") == channel), [])
        where = f"the {channel} channel"
    else:
        offered = config.get("validMasterVersions") or []
        where = "GKE's valid control-plane versions"
    if settings.gke_version:
        fits = settings.gke_version in offered
    else:
        fits = any(v == wanted or v.startswith(wanted + ".") for v in offered)
    has = ", ".join(offered[:4]) + (f" (+{len(offered) - 4} more)" if len(offered) > 4 else "") or "none"
    if fits:
        return [PreflightCheck("cluster.version", subject, Status.passed, f"{wanted} is in {where}", needs=wanted,
                               has=has, at=at)]
    return [PreflightCheck("cluster.version", subject, Status.failed, f"{wanted} is not in {where}", needs=wanted,
                           has=has, fix=f"declare a version {where} offers ({has})", at=at)]
