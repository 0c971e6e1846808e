"""Google Cloud: GKE with TPU slices and GPU pools, GCS with CMEK, a Gateway endpoint, Secret Manager.

The package itself imports nothing, so that one facet of the cloud (its prices, its rules) loads
without the others: `support` is its `CloudSupport`, `pricing` its prices, `rules` its policy rules.
"""
