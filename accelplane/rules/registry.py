"""The explicit, sorted rule registry (docs/conventions.md 15): every neutral rule is listed here by hand,
and each installed cloud lists its own (`accelplane/clouds/<cloud>/rules/rule_list.py`).

`build_registry` refuses duplicate ids and names and malformed ids, across every cloud's rules; a
meta-test checks that every `RULE` defined under `accelplane/rules/<family>/` or a cloud's `rules/` is
listed. Ids are never reused: a retired rule's id stays retired.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from accelplane.rules.cloud_rules import cloud_rules
from accelplane.rules.cost import cost_near_budget, cost_within_budget, dev_pool_expiry
from accelplane.rules.hygiene import air_gap_sources_in_mirror, prod_stateful_protected
from accelplane.rules.kubernetes import (
    k8s_accelerator_requests_equal_limits,
    k8s_image_by_digest,
    k8s_inference_probes,
    k8s_no_host_namespaces,
    k8s_no_host_path,
    k8s_no_privileged_containers,
    k8s_one_service_account_per_workload,
    k8s_pod_hardened,
    k8s_workload_fits_quota,
)
from accelplane.rules.matrix import (
    matrix_group_shares_versions,
    matrix_image_cuda_supported_by_driver,
    matrix_profile_compatible,
    matrix_profile_conditional,
)
from accelplane.rules.rollout import (
    rollout_backend_matrix_compatible,
    rollout_baseline_and_canary_declared,
    rollout_weighted_backend_has_replicas,
)
from accelplane.rules.rule import Rule
from accelplane.rules.secrets import no_secrets_in_container_env

RULE_ID = re.compile(r"^AP-[A-Z0-9]{2,4}-\d{3}$")
# Ids of checks that compare two revisions (`accelplane diff`), so no single graph can hold them: they
# are documented rule ids, never registered, and no registered rule may take them.
DIFF_ONLY_IDS = frozenset({"AP-RO-004", "AP-CAP-002"})
RULE_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{2,63}$")


class RegistryError(ValueError):
    """The registry is malformed: a defect in accelplane, caught by the test suite."""


def build_registry(rules: Iterable[Rule]) -> tuple[Rule, ...]:
    by_id: dict[str, Rule] = {}
    names: dict[str, str] = {}
    for rule in rules:
        if not RULE_ID.match(rule.id):
            raise RegistryError(f"rule id {rule.id!r} does not match AP-<FAMILY>-<NNN>")
        if not RULE_NAME.match(rule.name):
            raise RegistryError(f"rule {rule.id}: name {rule.name!r} is not a lower-case slug")
        if rule.id in DIFF_ONLY_IDS:
            raise RegistryError(f"rule id {rule.id} is taken by an `accelplane diff` check")
        if rule.id in by_id:
            raise RegistryError(f"duplicate rule id {rule.id} ({by_id[rule.id].name} and {rule.name})")
        for alias in rule.aliases:
            if not RULE_ID.match(alias) or alias in by_id or alias == rule.id:
                raise RegistryError(f"rule {rule.id}: alias {alias!r} is not a free AP-<FAMILY>-<NNN> id")
        if rule.name in names:
            raise RegistryError(f"duplicate rule name {rule.name} ({names[rule.name]} and {rule.id})")
        if not rule.description.startswith("Checks whether"):
            raise RegistryError(f"rule {rule.id}: description must start with 'Checks whether'")
        if not rule.resource_types:
            raise RegistryError(f"rule {rule.id}: names no resource types")
        by_id[rule.id] = rule
        names[rule.name] = rule.id
    aliases = [alias for rule in by_id.values() for alias in rule.aliases]
    taken = sorted({alias for alias in aliases if alias in by_id or aliases.count(alias) > 1})
    if taken:
        raise RegistryError(f"rule id aliases {', '.join(taken)} are ids or aliases of other rules")
    return tuple(sorted(by_id.values(), key=lambda r: r.id))


RULES: tuple[Rule, ...] = build_registry(
    [
        # Cost
        cost_within_budget.RULE,
        cost_near_budget.RULE,
        dev_pool_expiry.RULE,
        # Secrets and keys
        no_secrets_in_container_env.RULE,
        # Kubernetes
        k8s_no_privileged_containers.RULE,
        k8s_no_host_namespaces.RULE,
        k8s_no_host_path.RULE,
        k8s_accelerator_requests_equal_limits.RULE,
        k8s_image_by_digest.RULE,
        k8s_inference_probes.RULE,
        k8s_one_service_account_per_workload.RULE,
        k8s_workload_fits_quota.RULE,
        k8s_pod_hardened.RULE,
        # Version matrix
        matrix_profile_compatible.RULE,
        matrix_profile_conditional.RULE,
        matrix_group_shares_versions.RULE,
        matrix_image_cuda_supported_by_driver.RULE,
        # Rollout (weighted inference backends across accelerators)
        rollout_backend_matrix_compatible.RULE,
        rollout_weighted_backend_has_replicas.RULE,
        rollout_baseline_and_canary_declared.RULE,
        # Hygiene
        prod_stateful_protected.RULE,
        # Supply chain: air-gapped stacks
        air_gap_sources_in_mirror.RULE,
        # Each installed cloud's own rules (its `accelplane.rules` entry point)
        *cloud_rules(),
    ]
)


def rule_by_id(rule_id: str) -> Rule | None:
    """The rule with this id, or that had it (an alias)."""
    return _BY_ID.get(rule_id)


_BY_ID = {key: rule for rule in RULES for key in (rule.id, *rule.aliases)}
