"""`accelplane rollout` on GKE: the inference service's HTTPRoute weights through the Kubernetes API."""
