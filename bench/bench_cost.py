"""Benchmark what pricing adds on top of the offline preview, for prod and tpu-prod: the preview itself
(the program run with mocks, as `accelplane preview` does), the estimate of its plan (`accelplane cost`
and `preview`'s one-line range), and the cost section of `accelplane diff` (both revisions priced, the
per-resource change and the Mermaid picture, from the two plans a diff already has). Median of 7 in one
process after a warm-up. Target: cost and the diff's cost section together under 10 % of the preview.

    .venv/bin/python bench/bench_cost.py
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
RUNS = 7

from accelplane.config.loader import load_stack  # noqa: E402
from accelplane.cost.cloud_pricing import builtin_table  # noqa: E402
from accelplane.cost.estimate import estimate_plan  # noqa: E402
from accelplane.diff.cost import cost_diff  # noqa: E402
from accelplane.program import offline_graph  # noqa: E402


def _median(action: Callable[[], object]) -> float:
    action()  # warm-up: tables read, modules imported
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    print(f"{'stack':10} {'preview':>9} {'cost':>9} {'diff cost':>10} {'added':>7}")
    for name in ("prod", "tpu-prod"):
        stack = load_stack(name)
        platform = stack.platform
        cloud = platform.cloud
        desired = {pool.name: pool.scaling.desired for pool in platform.node_pools}
        document = offline_graph(stack).to_json()
        region = platform.region
        preview = _median(lambda s=stack: offline_graph(s).to_json())
        cost = _median(lambda d=document, c=cloud, r=region, w=desired: estimate_plan(d, c, r, builtin_table(c), w))
        diff = _median(lambda d=document, c=cloud, r=region, w=desired: cost_diff(
            d, d, cloud=c, region=r, base_desired=w, head_desired=w))
        added = (cost + diff) / preview
        print(f"{name:10} {preview:8.3f}s {cost * 1000:7.1f}ms {diff * 1000:8.1f}ms {added:6.1%}")


if __name__ == "__main__":
    main()
