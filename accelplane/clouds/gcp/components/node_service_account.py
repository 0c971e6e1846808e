"""`NodeServiceAccount`: a dedicated service account for GKE nodes, with only what nodes need.

Never the Compute Engine default service account (it holds Editor on the project in many
organisations). Google's hardening guide, "Use least privilege IAM service accounts"
(https://cloud.google.com/kubernetes-engine/docs/how-to/hardening-your-cluster#use_least_privilege_sa),
names one role for nodes: `roles/container.defaultNodeServiceAccount` (Kubernetes Engine Default
Node Service Account: write logs and metrics, read the cluster's own resources). Workloads never
run as this account: Workload Identity (`GKE_METADATA`) hides it from pods. Pulling images from a
private Artifact Registry repository additionally needs `roles/artifactregistry.reader` on that
repository (not the project); the composition adds it where a stack declares one. No keys are
ever created for this account.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pulumi
import pulumi_gcp.projects as projects
import pulumi_gcp.serviceaccount as serviceaccount

NODE_ROLE = "roles/container.defaultNodeServiceAccount"
# IAM's rule for service account ids: 6-30 characters, a lowercase letter first, no trailing dash.
_ACCOUNT_ID = re.compile(r"[a-z][a-z0-9-]{4,28}[a-z0-9]")


@dataclass(frozen=True)
class NodeServiceAccountArgs:
    account_id: str
    project: str
    display_name: str = "GKE nodes (accelplane)"

    def __post_init__(self) -> None:
        if not _ACCOUNT_ID.fullmatch(self.account_id):
            raise ValueError(
                f"service account id {self.account_id!r}: 6-30 characters, lowercase letters, digits and '-', "
                "starting with a letter and not ending with '-'"
            )


class NodeServiceAccount(pulumi.ComponentResource):
    email: pulumi.Output[str]
    member: pulumi.Output[str]

    def __init__(self, name: str, args: NodeServiceAccountArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:gcp:NodeServiceAccount", name, None, opts)
        account = serviceaccount.Account(
            f"{name}-account",
            account_id=args.account_id,
            project=args.project,
            display_name=args.display_name,
            description="Identity of the platform's GKE nodes; holds only roles/container.defaultNodeServiceAccount",
            opts=pulumi.ResourceOptions(parent=self),
        )
        member = pulumi.Output.concat("serviceAccount:", account.email)
        # Granting a role on the project is the only way this role applies: it is the nodes' own
        # identity, not a workload's (workloads get resource-level grants, workload_access.py).
        projects.IAMMember(
            f"{name}-node-role",
            project=args.project,
            role=NODE_ROLE,
            member=member,
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.email = account.email
        self.member = member
        self.register_outputs({"email": account.email})
