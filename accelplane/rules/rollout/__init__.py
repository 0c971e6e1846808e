"""Rollout rules: an inference service's weighted backends (one per accelerator type) and its rollout
policy, judged from the `accelplane:k8s:InferenceService` component's props."""
