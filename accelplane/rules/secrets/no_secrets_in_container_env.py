"""AP-SEC-002: no secret values written into container environment variables.

A literal `env[].value` lands in the object's spec (readable with `get`), in the Pulumi state and in
`kubectl describe`; secrets come from `valueFrom.secretKeyRef` or a mounted volume.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.kubernetes.pods import containers
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.secrets.patterns import SECRET_NAME, secrets_in
from accelplane.rules.view import SECRET_PLACEHOLDER, Resource, as_list, as_str, get


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for container in containers(resource):
        name = as_str(get(container, "name"), "?")
        for variable in as_list(get(container, "env")):
            key = as_str(get(variable, "name"))
            value = get(variable, "value")
            if value is None or get(variable, "valueFrom") is not None:
                continue
            text = as_str(value)
            if text == SECRET_PLACEHOLDER or (text and SECRET_NAME.search(key) and not text.startswith("$(")):
                yield f"container {name}: env {key} holds a literal secret value"
            elif secrets_in(text):
                yield f"container {name}: env {key} holds {secrets_in(text)[0]}"


RULE = Rule(
    id="AP-SEC-002",
    name="no-secrets-in-container-env",
    description="Checks whether a container sets a secret as a literal environment variable value.",
    family=Family.secrets,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Use env[].valueFrom.secretKeyRef (or a mounted secret volume) instead of value.",
    resource_types=t.K8S_WORKLOAD_TYPES,
    check=check,
    categories=("secrets", "kubernetes"),
)
