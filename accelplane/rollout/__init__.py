"""Progressive delivery of an inference service across backends (accelerator types, images, profiles).

`steps` computes weights from the declaration; the rest reads live metrics, judges the gates and
writes the stack file (`accelplane rollout status|advance|abort`).
"""
