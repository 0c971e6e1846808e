"""AWS: EKS with accelerator node groups, S3, an ALB endpoint, Secrets Manager, KMS and IAM.

The package itself imports nothing, so that one facet of the cloud (its prices, its rules) loads
without the others: `support` is its `CloudSupport`, `pricing` its prices, `rules` its policy rules.
"""
