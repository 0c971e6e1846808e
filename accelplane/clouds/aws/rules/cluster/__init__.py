"""Cluster rules: the EKS control plane."""
