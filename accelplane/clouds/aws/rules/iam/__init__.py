"""IAM rules: identity policies, trust policies, node roles, users and keys."""
