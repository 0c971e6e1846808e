"""IAM roles with their trust, inline and attached policies, and the OIDC provider."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelplane.clouds.aws.verify.live_inventory import UNREADABLE, tags_of
from accelplane.clouds.aws.verify.live_view.core import (
    PLATFORM_TAG,
    ViewCore,
)
from accelplane.clouds.aws.verify.live_view.wire import (
    json_text,
)
from accelplane.rules.view import Resource
from accelplane.verify.canonical import canonical, symbol


class IamReader(ViewCore):
    """IAM roles with their trust, inline and attached policies, and the OIDC provider."""

    def _iam(self) -> None:
        roles_declared = self.declared.of_type("aws:iam/role:Role")
        inline = self.declared.of_type("aws:iam/rolePolicy:RolePolicy")
        attachments = self.declared.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")
        roles = self.inv.roles
        if roles is UNREADABLE:
            self._unreadable([*roles_declared, *inline, *attachments], "iam:GetAccountAuthorizationDetails failed")
            return
        claimed: dict[str, Resource] = {}
        for resource in roles_declared:
            name = resource.props.get("name")
            candidates = [n for n in roles if (n == name if name else self._autonamed(resource.name, n))]
            candidates.sort(key=lambda n: (tags_of(roles[n].get("Tags")).get(PLATFORM_TAG) != self.platform.name, n))
            if not candidates:
                continue
            role = roles[candidates[0]]
            claimed[role["RoleName"]] = resource
            self._live(
                resource,
                resource.type,
                role["RoleName"],
                self._role_props(role),
                {"arn": role["Arn"], "name": role["RoleName"], "uniqueId": role.get("RoleId")},
                raw=role,
            )
        for name, role in roles.items():
            if name not in claimed and tags_of(role.get("Tags")).get(PLATFORM_TAG) == self.platform.name:
                self._unexpected(
                    self._live(
                        None, "aws:iam/role:Role", name, self._role_props(role), {"arn": role["Arn"], "name": name}
                    ),
                    "a role tagged with the platform that the declaration does not have",
                )
        for role_name, declared_role in claimed.items():
            role = roles[role_name]
            self._inline_policies(role, declared_role, inline)
            self._attachments(role, declared_role, attachments)

    @staticmethod
    def _role_props(role: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "name": role["RoleName"],
            "path": role.get("Path"),
            "assumeRolePolicy": json_text(role.get("AssumeRolePolicyDocument")),
            "maxSessionDuration": role.get("MaxSessionDuration"),
            "description": role.get("Description"),
            "permissionsBoundary": (role.get("PermissionsBoundary") or {}).get("PermissionsBoundaryArn"),
            "tags": tags_of(role.get("Tags")),
        }

    def _of_role(self, declared: list[Resource], role: Resource) -> list[Resource]:
        sym = symbol(role.name)
        return [r for r in declared if self.symbols.symbol_of(r.props.get("role")) == sym]

    def _inline_policies(self, role: Mapping[str, Any], declared_role: Resource, inline: list[Resource]) -> None:
        live = {p["PolicyName"]: p for p in role.get("RolePolicyList") or []}
        mine = self._of_role(inline, declared_role)
        pairs: list[tuple[Resource, str]] = []
        for resource in list(mine):
            name = resource.props.get("name")
            found = next((n for n in live if (n == name if name else self._autonamed(resource.name, n))), None)
            if found is not None:
                pairs.append((resource, found))
                mine.remove(resource)
                live_name = found
                live.pop(live_name)
        if len(mine) == 1 and len(live) == 1:  # one each left: a renamed policy is still that policy
            pairs.append((mine.pop(), next(iter(live))))
            live.clear()
        for resource, name in pairs:
            document = next(p for p in role["RolePolicyList"] if p["PolicyName"] == name)["PolicyDocument"]
            self._live(
                resource,
                resource.type,
                f"{role['RoleName']}:{name}",
                {"role": role["RoleName"], "name": name, "policy": json_text(document)},
            )
        for name, policy in live.items():
            self._unexpected(
                self._live(
                    None,
                    "aws:iam/rolePolicy:RolePolicy",
                    f"{role['RoleName']}:{name}",
                    {"role": role["RoleName"], "name": name, "policy": json_text(policy["PolicyDocument"])},
                ),
                f"an inline policy of {declared_role.name} that the declaration does not have",
            )

    def _attachments(self, role: Mapping[str, Any], declared_role: Resource, attachments: list[Resource]) -> None:
        live = {p["PolicyArn"] for p in role.get("AttachedManagedPolicies") or []}
        for resource in self._of_role(attachments, declared_role):
            wanted = canonical(resource.props.get("policyArn"), self.symbols)
            found = next((arn for arn in live if canonical(arn, self.symbols) == wanted), None)
            if found is not None:
                live.discard(found)
                self._live(
                    resource,
                    resource.type,
                    f"{role['RoleName']}/{found}",
                    {"role": role["RoleName"], "policyArn": found},
                )
        for arn in sorted(live):
            self._unexpected(
                self._live(
                    None,
                    "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
                    f"{role['RoleName']}/{arn}",
                    {"role": role["RoleName"], "policyArn": arn},
                ),
                f"a managed policy attached to {declared_role.name} that the declaration does not attach",
            )

    def _oidc(self) -> None:
        declared = self.declared.of_type("aws:iam/openIdConnectProvider:OpenIdConnectProvider")
        if self.inv.oidc_providers is UNREADABLE:
            self._unreadable(declared, "the cluster's OIDC issuer or iam:ListOpenIDConnectProviders could not be read")
            return
        for resource in declared:
            for arn, provider in self.inv.oidc_providers.items():
                url = provider.get("Url", "")
                self._live(
                    resource,
                    resource.type,
                    arn,
                    {
                        "url": url if url.startswith("https://") else f"https://{url}",
                        "clientIdLists": provider.get("ClientIDList"),
                        "thumbprintLists": provider.get("ThumbprintList"),
                        "tags": tags_of(provider.get("Tags")),
                    },
                    {"arn": arn},
                )
                break
