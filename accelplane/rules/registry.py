"""The explicit, sorted rule registry (docs/conventions.md 15): every rule is listed here by hand.

`build_registry` refuses duplicate ids and names and malformed ids; a meta-test checks that every
`RULE` defined under `accelplane/rules/<family>/` is listed. Ids are never reused: a retired rule's
id stays retired.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from accelplane.rules.cluster import (
    control_plane_logs,
    endpoint_restricted,
    gke_authorized_networks,
    gke_control_plane_logs,
    gke_legacy_authorization_off,
    gke_legacy_metadata_disabled,
    gke_metadata_server,
    gke_node_service_account,
    gke_private_nodes,
    gke_secrets_encryption,
    gke_shielded_nodes,
    gke_workload_identity,
    secrets_encryption,
)
from accelplane.rules.compute import (
    encrypted_volumes,
    imds_hop_limit,
    imdsv2_required,
    no_public_ip_on_accelerator_nodes,
    tpu_multi_host_compact_placement,
    tpu_slice_node_count,
    tpu_topology_matches_machine_type,
)
from accelplane.rules.hygiene import (
    air_gap_sources,
    gcp_required_labels,
    log_retention,
    protect_stateful_in_prod,
    required_tags,
)
from accelplane.rules.iam import (
    gcp_no_primitive_roles,
    gcp_no_project_grants_to_workloads,
    gcp_no_public_members,
    gcp_no_service_account_keys,
    gcp_workload_identity_one_service_account,
    known_actions,
    no_access_keys,
    no_admin_managed_policy,
    no_not_action_allow,
    no_privilege_escalation,
    no_service_wildcard_on_any_resource,
    no_users,
    no_wildcard_action,
    node_role_managed_policies,
    pass_role_scoped,
    role_escalation_combined,
    trust_no_wildcard_principal,
    workload_trust_one_service_account,
)
from accelplane.rules.kubernetes import (
    accelerator_requests_equal_limits,
    image_digest,
    inference_probes,
    no_host_namespaces,
    no_host_path,
    no_privileged,
    one_service_account_per_workload,
)
from accelplane.rules.load_balancer import (
    drop_invalid_headers,
    gcp_backend_service_cloud_armor,
    gcp_cloud_armor_default_deny,
    gcp_ssl_policy_tls12,
    gke_gateway_cloud_armor,
    gke_gateway_ssl_policy,
    http_redirect_only,
    https_tls12,
)
from accelplane.rules.matrix import (
    group_consistent,
    image_cuda_supported,
    pool_pinned,
    profile_compatible,
    profile_conditional,
)
from accelplane.rules.network import (
    efa_group_only_efa_nodes,
    efa_self_referencing,
    gcp_firewall_no_ssh_rdp_from_anywhere,
    gcp_firewall_no_world_ingress,
    no_ssh_rdp_from_anywhere,
    no_world_ingress,
)
from accelplane.rules.rollout import (
    backend_matrix_compatible,
    baseline_and_canary_declared,
    weighted_backend_has_replicas,
)
from accelplane.rules.rule import Rule
from accelplane.rules.secrets import (
    gcp_kms_no_public_members,
    gcp_kms_rotation,
    gcp_secret_customer_key,
    gcp_secret_named_readers,
    kms_no_wildcard_principal,
    kms_rotation,
    no_secrets_in_container_env,
    no_secrets_in_user_data,
    secret_customer_key,
    secret_named_readers,
)
from accelplane.rules.storage import (
    acls_disabled,
    bucket_has_public_access_block,
    checkpoint_lifecycle,
    checkpoint_versioning,
    deny_insecure_transport,
    gcs_checkpoint_versioning,
    gcs_customer_managed_key,
    gcs_no_force_destroy_in_prod,
    gcs_no_public_members,
    gcs_public_access_prevention,
    gcs_uniform_bucket_level_access,
    gcs_workload_prefix_condition,
    gcs_workload_whole_bucket,
    no_force_destroy_in_prod,
    no_public_acl,
    no_public_policy,
    public_access_block_flags,
    sse_kms_customer_key,
    workload_prefix_scoped,
)

RULE_ID = re.compile(r"^AP-[A-Z0-9]{2,4}-\d{3}$")
# Ids of checks that compare two revisions (`accelplane diff`), so no single graph can hold them: they
# are documented rule ids, never registered, and no registered rule may take them.
DIFF_ONLY_IDS = frozenset({"AP-RO-004"})
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
        if rule.name in names:
            raise RegistryError(f"duplicate rule name {rule.name} ({names[rule.name]} and {rule.id})")
        if not rule.description.startswith("Checks whether"):
            raise RegistryError(f"rule {rule.id}: description must start with 'Checks whether'")
        if not rule.resource_types:
            raise RegistryError(f"rule {rule.id}: names no resource types")
        by_id[rule.id] = rule
        names[rule.name] = rule.id
    return tuple(sorted(by_id.values(), key=lambda r: r.id))


RULES: tuple[Rule, ...] = build_registry(
    [
        # IAM
        no_wildcard_action.RULE,
        no_service_wildcard_on_any_resource.RULE,
        no_privilege_escalation.RULE,
        pass_role_scoped.RULE,
        trust_no_wildcard_principal.RULE,
        workload_trust_one_service_account.RULE,
        node_role_managed_policies.RULE,
        no_users.RULE,
        no_access_keys.RULE,
        no_admin_managed_policy.RULE,
        no_not_action_allow.RULE,
        known_actions.RULE,
        role_escalation_combined.RULE,
        # IAM: Google Cloud
        gcp_no_primitive_roles.RULE,
        gcp_no_public_members.RULE,
        gcp_no_project_grants_to_workloads.RULE,
        gcp_no_service_account_keys.RULE,
        gcp_workload_identity_one_service_account.RULE,
        # Storage
        public_access_block_flags.RULE,
        bucket_has_public_access_block.RULE,
        sse_kms_customer_key.RULE,
        deny_insecure_transport.RULE,
        checkpoint_versioning.RULE,
        checkpoint_lifecycle.RULE,
        workload_prefix_scoped.RULE,
        no_public_acl.RULE,
        acls_disabled.RULE,
        no_public_policy.RULE,
        no_force_destroy_in_prod.RULE,
        # Storage: Cloud Storage
        gcs_uniform_bucket_level_access.RULE,
        gcs_public_access_prevention.RULE,
        gcs_customer_managed_key.RULE,
        gcs_checkpoint_versioning.RULE,
        gcs_no_force_destroy_in_prod.RULE,
        gcs_no_public_members.RULE,
        gcs_workload_prefix_condition.RULE,
        gcs_workload_whole_bucket.RULE,
        # Secrets and keys
        kms_rotation.RULE,
        kms_no_wildcard_principal.RULE,
        secret_customer_key.RULE,
        secret_named_readers.RULE,
        no_secrets_in_user_data.RULE,
        no_secrets_in_container_env.RULE,
        # Secrets and keys: Cloud KMS, Secret Manager
        gcp_kms_rotation.RULE,
        gcp_kms_no_public_members.RULE,
        gcp_secret_customer_key.RULE,
        gcp_secret_named_readers.RULE,
        # Network and compute
        no_world_ingress.RULE,
        no_ssh_rdp_from_anywhere.RULE,
        efa_self_referencing.RULE,
        efa_group_only_efa_nodes.RULE,
        imdsv2_required.RULE,
        imds_hop_limit.RULE,
        encrypted_volumes.RULE,
        no_public_ip_on_accelerator_nodes.RULE,
        endpoint_restricted.RULE,
        secrets_encryption.RULE,
        control_plane_logs.RULE,
        # Network, compute and cluster: Google Cloud (VPC firewall, TPU slices, GKE)
        gcp_firewall_no_ssh_rdp_from_anywhere.RULE,
        gcp_firewall_no_world_ingress.RULE,
        tpu_multi_host_compact_placement.RULE,
        tpu_slice_node_count.RULE,
        tpu_topology_matches_machine_type.RULE,
        gke_private_nodes.RULE,
        gke_authorized_networks.RULE,
        gke_workload_identity.RULE,
        gke_secrets_encryption.RULE,
        gke_control_plane_logs.RULE,
        gke_shielded_nodes.RULE,
        gke_legacy_metadata_disabled.RULE,
        gke_node_service_account.RULE,
        gke_metadata_server.RULE,
        gke_legacy_authorization_off.RULE,
        # Load balancer
        https_tls12.RULE,
        http_redirect_only.RULE,
        drop_invalid_headers.RULE,
        # Load balancer: Google Cloud (SSL policies, Cloud Armor, GKE Gateway)
        gcp_ssl_policy_tls12.RULE,
        gcp_cloud_armor_default_deny.RULE,
        gke_gateway_cloud_armor.RULE,
        gcp_backend_service_cloud_armor.RULE,
        gke_gateway_ssl_policy.RULE,
        # Kubernetes
        no_privileged.RULE,
        no_host_namespaces.RULE,
        no_host_path.RULE,
        accelerator_requests_equal_limits.RULE,
        image_digest.RULE,
        inference_probes.RULE,
        one_service_account_per_workload.RULE,
        # Version matrix
        profile_compatible.RULE,
        profile_conditional.RULE,
        group_consistent.RULE,
        image_cuda_supported.RULE,
        pool_pinned.RULE,
        # Rollout (weighted inference backends across accelerators)
        backend_matrix_compatible.RULE,
        weighted_backend_has_replicas.RULE,
        baseline_and_canary_declared.RULE,
        # Hygiene
        required_tags.RULE,
        protect_stateful_in_prod.RULE,
        log_retention.RULE,
        # Supply chain: air-gapped stacks
        air_gap_sources.RULE,
        gcp_required_labels.RULE,
    ]
)


def rule_by_id(rule_id: str) -> Rule | None:
    return _BY_ID.get(rule_id)


_BY_ID = {rule.id: rule for rule in RULES}
