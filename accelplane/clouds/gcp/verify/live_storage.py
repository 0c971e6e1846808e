"""Cloud Storage as verify reads it: the declared buckets and every grant on them.

Buckets are matched by name (Pulumi autonames them `<logical>-<hex>`). A bucket carrying the
platform's `accelplane-platform` label that no declaration holds is reported: someone made it
beside the stack. Bucket grants are read from the bucket's IAM policy (version 3, so conditional
grants come with their condition): each declared `BucketIAMMember` is matched to a live
(role, member), preferring one with the same condition, so a prefix-limited grant widened to the
whole bucket reads as drift in `condition`; every other grant on a declared bucket (`allUsers`, a
user holding `roles/storage.admin`) is a grant nobody declared.
"""

from __future__ import annotations

from typing import Any

from accelplane.clouds.gcp.verify.shapes import BUCKET, BUCKET_MEMBER
from accelplane.clouds.gcp.verify.view_builder import ViewBuilder
from accelplane.rules.view import Resource
from accelplane.verify.live import Unexpected

PLATFORM_LABEL = "accelplane-platform"
IAM_POLICY_VERSION = 3  # conditional bindings are returned only when version 3 is asked for


def _condition_key(condition: Any) -> str:
    return str(condition.get("expression", "")) if isinstance(condition, dict) else ""


class StorageReader:
    def __init__(self, builder: ViewBuilder) -> None:
        self.b = builder
        self.clients = builder.clients

    def read(self) -> None:
        if not self.b.declared.of_type(BUCKET):
            return
        buckets_api = self.clients.service("storage").buckets()
        buckets = self.b._read(
            (BUCKET, BUCKET_MEMBER),
            lambda: self.clients.pages(buckets_api, "items", project=self.b.project),
        )
        if buckets is None:
            return
        platforms = {
            (r.props.get("labels") or {}).get(PLATFORM_LABEL) for r in self.b.declared.of_type(BUCKET)
        } - {None}
        matched = self.b._match_all(
            BUCKET,
            buckets,
            owned_by=lambda item: (item.get("labels") or {}).get(PLATFORM_LABEL) in platforms,
            live_id=lambda item: str(item.get("name")),
        )
        for item in sorted(matched.values(), key=lambda item: str(item.get("name"))):
            name = str(item.get("name"))
            policy = self.b._read(
                (BUCKET_MEMBER,),
                lambda name=name: self.clients.read(
                    buckets_api.getIamPolicy(bucket=name, optionsRequestedPolicyVersion=IAM_POLICY_VERSION)
                ),
            )
            if policy is not None:
                self._grants(name, policy)

    def _same(self, declared: Any, live: Any) -> bool:
        apply = self.b.view.symbols.apply
        return isinstance(declared, str) and isinstance(live, str) and apply(declared) == apply(live)

    def _grants(self, bucket: str, policy: dict) -> None:
        live = [
            (binding.get("role"), member, binding.get("condition"))
            for binding in policy.get("bindings") or []
            for member in binding.get("members") or []
        ]
        declared = [r for r in self.b.declared.of_type(BUCKET_MEMBER) if self._same(r.props.get("bucket"), bucket)]
        taken: set[int] = set()
        # Two passes: a grant with its own condition first, so a second, unconditional copy of the
        # same (role, member) is the extra one, not the declared one.
        for exact in (True, False):
            for resource in declared:
                if resource.urn in self.b.view.matched:
                    continue
                index = self._find(resource, live, taken, exact=exact)
                if index is not None:
                    taken.add(index)
                    self._grant(resource, bucket, *live[index])
        for index, (role, member, condition) in enumerate(live):
            if index not in taken:
                extra = self._grant(None, bucket, role, member, condition)
                self.b.view.unexpected.append(Unexpected(extra, f"a grant nobody declared on bucket {bucket}"))

    def _find(
        self, resource: Resource, live: list[tuple[Any, Any, Any]], taken: set[int], *, exact: bool
    ) -> int | None:
        wanted = self.b.view.symbols.apply(_condition_key(resource.props.get("condition")))
        for index, (role, member, condition) in enumerate(live):
            same_grant = role == resource.props.get("role") and self._same(resource.props.get("member"), member)
            if index in taken or not same_grant:
                continue
            if not exact or self.b.view.symbols.apply(_condition_key(condition)) == wanted:
                return index
        return None

    def _grant(self, declared: Resource | None, bucket: str, role: Any, member: Any, condition: Any) -> Resource:
        item: dict[str, Any] = {"bucket": bucket, "role": role, "member": member, "name": f"{role} {member}"}
        if condition:
            item["condition"] = condition
        return self.b._live(declared, BUCKET_MEMBER, f"{bucket}/{role}/{member}", item)
