"""Progressive delivery of an inference service across backends (accelerator types, images, profiles).

`steps` computes weights from the declaration; the rest reads live metrics, judges the gates and
writes the stack file (`accelplane rollout status|advance|abort`, docs/rollout.md):

- `traffic`: what a metrics source says about one backend over the gate window;
- `prometheus`, `cloudwatch`: the two readers; `alb`: the service's live route (found by tags),
  its weights, and `--apply-now`;
- `gates`: the gates as pure functions; `run`: the order of decisions; `report`: status output;
- `stack_file`: the in-place, checked rewrite of weights and `since`;
- `declared`: the backends and rollout as component props (for the rules and `diff`).
"""
