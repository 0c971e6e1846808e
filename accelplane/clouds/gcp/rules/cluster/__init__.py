"""Cluster rules: the GKE control plane and its nodes."""
