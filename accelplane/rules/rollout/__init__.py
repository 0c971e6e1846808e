"""Rollout rules: an inference service's weighted backends (one per accelerator type) and its rollout
policy, judged from the `accelplane:k8s:InferenceService` component's props.

AP-RO-001..003 judge one revision (`check`, `verify`, the CrossGuard pack). AP-RO-004 (a change of
weights is one rollout step) compares two revisions, so only `accelplane diff` can judge it
(`accelplane/diff/rollout.py`); its id is reserved in the registry (`DIFF_ONLY_IDS`).
"""
