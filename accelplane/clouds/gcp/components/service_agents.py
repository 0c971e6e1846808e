"""`ServiceAgents`: the project number and the Google service agents the platform's keys serve.

CMEK is used by Google-managed service agents, not by the platform's own accounts: GKE
(`service-<number>@container-engine-robot`), Cloud Storage (`...@gs-project-accounts`) and Secret
Manager (`...@gcp-sa-secretmanager`). Cloud Storage's agent is read from the storage API (which
also creates it), Secret Manager's is created on demand with `projects.ServiceIdentity` (it does
not exist until first used, and a key grant to a missing agent fails), GKE's exists once the
container API is enabled and is derived from the project number.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_gcp.organizations as organizations
import pulumi_gcp.projects as projects
import pulumi_gcp.storage as storage


@dataclass(frozen=True)
class ServiceAgentsArgs:
    project: str


class ServiceAgents(pulumi.ComponentResource):
    project_number: pulumi.Output[str]
    gke_member: pulumi.Output[str]
    storage_member: pulumi.Output[str]
    secret_manager_member: pulumi.Output[str]

    def __init__(self, name: str, args: ServiceAgentsArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:gcp:ServiceAgents", name, None, opts)
        invoke = pulumi.InvokeOutputOptions(parent=self)
        project = organizations.get_project_output(project_id=args.project, opts=invoke)
        self.project_number = project.number.apply(lambda number: str(number or ""))
        self.gke_member = pulumi.Output.concat(
            "serviceAccount:service-", self.project_number, "@container-engine-robot.iam.gserviceaccount.com"
        )
        gcs = storage.get_project_service_account_output(project=args.project, opts=invoke)
        self.storage_member = gcs.email_address.apply(lambda email: f"serviceAccount:{email}")
        secret_manager = projects.ServiceIdentity(
            f"{name}-secretmanager",
            project=args.project,
            service="secretmanager.googleapis.com",
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.secret_manager_member = secret_manager.email.apply(lambda email: f"serviceAccount:{email}")
        self.register_outputs({"projectNumber": self.project_number})
