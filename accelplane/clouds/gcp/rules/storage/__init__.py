"""Storage rules: Cloud Storage buckets and what workloads may touch in them."""
