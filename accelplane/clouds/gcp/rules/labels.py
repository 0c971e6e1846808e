"""GCP labels as the rules read them: the platform's label keys and a resource's labels.

GCP label keys allow only lower-case letters, digits, `_` and `-` (no `:`, `.` or `/`), so the
facts the AWS layer writes as tags (`accelplane:environment`, `accelplane.io/bucket-role`) are
labels with dashes here. A GKE cluster's labels are `resourceLabels` (GKE copies them onto the
nodes and disks it creates); every other labelled resource uses `labels`.

pulumi-gcp 10.x also reports `effectiveLabels` (the resource's labels plus the provider's
`defaultLabels`) and `pulumiLabels`. A key missing from the declared labels may still come from
the provider's defaults: when those are not known yet (a preview), the key cannot be judged and
`label` raises `UnknownValue` instead of calling it absent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.graph import ENVIRONMENT_LABEL
from accelplane.rules.view import Resource, UnknownValue, is_unknown, known

PLATFORM_LABEL = "accelplane-platform"
OWNER_LABEL = "owner"
COST_CENTRE_LABEL = "cost-centre"
BUCKET_ROLE_LABEL = "bucket-role"  # what accelplane/clouds/gcp/components/bucket.py writes (ROLE_LABEL)
REQUIRED_LABELS = (OWNER_LABEL, COST_CENTRE_LABEL, PLATFORM_LABEL, ENVIRONMENT_LABEL)
_COMPUTED = ("effectiveLabels", "pulumiLabels")


def labels_prop(resource: Resource) -> str:
    return "resourceLabels" if resource.type == t.GKE_CLUSTER else "labels"


def label(resource: Resource, key: str) -> str | None:
    """The value of label `key` (declared, else from the provider's default labels); None when absent."""
    declared = resource.get(labels_prop(resource))
    if isinstance(declared, Mapping) and key in declared:
        value = known(declared[key])
        return value if isinstance(value, str) else None
    for prop in _COMPUTED:
        computed: Any = resource.props.get(prop)
        if is_unknown(computed):
            raise UnknownValue(f"{prop} is not known until the resource is created")
        if isinstance(computed, Mapping) and key in computed:
            value = known(computed[key])
            return value if isinstance(value, str) else None
    return None
