"""CloudWatch log groups."""

from __future__ import annotations

from accelplane.clouds.aws.verify.live_inventory import UNREADABLE
from accelplane.clouds.aws.verify.live_view.core import (
    ViewCore,
)


class LogsReader(ViewCore):
    """CloudWatch log groups."""

    def _logs(self) -> None:
        for resource in self.declared.of_type("aws:cloudwatch/logGroup:LogGroup"):
            group = self.inv.log_groups.get(str(resource.props.get("name")))
            if group is UNREADABLE:
                self._unreadable([resource], "logs:DescribeLogGroups failed")
            elif group:
                arn = group.get("arn", "").removesuffix(":*")
                tagged = self.inv.tagged if self.inv.tagged is not UNREADABLE else {}
                self._live(
                    resource,
                    resource.type,
                    group["logGroupName"],
                    {
                        "name": group["logGroupName"],
                        "retentionInDays": group.get("retentionInDays"),
                        "kmsKeyId": group.get("kmsKeyId"),
                        "tags": tagged.get(arn, UNREADABLE) if self.inv.tagged is not UNREADABLE else UNREADABLE,
                    },
                    {"arn": arn},
                )
