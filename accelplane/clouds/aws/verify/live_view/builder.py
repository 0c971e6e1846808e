"""The AWS live view, built service by service."""

from __future__ import annotations

from accelplane.clouds.aws.verify.inventory import Collector
from accelplane.clouds.aws.verify.live_view.cloudtrail import CloudTrailReader
from accelplane.clouds.aws.verify.live_view.core import VERIFIED_TYPES, AwsLiveView
from accelplane.clouds.aws.verify.live_view.eks import EksReader
from accelplane.clouds.aws.verify.live_view.elbv2 import Elbv2Reader
from accelplane.clouds.aws.verify.live_view.iam import IamReader
from accelplane.clouds.aws.verify.live_view.kms import KmsReader
from accelplane.clouds.aws.verify.live_view.lambda_permissions import LambdaPermissionReader
from accelplane.clouds.aws.verify.live_view.logs import LogsReader
from accelplane.clouds.aws.verify.live_view.network import NetworkReader
from accelplane.clouds.aws.verify.live_view.s3 import S3Reader
from accelplane.clouds.aws.verify.live_view.secrets import SecretsReader
from accelplane.verify.declared import ACCOUNT_SYMBOL, DeclaredPlatform


class ViewBuilder(NetworkReader, EksReader, IamReader, KmsReader, S3Reader, Elbv2Reader, SecretsReader, LogsReader,
                  CloudTrailReader, LambdaPermissionReader):
    """Every service's reader, run in order; what is not read is counted as not verified."""

    def build(self) -> AwsLiveView:
        if self.inv.account:
            self.symbols.add(self.inv.account, ACCOUNT_SYMBOL, live=True)
        for step in (
            self._network,
            self._cluster,
            self._security_groups,
            self._security_group_rules,
            self._kms,
            self._buckets,
            self._iam,
            self._oidc,
            self._placement_groups,
            self._launch_templates_and_node_groups,
            self._load_balancing,
            self._secrets,
            self._logs,
            self._trails,
            self._lambda_permissions,
            self._access,
        ):
            step()
        for resource in self.declared.resources:
            if (resource.type.startswith("aws:") and resource.type not in VERIFIED_TYPES) or resource.type.startswith(
                "kubernetes:"
            ):
                self.view.unverified[resource.type] += 1
            elif not resource.type.startswith("aws:") and resource.urn not in self.view.matched:
                # Components carry no settings; keep them so parent/child structure stays for the rules.
                self.view.resources.append(resource)
        return self.view


def build_live_view(declared: DeclaredPlatform, collector: Collector) -> AwsLiveView:
    return ViewBuilder(declared, collector).build()
