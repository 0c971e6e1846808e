"""`WorkloadAccess`: what one workload's Kubernetes service account may read and write, and nothing else.

The principal is the service account's Workload Identity Federation for GKE identity, used
directly (no Google service account to impersonate, so no key can exist for it):
`principal://iam.googleapis.com/projects/<project number>/locations/global/workloadIdentityPools/
<project>.svc.id.goog/subject/ns/<namespace>/sa/<service account>`
(https://cloud.google.com/kubernetes-engine/docs/how-to/workload-identity#authenticating_to).

Grants are on the exact bucket and the exact secrets: no project-level grant, no primitive role.
- Buckets: `read` -> roles/storage.objectViewer, `read_write` -> roles/storage.objectUser,
  `write` -> roles/storage.objectCreator. With a declared prefix the grant carries an IAM
  condition: objects whose name starts with the prefix, and listing only with that prefix
  (`storage.googleapis.com/objectListPrefix`, the list request's prefix: listing is checked on the
  bucket, which no object-name condition matches). Conditions need uniform bucket-level access,
  which every SecureBucket has.
- The data key is not granted: Cloud Storage decrypts with its own service agent.
- Secrets: roles/secretmanager.secretAccessor on each listed secret.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_gcp.secretmanager as secretmanager
import pulumi_gcp.storage as storage
from pulumi_gcp.storage import BucketIAMMemberConditionArgsDict

BUCKET_ROLES = {
    "read": "roles/storage.objectViewer",
    "read_write": "roles/storage.objectUser",
    "write": "roles/storage.objectCreator",
}
SECRET_ROLE = "roles/secretmanager.secretAccessor"


@dataclass(frozen=True)
class BucketGrant:
    key: str  # a stable name part for the binding, e.g. the bucket role ("checkpoints")
    bucket_name: pulumi.Input[str]
    access: str  # read | read_write | write
    prefix: str = ""  # empty: the whole bucket

    def __post_init__(self) -> None:
        if self.access not in BUCKET_ROLES:
            raise ValueError(f"bucket grant {self.key}: access {self.access!r} is not one of {', '.join(BUCKET_ROLES)}")
        # CEL string literal: a quote or backslash in a prefix would end or escape it.
        if any(char in self.prefix for char in "\"\\"):
            raise ValueError(f"bucket grant {self.key}: prefix {self.prefix!r} must not contain quotes or backslashes")


@dataclass(frozen=True)
class WorkloadAccessArgs:
    project: str
    project_number: pulumi.Input[str]
    namespace: str
    service_account: str  # the Kubernetes service account's name
    buckets: Sequence[BucketGrant]
    secret_ids: Mapping[str, pulumi.Input[str]]  # declared name -> projects/<project>/secrets/<id>


def workload_principal(
    project: str, project_number: pulumi.Input[str], namespace: str, service_account: str
) -> pulumi.Output[str]:
    return pulumi.Output.concat(
        "principal://iam.googleapis.com/projects/",
        project_number,
        f"/locations/global/workloadIdentityPools/{project}.svc.id.goog/subject/ns/{namespace}/sa/{service_account}",
    )


def prefix_condition(bucket_name: pulumi.Input[str], prefix: str) -> BucketIAMMemberConditionArgsDict:
    objects = pulumi.Output.concat('resource.name.startsWith("projects/_/buckets/', bucket_name, f'/objects/{prefix}")')
    listing = f'api.getAttribute("storage.googleapis.com/objectListPrefix", "").startsWith("{prefix}")'
    return {
        "title": f"prefix {prefix}"[:100],
        "description": f"Objects under {prefix} only, and listing with that prefix",
        "expression": pulumi.Output.concat(objects, " || ", listing),
    }


class WorkloadAccess(pulumi.ComponentResource):
    principal: pulumi.Output[str]

    def __init__(self, name: str, args: WorkloadAccessArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:gcp:WorkloadAccess", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        principal = workload_principal(args.project, args.project_number, args.namespace, args.service_account)
        for grant in args.buckets:
            storage.BucketIAMMember(
                f"{name}-{grant.key}",
                bucket=grant.bucket_name,
                role=BUCKET_ROLES[grant.access],
                member=principal,
                condition=prefix_condition(grant.bucket_name, grant.prefix) if grant.prefix else None,
                opts=child,
            )
        for secret_name, secret_id in args.secret_ids.items():
            secretmanager.SecretIamMember(
                f"{name}-secret-{secret_name}",
                secret_id=secret_id,
                role=SECRET_ROLE,
                member=principal,
                opts=child,
            )
        self.principal = principal
        self.register_outputs({"principal": principal})
