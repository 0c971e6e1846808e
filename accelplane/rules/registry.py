"""The explicit, sorted rule registry (docs/conventions.md 15): every rule is listed here by hand.

`build_registry` refuses duplicate ids and names and malformed ids; a meta-test checks that every
`RULE` defined under `accelplane/rules/<family>/` is listed. Ids are never reused: a retired rule's
id stays retired.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from accelplane.rules.cluster import (
    eks_control_plane_logs,
    eks_endpoint_restricted,
    eks_secrets_encryption,
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
)
from accelplane.rules.compute import (
    ec2_encrypted_volumes,
    ec2_imds_hop_limit_one,
    ec2_imdsv2_required,
    ec2_no_public_ip_on_accelerator_nodes,
    tpu_multi_host_compact_placement,
    tpu_slice_node_count,
    tpu_topology_matches_machine_type,
)
from accelplane.rules.cost import cost_near_budget, cost_within_budget, dev_pool_expiry
from accelplane.rules.hygiene import (
    air_gap_sources_in_mirror,
    gcp_required_labels,
    log_group_retention,
    prod_stateful_protected,
    required_tags,
)
from accelplane.rules.iam import (
    gcp_iam_no_primitive_roles,
    gcp_iam_no_project_grants_to_workloads,
    gcp_iam_no_public_members,
    gcp_iam_no_service_account_keys,
    gcp_workload_identity_one_service_account,
    iam_known_actions,
    iam_no_access_keys,
    iam_no_allow_not_action,
    iam_no_broad_managed_policy,
    iam_no_privilege_escalation,
    iam_no_service_wildcard_on_any_resource,
    iam_no_users,
    iam_no_wildcard_action,
    iam_node_role_minimal,
    iam_pass_role_scoped,
    iam_role_no_combined_escalation,
    iam_trust_no_wildcard_principal,
    iam_workload_trust_one_service_account,
)
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
from accelplane.rules.load_balancer import (
    gcp_armor_rate_limit_enforced,
    gcp_backend_service_cloud_armor,
    gcp_cloud_armor_default_deny,
    gcp_ssl_policy_tls12,
    gke_gateway_cloud_armor,
    gke_gateway_health_check,
    gke_gateway_rate_limit,
    gke_gateway_ssl_policy,
    gke_route_request_timeout,
    gke_route_retry_per_try_timeout,
    lb_drop_invalid_headers,
    lb_http_redirects_to_https,
    lb_https_tls12,
    lb_inference_rate_limit,
    lb_rate_limit_enforced,
    lb_target_group_health_check,
)
from accelplane.rules.matrix import (
    matrix_group_shares_versions,
    matrix_image_cuda_supported_by_driver,
    matrix_pool_pinned,
    matrix_profile_compatible,
    matrix_profile_conditional,
)
from accelplane.rules.network import (
    efa_group_only_on_efa_nodes,
    efa_security_group_self_referencing,
    gcp_firewall_no_ssh_rdp_from_anywhere,
    gcp_firewall_no_world_ingress,
    sg_no_ssh_rdp_from_anywhere,
    sg_no_world_ingress,
)
from accelplane.rules.rollout import (
    rollout_backend_matrix_compatible,
    rollout_baseline_and_canary_declared,
    rollout_weighted_backend_has_replicas,
)
from accelplane.rules.rule import Rule
from accelplane.rules.secrets import (
    gcp_kms_key_rotation,
    gcp_kms_no_public_members,
    gcp_secret_customer_key,
    gcp_secret_named_readers,
    kms_key_rotation,
    kms_no_wildcard_principal,
    no_secrets_in_container_env,
    no_secrets_in_user_data,
    secret_customer_key,
    secret_named_readers,
)
from accelplane.rules.storage import (
    gcs_checkpoint_versioning,
    gcs_customer_managed_key,
    gcs_no_force_destroy_in_prod,
    gcs_no_public_members,
    gcs_public_access_prevention,
    gcs_uniform_bucket_level_access,
    gcs_workload_prefix_condition,
    gcs_workload_whole_bucket,
    s3_access_scoped_to_prefix,
    s3_acls_disabled,
    s3_bucket_has_public_access_block,
    s3_checkpoint_lifecycle,
    s3_checkpoint_versioning,
    s3_deny_insecure_transport,
    s3_no_force_destroy_in_prod,
    s3_no_public_acl,
    s3_no_public_policy,
    s3_public_access_block_all_flags,
    s3_sse_kms_customer_key,
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
        # IAM
        iam_no_wildcard_action.RULE,
        iam_no_service_wildcard_on_any_resource.RULE,
        iam_no_privilege_escalation.RULE,
        iam_pass_role_scoped.RULE,
        iam_trust_no_wildcard_principal.RULE,
        iam_workload_trust_one_service_account.RULE,
        iam_node_role_minimal.RULE,
        iam_no_users.RULE,
        iam_no_access_keys.RULE,
        iam_no_broad_managed_policy.RULE,
        iam_no_allow_not_action.RULE,
        iam_known_actions.RULE,
        iam_role_no_combined_escalation.RULE,
        # IAM: Google Cloud
        gcp_iam_no_primitive_roles.RULE,
        gcp_iam_no_public_members.RULE,
        gcp_iam_no_project_grants_to_workloads.RULE,
        gcp_iam_no_service_account_keys.RULE,
        gcp_workload_identity_one_service_account.RULE,
        # Storage
        s3_public_access_block_all_flags.RULE,
        s3_bucket_has_public_access_block.RULE,
        s3_sse_kms_customer_key.RULE,
        s3_deny_insecure_transport.RULE,
        s3_checkpoint_versioning.RULE,
        s3_checkpoint_lifecycle.RULE,
        s3_access_scoped_to_prefix.RULE,
        s3_no_public_acl.RULE,
        s3_acls_disabled.RULE,
        s3_no_public_policy.RULE,
        s3_no_force_destroy_in_prod.RULE,
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
        kms_key_rotation.RULE,
        kms_no_wildcard_principal.RULE,
        secret_customer_key.RULE,
        secret_named_readers.RULE,
        no_secrets_in_user_data.RULE,
        no_secrets_in_container_env.RULE,
        # Secrets and keys: Cloud KMS, Secret Manager
        gcp_kms_key_rotation.RULE,
        gcp_kms_no_public_members.RULE,
        gcp_secret_customer_key.RULE,
        gcp_secret_named_readers.RULE,
        # Network and compute
        sg_no_world_ingress.RULE,
        sg_no_ssh_rdp_from_anywhere.RULE,
        efa_security_group_self_referencing.RULE,
        efa_group_only_on_efa_nodes.RULE,
        ec2_imdsv2_required.RULE,
        ec2_imds_hop_limit_one.RULE,
        ec2_encrypted_volumes.RULE,
        ec2_no_public_ip_on_accelerator_nodes.RULE,
        eks_endpoint_restricted.RULE,
        eks_secrets_encryption.RULE,
        eks_control_plane_logs.RULE,
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
        lb_https_tls12.RULE,
        lb_http_redirects_to_https.RULE,
        lb_drop_invalid_headers.RULE,
        # Load balancer: resilience of the inference endpoint (rate limits, health checks, timeouts)
        lb_inference_rate_limit.RULE,
        lb_rate_limit_enforced.RULE,
        lb_target_group_health_check.RULE,
        gke_gateway_rate_limit.RULE,
        gcp_armor_rate_limit_enforced.RULE,
        gke_route_request_timeout.RULE,
        gke_gateway_health_check.RULE,
        gke_route_retry_per_try_timeout.RULE,
        # Load balancer: Google Cloud (SSL policies, Cloud Armor, GKE Gateway)
        gcp_ssl_policy_tls12.RULE,
        gcp_cloud_armor_default_deny.RULE,
        gke_gateway_cloud_armor.RULE,
        gcp_backend_service_cloud_armor.RULE,
        gke_gateway_ssl_policy.RULE,
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
        matrix_pool_pinned.RULE,
        # Rollout (weighted inference backends across accelerators)
        rollout_backend_matrix_compatible.RULE,
        rollout_weighted_backend_has_replicas.RULE,
        rollout_baseline_and_canary_declared.RULE,
        # Hygiene
        required_tags.RULE,
        prod_stateful_protected.RULE,
        log_group_retention.RULE,
        # Supply chain: air-gapped stacks
        air_gap_sources_in_mirror.RULE,
        gcp_required_labels.RULE,
    ]
)


def rule_by_id(rule_id: str) -> Rule | None:
    """The rule with this id, or that had it (an alias)."""
    return _BY_ID.get(rule_id)


_BY_ID = {key: rule for rule in RULES for key in (rule.id, *rule.aliases)}
