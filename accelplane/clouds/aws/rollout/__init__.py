"""AWS's side of `accelplane rollout`: the ALB's live weights and its per-target-group metrics in CloudWatch."""

# The `rollout.metrics` value with which the rollout reads the ALB's per-target-group metrics in CloudWatch
# (AwsSupport.load_balancer_metrics).
CLOUDWATCH = "cloudwatch"
