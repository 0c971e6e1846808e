"""`IapAccess`: who may pass the Identity-Aware Proxy in front of the endpoint's backends.

IAP lets a request through when its ID token names a principal holding IAP-secured Web App User
(`roles/iap.httpsResourceAccessor`) on the backend service or above
(https://cloud.google.com/iap/docs/managing-access). GKE's Gateway controller names the backend services
itself (`gkegw1-...`, known only once it has built them), so the grant is on the project's IAP web
resource: every IAP-protected backend of the project, which in an accelplane project are this
endpoint's. Service accounts are `serviceAccount:` members, other addresses `user:`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_gcp.iap as iap

IAP_ACCESSOR_ROLE = "roles/iap.httpsResourceAccessor"
SERVICE_ACCOUNT_DOMAIN = ".gserviceaccount.com"


def iam_member(email: str) -> str:
    kind = "serviceAccount" if email.endswith(SERVICE_ACCOUNT_DOMAIN) else "user"
    return f"{kind}:{email}"


@dataclass(frozen=True)
class IapAccessArgs:
    project: str
    callers: Sequence[str]  # e-mail addresses (the ID tokens' `email` claim)


class IapAccess(pulumi.ComponentResource):
    def __init__(self, name: str, args: IapAccessArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:gcp:IapAccess", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        for email in args.callers:
            iap.WebIamMember(
                f"{name}-{email.split('@')[0]}",
                project=args.project,
                role=IAP_ACCESSOR_ROLE,
                member=iam_member(email),
                opts=child,
            )
        self.register_outputs({})
