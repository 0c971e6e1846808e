"""Google Cloud's rules, listed by hand (docs/conventions.md 15), in the order the report groups them.

The neutral registry (`accelplane.rules.registry`) adds them to its own through this cloud's
`accelplane.rules` entry point and checks ids and names across every cloud's rules.
"""

from __future__ import annotations

from accelplane.clouds.gcp.rules.audit import gcp_data_access_audit_logs
from accelplane.clouds.gcp.rules.capacity import future_reservation_purchase_approved
from accelplane.clouds.gcp.rules.cluster import (
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
from accelplane.clouds.gcp.rules.compute import (
    tpu_multi_host_compact_placement,
    tpu_slice_node_count,
    tpu_topology_matches_machine_type,
)
from accelplane.clouds.gcp.rules.dns import cloud_dns_weighted_record_health_checked, cloud_dns_weighted_record_ttl
from accelplane.clouds.gcp.rules.hygiene import gcp_required_labels
from accelplane.clouds.gcp.rules.iam import (
    gcp_iam_no_primitive_roles,
    gcp_iam_no_project_grants_to_workloads,
    gcp_iam_no_public_members,
    gcp_iam_no_service_account_keys,
    gcp_workload_identity_one_service_account,
)
from accelplane.clouds.gcp.rules.load_balancer import (
    gcp_armor_rate_limit_enforced,
    gcp_backend_service_cloud_armor,
    gcp_cloud_armor_default_deny,
    gcp_ssl_policy_tls12,
    gke_gateway_cloud_armor,
    gke_gateway_health_check,
    gke_gateway_iap,
    gke_gateway_rate_limit,
    gke_gateway_ssl_policy,
    gke_route_request_timeout,
    gke_route_retry_per_try_timeout,
)
from accelplane.clouds.gcp.rules.network import gcp_firewall_no_ssh_rdp_from_anywhere, gcp_firewall_no_world_ingress
from accelplane.clouds.gcp.rules.secrets import (
    gcp_kms_key_rotation,
    gcp_kms_no_public_members,
    gcp_secret_customer_key,
    gcp_secret_named_readers,
    gcp_secret_rotation,
    gcp_secret_rotation_notified,
)
from accelplane.clouds.gcp.rules.storage import (
    gcs_checkpoint_versioning,
    gcs_customer_managed_key,
    gcs_no_force_destroy_in_prod,
    gcs_no_public_members,
    gcs_public_access_prevention,
    gcs_uniform_bucket_level_access,
    gcs_workload_prefix_condition,
    gcs_workload_whole_bucket,
)
from accelplane.rules.rule import Rule

RULES: tuple[Rule, ...] = (
    # IAM
    gcp_iam_no_primitive_roles.RULE,
    gcp_iam_no_public_members.RULE,
    gcp_iam_no_project_grants_to_workloads.RULE,
    gcp_iam_no_service_account_keys.RULE,
    gcp_workload_identity_one_service_account.RULE,
    # Storage (Cloud Storage)
    gcs_uniform_bucket_level_access.RULE,
    gcs_public_access_prevention.RULE,
    gcs_customer_managed_key.RULE,
    gcs_checkpoint_versioning.RULE,
    gcs_no_force_destroy_in_prod.RULE,
    gcs_no_public_members.RULE,
    gcs_workload_prefix_condition.RULE,
    gcs_workload_whole_bucket.RULE,
    # Secrets and keys: Cloud KMS, Secret Manager
    gcp_kms_key_rotation.RULE,
    gcp_kms_no_public_members.RULE,
    gcp_secret_customer_key.RULE,
    gcp_secret_named_readers.RULE,
    gcp_secret_rotation.RULE,
    gcp_secret_rotation_notified.RULE,
    # Audit logs
    gcp_data_access_audit_logs.RULE,
    # Network, compute and cluster (VPC firewall, TPU slices, GKE)
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
    # Load balancer: resilience of the inference endpoint (rate limits, health checks, timeouts)
    gke_gateway_rate_limit.RULE,
    gcp_armor_rate_limit_enforced.RULE,
    gke_route_request_timeout.RULE,
    gke_gateway_health_check.RULE,
    gke_route_retry_per_try_timeout.RULE,
    # Load balancer (SSL policies, Cloud Armor, GKE Gateway)
    gcp_ssl_policy_tls12.RULE,
    gcp_cloud_armor_default_deny.RULE,
    gke_gateway_cloud_armor.RULE,
    gke_gateway_iap.RULE,
    gcp_backend_service_cloud_armor.RULE,
    gke_gateway_ssl_policy.RULE,
    # DNS: a migration's weighted record sets
    cloud_dns_weighted_record_ttl.RULE,
    cloud_dns_weighted_record_health_checked.RULE,
    # Capacity the stack buys
    future_reservation_purchase_approved.RULE,
    # Hygiene
    gcp_required_labels.RULE,
)
