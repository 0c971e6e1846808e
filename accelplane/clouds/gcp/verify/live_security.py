"""The Google Cloud live view, continued: Cloud KMS, Secret Manager (and its rotation topic), service
accounts and IAM.

Keys and secrets are listed once per key ring and per project; each IAM policy the declaration
grants on (a crypto key, a secret, the project) is read once. A declared grant is live when the
policy holds it (members compared through the same symbols as everything else: the mocks' project
number and the live one name the same thing). What a policy grants beyond the declaration is drift
on a resource the stack creates (an extra accessor on a secret, another role on a key); on the
project, only grants to the service accounts the stack creates are the stack's (more roles than
declared is drift), the organisation's grants to others are counted as information.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from accelplane.clouds.gcp.mocks import FAKE_PROJECT_NUMBER
from accelplane.clouds.gcp.verify import shapes
from accelplane.clouds.gcp.verify.shapes import (
    AUDIT_CONFIG,
    CRYPTO_KEY,
    KEY_BINDING,
    KEY_RING,
    PROJECT_MEMBER,
    SECRET,
    SECRET_MEMBER,
    SERVICE_ACCOUNT,
    SERVICE_ACCOUNT_KEY,
    TOPIC,
    TOPIC_MEMBER,
)
from accelplane.clouds.gcp.verify.view_builder import ViewBuilder
from accelplane.rules.view import Resource
from accelplane.verify.live import Unexpected

PROJECT_NUMBER_SYMBOL = "<project-number>"
AGENT_SYMBOL = "<project-number.service-agent>"


class SecurityReader:
    def __init__(self, builder: ViewBuilder) -> None:
        self.b = builder
        self.clients = builder.clients
        self.project = builder.project
        self.other_project_grants: list[tuple[str, str]] = []  # (role, member) of other principals
        self.project_policy: dict | None = None  # the project's IAM policy, where read (audit configs too)

    def read(self) -> None:
        self._project_number_symbols()
        of_type = self.b.declared.of_type
        if of_type(KEY_RING) or of_type(CRYPTO_KEY):
            self._kms()
        if of_type(SECRET):
            self._secrets()
        if of_type(TOPIC) or of_type(TOPIC_MEMBER):
            self._topics()
        if of_type(SERVICE_ACCOUNT) or of_type(PROJECT_MEMBER) or of_type(AUDIT_CONFIG):
            self._service_accounts_and_project()

    def _project_number_symbols(self) -> None:
        symbols = self.b.view.symbols
        symbols.add(FAKE_PROJECT_NUMBER, PROJECT_NUMBER_SYMBOL)
        symbols.add(f"service-{FAKE_PROJECT_NUMBER}", AGENT_SYMBOL)
        if self.clients.project_number:
            symbols.add(self.clients.project_number, PROJECT_NUMBER_SYMBOL, live=True)
            symbols.add(f"service-{self.clients.project_number}", AGENT_SYMBOL, live=True)

    def _same(self, declared: Any, live: Any) -> bool:
        apply = self.b.view.symbols.apply
        return isinstance(declared, str) and isinstance(live, str) and apply(declared) == apply(live)

    # -- Cloud KMS -------------------------------------------------------------------------

    def _kms(self) -> None:
        kms = self.clients.service("cloudkms").projects().locations().keyRings()
        rings: list[dict] = []
        locations = {str(r.props.get("location")) for r in self.b.declared.of_type(KEY_RING)}
        for location in sorted(locations):
            parent = f"projects/{self.project}/locations/{location}"
            found = self.b._read(
                (KEY_RING, CRYPTO_KEY, KEY_BINDING),
                lambda parent=parent: self.clients.pages(kms, "keyRings", parent=parent),
            )
            if found is None:
                return
            rings += found
        matched = self._by_full_name(
            KEY_RING,
            rings,
            lambda r: f"projects/{self.project}/locations/{r.props.get('location')}/keyRings/{r.props.get('name')}",
        )
        keys: list[dict] = []
        for ring in matched:
            found = self.b._read(
                (CRYPTO_KEY, KEY_BINDING),
                lambda ring=ring: self.clients.pages(kms.cryptoKeys(), "cryptoKeys", parent=ring),
            )
            if found is None:
                return
            keys += found
        matched_keys = self._by_full_name(
            CRYPTO_KEY,
            keys,
            lambda r: f"{r.props.get('keyRing')}/cryptoKeys/{r.props.get('name')}",
            unexpected_in=set(matched),
        )
        for key in sorted(matched_keys):
            policy = self.b._read(
                (KEY_BINDING,), lambda key=key: self.clients.read(kms.cryptoKeys().getIamPolicy(resource=key))
            )
            if policy is not None:
                self._bindings(KEY_BINDING, "cryptoKeyId", key, policy)

    def _by_full_name(
        self, type_token: str, items: list[dict], declared_name: Any, unexpected_in: set[str] | None = None
    ) -> set[str]:
        """Match by the full resource name; names of the matched live items."""
        by_name = {str(item.get("name")): item for item in items}
        matched: set[str] = set()
        for resource in self.b.declared.of_type(type_token):
            name = declared_name(resource)
            item = by_name.get(name)
            if item is not None:
                matched.add(name)
                self.b._live(resource, type_token, name, item)
        if unexpected_in is not None:
            for name, item in sorted(by_name.items()):
                if name not in matched and shapes.parent_of(name) in unexpected_in:
                    live = self.b._live(None, type_token, name, item)
                    self.b.view.unexpected.append(
                        Unexpected(live, f"a {type_token.rsplit(':', 1)[-1]} nobody declared")
                    )
        return matched

    # -- Secret Manager ----------------------------------------------------------------------

    def _secrets(self) -> None:
        secrets = self.clients.service("secretmanager").projects().secrets()
        found = self.b._read(
            (SECRET, SECRET_MEMBER), lambda: self.clients.pages(secrets, "secrets", parent=f"projects/{self.project}")
        )
        if found is None:
            return
        matched = self._by_full_name(
            SECRET, found, lambda r: f"projects/{self.project}/secrets/{r.props.get('secretId')}"
        )
        for name in sorted(matched):
            policy = self.b._read(
                (SECRET_MEMBER,), lambda name=name: self.clients.read(secrets.getIamPolicy(resource=name))
            )
            if policy is not None:
                self._members(SECRET_MEMBER, "secretId", name, policy)

    def _topics(self) -> None:
        """The rotation topic Secret Manager notifies, and its publishers: another member able to publish
        there could fake a rotation notice (an extra grant is drift, as on a secret)."""
        topics = self.clients.service("pubsub").projects().topics()
        found = self.b._read(
            (TOPIC, TOPIC_MEMBER), lambda: self.clients.pages(topics, "topics", project=f"projects/{self.project}")
        )
        if found is None:
            return
        matched = self._by_full_name(TOPIC, found, lambda r: f"projects/{self.project}/topics/{r.props.get('name')}")
        for name in sorted(matched):
            policy = self.b._read(
                (TOPIC_MEMBER,), lambda name=name: self.clients.read(topics.getIamPolicy(resource=name))
            )
            if policy is not None:
                self._members(TOPIC_MEMBER, "topic", name, policy)

    # -- grants ----------------------------------------------------------------------------

    def _declared_grants(self, type_token: str, key: str, target: str) -> list[Resource]:
        return [r for r in self.b.declared.of_type(type_token) if self._same(r.props.get(key), target)]

    def _members(self, type_token: str, key: str, target: str, policy: dict) -> None:
        """Additive grants (one member each): live when the policy holds it; the rest unexpected."""
        live_pairs = _pairs(policy)
        taken = self._match_grants(self._declared_grants(type_token, key, target), type_token, live_pairs, target,
                                   {key: target})
        self._extra_grants(
            type_token, key, target, [pair for index, pair in enumerate(live_pairs) if index not in taken]
        )

    def _bindings(self, type_token: str, key: str, target: str, policy: dict) -> None:
        """Authoritative grants (all members of one role): compared member list to member list."""
        bindings = {b.get("role"): b for b in policy.get("bindings") or []}
        declared_roles = set()
        for resource in self._declared_grants(type_token, key, target):
            role = resource.props.get("role")
            declared_roles.add(role)
            binding = bindings.get(role)
            if binding is not None:
                self.b._live(
                    resource,
                    type_token,
                    f"{target}/{role}",
                    {key: target, "role": role, "members": binding.get("members") or [], "name": role},
                )
        extra = [
            (role, member)
            for role, binding in bindings.items()
            if role not in declared_roles
            for member in binding.get("members") or []
        ]
        self._extra_grants(type_token, key, target, extra)

    def _match_grants(self, declared: list[Resource], type_token: str, pairs: list[tuple[Any, Any]], target: str,
                      props: dict[str, Any]) -> set[int]:
        """Each declared one-member grant matched to a live (role, member) pair; the pairs taken."""
        taken: set[int] = set()
        for resource in declared:
            for index, (role, member) in enumerate(pairs):
                if index not in taken and role == resource.props.get("role") and self._same(
                        resource.props.get("member"), member):
                    taken.add(index)
                    self.b._live(resource, type_token, f"{target}/{role}/{member}",
                                 {**props, "role": role, "member": member, "name": f"{role} {member}"})
                    break
        return taken

    def _extra_grants(self, type_token: str, key: str, target: str, pairs: Iterable[tuple[Any, Any]]) -> None:
        for role, member in pairs:
            props = {key: target, "role": role, "member": member, "name": f"{role} {member}"}
            live = self.b._live(None, type_token, f"{target}/{role}/{member}", props)
            self.b.view.unexpected.append(Unexpected(live, f"a grant nobody declared on {target}"))

    # -- service accounts and the project's IAM policy -----------------------------------------

    def _service_accounts_and_project(self) -> None:
        iam = self.clients.service("iam").projects().serviceAccounts()
        accounts = self.b._read(
            (SERVICE_ACCOUNT,), lambda: self.clients.pages(iam, "accounts", name=f"projects/{self.project}")
        )
        emails: set[str] = set()
        if accounts is not None:
            by_id = {shapes.account_id(item.get("email")): item for item in accounts}
            for resource in self.b.declared.of_type(SERVICE_ACCOUNT):
                item = by_id.get(resource.props.get("accountId"))
                if item is not None:
                    emails.add(str(item.get("email")))
                    self.b._live(resource, SERVICE_ACCOUNT, str(item.get("name") or item.get("email")), item)
                    self._user_managed_keys(resource, item, iam)
        if not (self.b.declared.of_type(PROJECT_MEMBER) or self.b.declared.of_type(AUDIT_CONFIG)):
            return
        projects = self.clients.service("cloudresourcemanager").projects()
        policy = self.b._read(
            (PROJECT_MEMBER, AUDIT_CONFIG),
            lambda: self.clients.read(projects.getIamPolicy(resource=f"projects/{self.project}", body={})),
        )
        if policy is None:
            return
        self.project_policy = policy
        pairs = _pairs(policy)
        taken = self._match_grants(self.b.declared.of_type(PROJECT_MEMBER), PROJECT_MEMBER, pairs, self.project, {})
        ours = {f"serviceAccount:{email}" for email in emails}
        for index, (role, member) in enumerate(pairs):
            if index in taken:
                continue
            if member in ours:
                props = {"role": role, "member": member, "name": f"{role} {member}"}
                live = self.b._live(None, PROJECT_MEMBER, f"{self.project}/{role}/{member}", props)
                self.b.view.unexpected.append(
                    Unexpected(live, "a project role the stack's service account holds beyond the declaration")
                )
            else:
                self.other_project_grants.append((str(role), str(member)))

    def _user_managed_keys(self, account: Resource, item: dict, iam: Any) -> None:
        """Every user-managed key of one of the stack's service accounts is unexpected: the stack
        declares none (AP-GIAM rules refuse one), and a key acts as the account from anywhere, for as
        long as it exists. Google-managed keys (keyTypes SYSTEM_MANAGED) are Google's to rotate."""
        name = str(item.get("name") or f"projects/{self.project}/serviceAccounts/{item.get('email')}")
        answer = self.b._read([], lambda: self.clients.read(iam.keys().list(name=name, keyTypes="USER_MANAGED"),
                                                                     list_field="keys"))
        if answer is None:
            self.b.view.unreadable[account.urn] = "iam.serviceAccounts.keys.list failed: its keys were not read"
            return
        for key in answer.get("keys") or []:
            if key.get("keyType", "USER_MANAGED") != "USER_MANAGED":
                continue
            live = self.b._live(None, SERVICE_ACCOUNT_KEY, str(key.get("name")), key)
            self.b.view.unexpected.append(Unexpected(
                live, f"a user-managed key of service account {item.get('email')}, valid from "
                      f"{key.get('validAfterTime', 'an unknown time')}: the declaration has none"))


def _pairs(policy: dict) -> list[tuple[Any, Any]]:
    """(role, member) for every member of every binding of an IAM policy."""
    return [(b.get("role"), m) for b in policy.get("bindings") or [] for m in b.get("members") or []]
