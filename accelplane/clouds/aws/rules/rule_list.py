"""AWS's rules, listed by hand (docs/conventions.md 15), in the order the report groups them.

The neutral registry (`accelplane.rules.registry`) adds them to its own through this cloud's
`accelplane.rules` entry point and checks ids and names across every cloud's rules.
"""

from __future__ import annotations

from accelplane.clouds.aws.rules.audit import cloudtrail_bucket_locked, cloudtrail_records_the_stack
from accelplane.clouds.aws.rules.capacity import capacity_block_purchase_approved
from accelplane.clouds.aws.rules.cluster import eks_control_plane_logs, eks_endpoint_restricted, eks_secrets_encryption
from accelplane.clouds.aws.rules.compute import (
    ec2_encrypted_volumes,
    ec2_imds_hop_limit_one,
    ec2_imdsv2_required,
    ec2_no_public_ip_on_accelerator_nodes,
)
from accelplane.clouds.aws.rules.dns import route53_weighted_record_health_checked, route53_weighted_record_ttl
from accelplane.clouds.aws.rules.hygiene import log_group_retention, required_tags
from accelplane.clouds.aws.rules.iam import (
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
from accelplane.clouds.aws.rules.load_balancer import (
    lb_clients_authenticated,
    lb_drop_invalid_headers,
    lb_http_redirects_to_https,
    lb_https_tls12,
    lb_inference_rate_limit,
    lb_mtls_passthrough,
    lb_rate_limit_enforced,
    lb_target_group_health_check,
    lb_trust_bundle_protected,
)
from accelplane.clouds.aws.rules.matrix import matrix_pool_pinned
from accelplane.clouds.aws.rules.network import (
    efa_group_only_on_efa_nodes,
    efa_security_group_self_referencing,
    sg_no_ssh_rdp_from_anywhere,
    sg_no_world_ingress,
)
from accelplane.clouds.aws.rules.secrets import (
    kms_key_rotation,
    kms_no_wildcard_principal,
    no_secrets_in_user_data,
    rotation_function_invoke_scoped,
    secret_customer_key,
    secret_named_readers,
    secret_rotation,
)
from accelplane.clouds.aws.rules.storage import (
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
from accelplane.rules.rule import Rule

RULES: tuple[Rule, ...] = (
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
    # Secrets and keys
    kms_key_rotation.RULE,
    kms_no_wildcard_principal.RULE,
    secret_customer_key.RULE,
    secret_named_readers.RULE,
    secret_rotation.RULE,
    rotation_function_invoke_scoped.RULE,
    no_secrets_in_user_data.RULE,
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
    # Audit trail
    cloudtrail_records_the_stack.RULE,
    cloudtrail_bucket_locked.RULE,
    # Load balancer
    lb_https_tls12.RULE,
    lb_http_redirects_to_https.RULE,
    lb_drop_invalid_headers.RULE,
    # Load balancer: who may call the endpoint (client authentication)
    lb_clients_authenticated.RULE,
    lb_mtls_passthrough.RULE,
    lb_trust_bundle_protected.RULE,
    # Load balancer: resilience of the inference endpoint (rate limits, health checks, timeouts)
    lb_inference_rate_limit.RULE,
    lb_rate_limit_enforced.RULE,
    lb_target_group_health_check.RULE,
    # DNS: a migration's weighted records
    route53_weighted_record_ttl.RULE,
    route53_weighted_record_health_checked.RULE,
    # Capacity the stack buys
    capacity_block_purchase_approved.RULE,
    # Version matrix
    matrix_pool_pinned.RULE,
    # Hygiene
    required_tags.RULE,
    log_group_retention.RULE,
)
