"""GCP IAM grants as the rules read them, and what a member string names.

pulumi-gcp gives three shapes per resource kind (project, bucket, crypto key, secret, ...):
`…IAMMember` (one `role`, one `member`), `…IAMBinding` (one `role`, `members`) and `…IAMPolicy`
(`policyData`: the JSON policy document, `{"bindings": [{"role", "members", "condition"}]}`). Each
may carry an IAM `condition` (`title`, `expression`, `description`). `grants` reads all three as
`Grant`s, so a rule judges them alike.

Member strings ("IAM principal identifiers", cloud.google.com/iam/docs/principal-identifiers):

- `allUsers`, `allAuthenticatedUsers`, `principalSet://goog/public:all`: anyone (on the internet,
  with a Google identity);
- `serviceAccount:<email>`; GKE Workload Identity's legacy form
  `serviceAccount:<project>.svc.id.goog[<namespace>/<ksa>]`;
- `principal://iam.googleapis.com/projects/<number>/locations/global/workloadIdentityPools/<pool>/subject/<subject>`:
  one identity of a workload identity pool; for GKE (pool `<project>.svc.id.goog`) the subject is
  `ns/<namespace>/sa/<ksa>`;
- `principalSet://iam.googleapis.com/…/workloadIdentityPools/<pool>/…`: a set of a pool's identities
  (a namespace, a cluster, an attribute value, or `*`: the whole pool);
- `user:`, `group:`, `domain:`, the `projectOwner:`/`projectEditor:`/`projectViewer:` convenience
  values, `deleted:` prefixes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.view import Resource, as_list, as_str, get, json_document, known, mapping

PUBLIC_MEMBERS = frozenset({"allUsers", "allAuthenticatedUsers", "principalSet://goog/public:all"})
PRIMITIVE_ROLES = frozenset({"roles/owner", "roles/editor", "roles/viewer"})
GKE_POOL_SUFFIX = ".svc.id.goog"

_POOL = re.compile(
    r"^(?P<kind>principal|principalSet)://iam\.googleapis\.com/projects/(?P<project>[^/]+)/locations/global/"
    r"workloadIdentityPools/(?P<pool>[^/]+)/(?P<rest>.*)$"
)
_DNS_LABEL = r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?"
_DNS_SUBDOMAIN = r"[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?"
_GKE_SUBJECT = re.compile(rf"^subject/ns/{_DNS_LABEL}/sa/{_DNS_SUBDOMAIN}$")
_LEGACY_WORKLOAD = re.compile(r"^serviceAccount:(?P<pool>[^\[]+\.svc\.id\.goog)\[(?P<subject>[^\]]*)\]$")
_LEGACY_SUBJECT = re.compile(rf"^{_DNS_LABEL}/{_DNS_SUBDOMAIN}$")
_DEFAULT_COMPUTE_SA = re.compile(r"^\d+-compute@developer\.gserviceaccount\.com$")


@dataclass(frozen=True)
class Grant:
    """One role granted to members, with its IAM condition (None: unconditional)."""

    role: str
    members: tuple[str, ...]
    condition: Mapping[str, Any] | None
    where: str  # "" for a member or binding resource; "policyData bindings[i]" for a policy

    def at(self, text: str) -> str:
        return f"{self.where}: {text}" if self.where else text

    @property
    def expression(self) -> str:
        return as_str(self.condition.get("expression")) if self.condition else ""


def _condition(value: Any) -> Mapping[str, Any] | None:
    found = mapping(value)
    return found or None


def grants(resource: Resource) -> list[Grant]:
    """Every grant an IAM member, binding or policy resource makes."""
    if resource.type in t.GCP_IAM_MEMBER_TYPES:
        return [Grant(as_str(resource.get("role")), (as_str(resource.get("member")),),
                      _condition(resource.get("condition")), "")]
    if resource.type in t.GCP_IAM_BINDING_TYPES:
        return [Grant(as_str(resource.get("role")), tuple(as_str(m) for m in as_list(resource.get("members"))),
                      _condition(resource.get("condition")), "")]
    if resource.type in t.GCP_IAM_POLICY_TYPES:
        document = json_document(resource.get("policyData"))
        if document is None:
            return []
        found = []
        for index, binding in enumerate(as_list(document.get("bindings"))):
            binding = mapping(binding)
            found.append(Grant(as_str(get(binding, "role")),
                               tuple(as_str(m) for m in as_list(binding.get("members"))),
                               _condition(binding.get("condition")), f"policyData bindings[{index}]"))
        return found
    return []


def _bare(member: str) -> str:
    """`member` without a `deleted:` prefix and `?uid=` suffix."""
    member = known(member)
    if member.startswith("deleted:"):
        member = member.removeprefix("deleted:").split("?uid=", 1)[0]
    return member


def is_public(member: str) -> bool:
    return _bare(member) in PUBLIC_MEMBERS


def is_workload_identity(member: str) -> bool:
    """A workload identity pool's principal or principal set (GKE Workload Identity included)."""
    member = _bare(member)
    return bool(_POOL.match(member) or _LEGACY_WORKLOAD.match(member))


def is_service_account(member: str) -> bool:
    member = _bare(member)
    return member.startswith("serviceAccount:") and not _LEGACY_WORKLOAD.match(member)


def is_workload_principal(member: str) -> bool:
    """What a workload acts as: a workload identity or a Google service account."""
    return is_workload_identity(member) or is_service_account(member)


def workload_identity_problem(member: str) -> str | None:
    """Why a workload identity member names more than one Kubernetes service account (None: it names one)."""
    member = _bare(member)
    legacy = _LEGACY_WORKLOAD.match(member)
    if legacy:
        if not _LEGACY_SUBJECT.match(legacy.group("subject")):
            return f"{member} does not name one <namespace>/<service account>"
        return None
    pool = _POOL.match(member)
    if pool is None:
        return None
    if pool.group("kind") == "principalSet":
        rest = pool.group("rest")
        scope = "every identity of the pool" if rest in ("*", "") else f"the principal set {rest!r}"
        return f"{member} grants {scope}: name one principal://…/subject/ns/<namespace>/sa/<service account>"
    if pool.group("pool").endswith(GKE_POOL_SUFFIX) and not _GKE_SUBJECT.match(pool.group("rest")):
        return f"{member} does not name one subject/ns/<namespace>/sa/<service account>"
    return None


def is_default_compute_service_account(email: str) -> bool:
    """`<project number>-compute@developer.gserviceaccount.com`, or `default` (what GKE reads as it)."""
    email = known(email).removeprefix("serviceAccount:")
    return email == "default" or bool(_DEFAULT_COMPUTE_SA.match(email))


def public_grants(resource: Resource) -> Iterator[str]:
    """One message per public member of `resource`'s grants."""
    for grant in grants(resource):
        for member in grant.members:
            if is_public(member):
                yield grant.at(f"grants {grant.role or 'a role'} to {member}: anyone can use it")
