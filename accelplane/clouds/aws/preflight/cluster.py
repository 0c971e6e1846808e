"""The EKS version and the node images: the declared Kubernetes version is still supported by EKS
in the region (DescribeClusterVersions), and each pool's AMI exists for it (the public SSM
parameter AWS publishes per EKS-optimised AMI release, the pinned release where the profile pins
one, else the AMI type's recommended image:
https://docs.aws.amazon.com/eks/latest/userguide/retrieve-ami-id.html)."""

from __future__ import annotations

from datetime import UTC, datetime

from accelplane.clouds.aws.declaration import AwsPlatform
from accelplane.clouds.aws.node_images import ami_parameter
from accelplane.clouds.aws.preflight.calls import AwsReads, UnreadableError
from accelplane.preflight.options import PreflightOptions
from accelplane.preflight.results import PreflightCheck, Status, aware, time_left, unknown

_AT_VERSION = ("kubernetes_version",)


def version_checks(platform: AwsPlatform, reads: AwsReads, options: PreflightOptions) -> list[PreflightCheck]:
    version = platform.kubernetes_version
    subject = f"EKS {version} in {reads.region}"
    try:
        answer = reads.call("eks", "DescribeClusterVersions", clusterVersions=[version], includeAll=True)
    except UnreadableError as failure:
        return [unknown("cluster.version", subject, failure.why(), at=_AT_VERSION)]
    found = [v for v in answer.get("clusterVersions", []) if v.get("clusterVersion") == version]
    if not found:
        return [PreflightCheck("cluster.version", subject, Status.failed,
                               f"EKS does not offer Kubernetes {version} here", needs=version, has="not offered",
                               fix="declare a version `aws eks describe-cluster-versions` lists", at=_AT_VERSION)]
    item = found[0]
    status = str(item.get("versionStatus") or item.get("status") or "").upper().replace("-", "_")
    now = options.now or datetime.now(UTC)
    standard_end = aware(item.get("endOfStandardSupportDate"))
    extended_end = aware(item.get("endOfExtendedSupportDate"))
    # The row shows the date that matters: the end of the support the version is in now.
    end = extended_end if status == "EXTENDED_SUPPORT" else standard_end
    which = "extended" if status == "EXTENDED_SUPPORT" else "standard"
    has = status.lower().replace("_", " ") + (f" ({which} support until {end:%Y-%m-%d})"
                                             if isinstance(end, datetime) else "")
    if status == "UNSUPPORTED":
        return [PreflightCheck("cluster.version", subject, Status.failed, f"EKS no longer supports {version}",
                               needs=version, has=has, fix="declare a supported kubernetes_version", at=_AT_VERSION)]
    if isinstance(end, datetime) and (end - now).days < options.min_days:
        # At the end of extended support EKS upgrades the control plane itself; at the end of standard
        # support the cluster moves to extended support, billed higher (EKS User Guide, "Understand the
        # Kubernetes version lifecycle on EKS"): either way the declared version does not hold that long.
        after = ("EKS upgrades the control plane to the next version" if which == "extended"
                 else "the cluster moves to extended support, billed higher per hour")
        return [PreflightCheck("cluster.version", subject, Status.failed,
                               f"{which} support for {version} ends {end:%Y-%m-%d} ({time_left(end, now)}, at least "
                               f"{options.min_days} days wanted): then {after}",
                               needs=f"{version} for {options.min_days} days", has=has,
                               fix="declare the next kubernetes_version and upgrade before then", at=_AT_VERSION)]
    if status == "EXTENDED_SUPPORT":
        ends = f" until {extended_end:%Y-%m-%d}" if isinstance(extended_end, datetime) else ""
        return [PreflightCheck("cluster.version", subject, Status.warning,
                               f"{version} is in extended support{ends}: the control plane costs more per hour",
                               needs=version, has=has, fix="plan the move to a version in standard support",
                               at=_AT_VERSION)]
    return [PreflightCheck("cluster.version", subject, Status.passed, f"EKS supports {version}", needs=version,
                           has=has, at=_AT_VERSION)]


def image_checks(platform: AwsPlatform, reads: AwsReads) -> list[PreflightCheck]:
    minor = platform.kubernetes_version
    checks = []
    for index, pool in enumerate(platform.node_pools):
        profile = platform.pool_profile(pool)
        release = profile.ami_release_version if profile else None
        found = ami_parameter(pool, minor, release)
        if found is None:
            continue
        ami_type, parameter = found
        what = f"release {release}" if release else "the recommended image"
        subject = f"pool {pool.name} ({ami_type}, {what})"
        at = ("node_pools", index)
        try:
            image = reads.call("ssm", "GetParameter", Name=parameter)["Parameter"]["Value"]
        except UnreadableError as failure:
            if failure.code == "ParameterNotFound":
                checks.append(PreflightCheck(
                    "node.image", subject, Status.failed,
                    f"AWS publishes no {ami_type} image {what} for Kubernetes {minor} ({parameter})",
                    needs=f"{ami_type} for {minor}", has="none",
                    fix="pin an ami_release_version AWS lists (aws ssm get-parameters-by-path --path "
                        f"{parameter.rsplit('/', 2)[0]})", at=at))
            else:
                checks.append(unknown("node.image", subject, failure.why(), at=at))
            continue
        checks.append(PreflightCheck("node.image", subject, Status.passed, f"{parameter} is {image}",
                                     needs=f"{ami_type} for {minor}", has=str(image), at=at))
    return checks
