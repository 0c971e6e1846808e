"""IAM rules: Google Cloud grants (primitive roles, public members, project grants, keys, Workload Identity)."""
