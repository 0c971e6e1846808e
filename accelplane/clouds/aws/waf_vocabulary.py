"""The AWS WAF vocabulary a declaration may use (light: the declaration checks load it without the SDK)."""

from __future__ import annotations

# AWS managed rule groups a declaration may name (vendor AWS), from
# https://docs.aws.amazon.com/waf/latest/developerguide/aws-managed-rule-groups-list.html
MANAGED_RULE_GROUPS = (
    "AWSManagedRulesAdminProtectionRuleSet",
    "AWSManagedRulesAmazonIpReputationList",
    "AWSManagedRulesAnonymousIpList",
    "AWSManagedRulesCommonRuleSet",
    "AWSManagedRulesKnownBadInputsRuleSet",
    "AWSManagedRulesLinuxRuleSet",
    "AWSManagedRulesPHPRuleSet",
    "AWSManagedRulesSQLiRuleSet",
    "AWSManagedRulesUnixRuleSet",
    "AWSManagedRulesWindowsRuleSet",
)
