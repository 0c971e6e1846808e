"""AP-SEC-001: no secret material in launch template or instance user data.

User data is readable by every process on the node through IMDS and by anyone with
ec2:DescribeInstanceAttribute; it is not a secret store. A user data value that is itself a Pulumi
secret is reported too: marking it secret hides it in the state, not on the node.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.secrets.patterns import secrets_in
from accelplane.rules.view import SECRET_PLACEHOLDER, Resource, as_str


def _decoded(value: str) -> str:
    try:
        return base64.b64decode(value, validate=True).decode("utf-8", errors="replace")
    except (binascii.Error, ValueError):
        return value


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for key in ("userData", "userDataBase64"):
        value = as_str(resource.get(key))
        if not value:
            continue
        if value == SECRET_PLACEHOLDER:
            yield f"{key} is a Pulumi secret: secret material in user data is readable on the node"
            continue
        text = _decoded(value) if resource.type == t.LAUNCH_TEMPLATE or key == "userDataBase64" else value
        for what in secrets_in(text):
            yield f"{key} holds {what}"


RULE = Rule(
    id="AP-SEC-001",
    name="no-secrets-in-user-data",
    description="Checks whether launch template or instance user data contains secret material.",
    family=Family.secrets,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Read secrets at boot from Secrets Manager with the node's role, or mount them into pods.",
    resource_types=frozenset({t.LAUNCH_TEMPLATE, t.INSTANCE}),
    check=check,
    categories=("secrets",),
)
