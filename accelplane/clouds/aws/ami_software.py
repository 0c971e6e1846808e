"""The node software an EKS accelerated AMI release decides, derived from the profile's one typed value.

A managed node group boots the EKS-optimised AMI its profile's `ami_release_version` pins; that AMI
carries the NVIDIA driver, fabric manager of the same version (amazon-eks-ami's
templates/al2023/provisioners/install-nvidia-driver.sh installs `nvidia-fabric-manager-<driver>`)
and the NVIDIA container toolkit. A profile typing a different version of any of them would make
the `versions.accelplane.io/*` labels and the matrix's verdict describe software the nodes do not
run, so it is refused, naming the AMI's version and its source; an untyped one is filled in from the
facts (`accelplane.clouds.aws.eks_ami.facts`), so the labels and the matrix read what the AMI ships.
A release the facts do not hold derives nothing (the live preflight still checks it exists).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from accelplane.cloud_support import Issue
from accelplane.clouds.aws import catalog
from accelplane.clouds.aws.declaration import AwsNodePool, AwsPlatform
from accelplane.clouds.aws.eks_ami.facts import ami_release, eks_ami_data, releases_shipping
from accelplane.clouds.aws.node_vendors import node_facts
from accelplane.declaration import SoftwareProfile
from accelplane.matrix import accelerators


@dataclass(frozen=True)
class AmiSoftware:
    """What one profile's AMI release ships on the AMI type its pools boot."""

    profile: str
    release: str
    ami_type: str
    source: str
    driver: str | None
    container_toolkit: str | None
    fabric_manager: bool  # a pool of the profile is an NVSwitch board: fabric manager runs too


def _ami_type(pool: AwsNodePool) -> str | None:
    facts = node_facts(pool.accelerator)
    if facts is None or pool.accelerator is None:
        return None
    return facts.ami_types.get(catalog.architecture(pool.instance_type))


def _shipped(platform: AwsPlatform) -> tuple[dict[str, AmiSoftware], list[Issue]]:
    """Per profile, what its pools' AMI release ships; and a problem per profile used on AMI types
    whose images ship different software."""
    by_profile: dict[str, AmiSoftware] = {}
    problems: list[Issue] = []
    for index, pool in enumerate(platform.node_pools):
        profile = platform.pool_profile(pool)
        if profile is None or profile.ami_release_version is None or pool.software_profile is None:
            continue
        ami_type = _ami_type(pool)
        row = ami_release(profile.ami_release_version)
        facts = row.facts(ami_type) if row is not None and ami_type else None
        if row is None or facts is None or ami_type is None:
            continue
        accelerator = accelerators().get(pool.accelerator or "")
        found = AmiSoftware(
            profile=pool.software_profile,
            release=row.release,
            ami_type=ami_type,
            source=eks_ami_data().source_of(row),
            driver=facts.nvidia_driver,
            container_toolkit=facts.container_toolkit,
            fabric_manager=bool(accelerator and accelerator.nvswitch),
        )
        earlier = by_profile.get(found.profile)
        if earlier is None or (found.fabric_manager and not earlier.fabric_manager):
            by_profile[found.profile] = found
        if earlier is not None and (earlier.driver, earlier.container_toolkit) != (found.driver,
                                                                                    found.container_toolkit):
            problems.append((("node_pools", index, "software_profile"),
                             f"profile {found.profile!r} is used on {earlier.ami_type} and {found.ami_type}, whose "
                             f"{found.release} images ship different drivers ({earlier.driver} and {found.driver}): "
                             "give each AMI type its own profile"))
    return by_profile, problems


def _typed_differs(profile: SoftwareProfile, shipped: AmiSoftware) -> Iterator[tuple[str, str, str]]:
    """(field, typed, shipped) for each typed version the AMI contradicts."""
    wanted = {"driver": shipped.driver, "fabric_manager": shipped.driver,
              "container_toolkit": shipped.container_toolkit}
    for field, ships in wanted.items():
        typed = getattr(profile, field)
        if typed is not None and ships is not None and str(typed) != ships:
            yield field, str(typed), ships


def ami_software_problems(platform: AwsPlatform) -> Iterator[Issue]:
    """A profile that types a driver, fabric manager or container toolkit other than its AMI ships."""
    shipped, problems = _shipped(platform)
    yield from problems
    for item in shipped.values():
        profile = platform.software_profiles[item.profile]
        kubernetes = ".".join(item.release.split(".")[:2])
        for field, typed, ships in _typed_differs(profile, item):
            fact = "nvidia_driver" if field in ("driver", "fabric_manager") else field
            others = releases_shipping(kubernetes, item.ami_type, fact, typed)[:3]
            instead = (f", or pin a release that ships {typed}: {', '.join(others)}" if others
                       else f"; no {kubernetes} release in the facts ships {typed}")
            what = "NVIDIA driver" if fact == "nvidia_driver" else field.replace("_", " ")
            yield (("software_profiles", item.profile, field),
                   f"{field} {typed} is not what EKS AMI release {item.release} ships on {item.ami_type}: its "
                   f"{what} is {ships} ({item.source}). On EKS the AMI decides it: remove `{field}` (it is "
                   f"derived from ami_release_version){instead}")


def with_ami_software(platform: AwsPlatform) -> AwsPlatform:
    """The platform with each EKS profile's untyped driver, fabric manager and container toolkit
    filled in from its AMI release (call after `ami_software_problems` found nothing)."""
    updates: dict[str, SoftwareProfile] = {}
    for item in _shipped(platform)[0].values():
        profile = platform.software_profiles[item.profile]
        fill: dict[str, str] = {}
        if profile.driver is None and item.driver is not None:
            fill["driver"] = item.driver
        if profile.fabric_manager is None and item.fabric_manager and item.driver is not None:
            fill["fabric_manager"] = item.driver
        if profile.container_toolkit is None and item.container_toolkit is not None:
            fill["container_toolkit"] = item.container_toolkit
        if fill:
            updates[item.profile] = profile.model_copy(update=fill)
    if not updates:
        return platform
    return platform.model_copy(update={"software_profiles": {**platform.software_profiles, **updates}})
