"""CloudTrail trails, found by their declared (deterministic) names."""

from __future__ import annotations

from typing import Any

from accelplane.clouds.aws.verify.live_inventory import UNREADABLE
from accelplane.clouds.aws.verify.live_view.core import ViewCore
from accelplane.clouds.aws.verify.live_view.wire import wire

TRAIL = "aws:cloudtrail/trail:Trail"

# The API's field selector operators as the provider's inputs spell them (plural list names).
_SELECTOR_RENAMES = {
    "StartsWith": "startsWiths",
    "EndsWith": "endsWiths",
    "NotStartsWith": "notStartsWiths",
    "NotEndsWith": "notEndsWiths",
}


class CloudTrailReader(ViewCore):
    """A trail's settings (GetTrail), event selectors (GetEventSelectors), tags (ListTags) and whether it
    is logging (GetTrailStatus, kept as the trail's raw state for the `live.trail-logging` check)."""

    def _trails(self) -> None:
        for resource in self.declared.of_type(TRAIL):
            name = resource.props.get("name")
            read = self.inv.trails.get(name) if isinstance(name, str) else None
            if read is UNREADABLE:
                self._unreadable([resource], "cloudtrail:GetTrail failed")
                continue
            if not read:
                continue  # not found: missing
            trail, status, selectors = read["trail"], read["status"], read["selectors"]
            props: dict[str, Any] = {
                "name": trail["Name"],
                "s3BucketName": trail.get("S3BucketName"),
                "s3KeyPrefix": trail.get("S3KeyPrefix"),
                "isMultiRegionTrail": trail.get("IsMultiRegionTrail"),
                "includeGlobalServiceEvents": trail.get("IncludeGlobalServiceEvents"),
                "enableLogFileValidation": trail.get("LogFileValidationEnabled"),
                "isOrganizationTrail": trail.get("IsOrganizationTrail"),
                "kmsKeyId": trail.get("KmsKeyId"),
                "snsTopicName": trail.get("SnsTopicName"),
                "cloudWatchLogsGroupArn": trail.get("CloudWatchLogsLogGroupArn"),
                "enableLogging": status.get("IsLogging") if status else UNREADABLE,
                "advancedEventSelectors": (
                    wire(selectors.get("AdvancedEventSelectors") or [], resource.props.get("advancedEventSelectors"),
                         renames=_SELECTOR_RENAMES)
                    if selectors else UNREADABLE
                ),
                "tags": read["tags"],
            }
            self._live(resource, resource.type, trail["TrailARN"], props,
                       {"arn": trail["TrailARN"], "name": trail["Name"]}, raw=read)
