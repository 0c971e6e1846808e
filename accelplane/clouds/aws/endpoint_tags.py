"""Tags the inference endpoint's routing carries, read back by `accelplane rollout` and `verify`.

- `accelplane:service` / `accelplane:backend` on every target group (and `accelplane:service` on a
  listener rule): which service and backend it serves, so the tools find it without its generated name.
- `accelplane:weights` on the HTTPS listener (the "/" service) and on each listener rule: the weights
  the last `pulumi up` deployed, `l40s=95 inf2=5`. `accelplane rollout --apply-now` changes the live
  forward weights and leaves this tag alone, so until `pulumi up` runs with the stack file the rollout
  wrote, `verify` sees live weights that no deployment declared (tag values allow letters, digits,
  spaces and `+ - = . _ : / @`:
  https://docs.aws.amazon.com/elasticloadbalancing/latest/application/load-balancer-tags.html).
"""

from __future__ import annotations

from collections.abc import Iterable

SERVICE_TAG = "accelplane:service"
BACKEND_TAG = "accelplane:backend"
WEIGHTS_TAG = "accelplane:weights"


def weights_value(weights: Iterable[tuple[str, int]]) -> str:
    return " ".join(f"{name}={weight}" for name, weight in weights)


def parse_weights(value: object) -> dict[str, int] | None:
    """The weights a `WEIGHTS_TAG` value names, or None when it is not one."""
    if not isinstance(value, str) or not value.strip():
        return None
    out: dict[str, int] = {}
    for pair in value.split():
        name, _, weight = pair.partition("=")
        if not name or not weight.isdigit():
            return None
        out[name] = int(weight)
    return out
