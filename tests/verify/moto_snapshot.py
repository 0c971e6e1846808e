"""A moto platform built once per test process and handed to each test as a fresh copy.

Creating the dev platform in moto is about 170 API calls through botocore and moto (0.5 to 1 CPU-second);
about 110 verify tests start from it and change it. The first test of a process builds it and keeps a
deep copy of every moto backend that holds state (moto keeps them in `BackendDict._instances`, which
`mock_aws()` resets when a test starts), and of the platform's own record of live ids; each later test
gets its own deep copy of both, written back into the backends moto just reset. Tests stay independent
of their order: each starts from the platform as `create()` left it, never from another test's changes.

Three places of moto 5.2.5 hold state outside the backends, each handled here:
- a security group rule's `__deepcopy__` keeps the backend it was made in (moto/ec2/models/security_groups.py):
  a copied rule would read its tags from a backend the next `mock_aws()` resets, so each copy is pointed at
  its own backend;
- every model instance is appended to its class's `instances_tracked` when made (moto/core/common_models.py),
  and resetting S3 disposes every tracked object (closes its data): the snapshot's own S3 objects are taken
  off those lists, or the first reset after the build would empty them;
- S3 keeps which account holds each bucket on its BackendDict (`s3_backends.bucket_accounts`), beside the
  backends: it is kept with the snapshot and written back.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from moto.core.base_backend import BackendDict
from moto.s3.models import FakeKey, FakeMultipart, s3_backends

from tests.verify.moto_platform import MotoPlatform


@dataclass(frozen=True)
class _Built:
    dicts: list[Any]  # the BackendDicts that held state
    contents: list[dict[str, Any]]  # theirs, copied in one go (references between services stay shared)
    platform: MotoPlatform  # without clients: a test makes its own
    bucket_accounts: dict[str, Any]


_BUILT: dict[str, _Built] = {}


def _platform_copy(platform: MotoPlatform) -> MotoPlatform:
    fresh = copy.copy(platform)
    fresh.tokens = copy.deepcopy(platform.tokens)
    fresh.live_id = dict(platform.live_id)
    fresh.skipped = list(platform.skipped)
    fresh._clients = {}
    return fresh


def _rebind_security_group_rules(backends: Any) -> None:
    for regions in backends.values():
        for backend in regions.values():
            for groups in backend.groups.values():
                for group in groups.values():
                    for rule in [*group.ingress_rules, *group.egress_rules]:
                        rule.ec2_backend = backend


def live_platform(key: str, build: Callable[[], MotoPlatform]) -> MotoPlatform:
    """The platform `build` makes (inside an active `mock_aws()`), built once per process under `key`."""
    built = _BUILT.get(key)
    if built is None:
        platform = build()
        dicts = [backends for backends in BackendDict._instances if len(backends)]
        tracked = {model: len(model.instances_tracked) for model in (FakeKey, FakeMultipart)}
        contents = copy.deepcopy([dict(backends) for backends in dicts])
        for model, before in tracked.items():
            del model.instances_tracked[before:]  # the snapshot's copies: no reset may dispose them
        _BUILT[key] = _Built(dicts, contents, _platform_copy(platform), dict(s3_backends.bucket_accounts))
        return platform
    s3_backends.bucket_accounts.update(built.bucket_accounts)
    for backends, content in zip(built.dicts, copy.deepcopy(built.contents), strict=True):
        backends.clear()
        backends.update(content)
        if backends.service_name == "ec2":
            _rebind_security_group_rules(backends)
        if backends not in BackendDict._instances:
            BackendDict._instances.append(backends)  # so that the next test's mock_aws() resets it
    return _platform_copy(built.platform)
