"""Storage rules: S3 buckets and what workloads may touch in them."""
