"""Benchmark: site.yml on 1, 4 and 16 lab nodes; wall time and per-host overhead.

Each size gets fresh nodes (overlay copies of the cached Debian root, chroot connection, the lab
apt repository), a first apply and a second (converged) apply with the fact cache the first run
filled. Needs root; prints a table. Tuning in ansible.cfg: forks 32, pipelining (the chroot
connection pipes modules over stdin), fact caching (jsonfile, gathering=smart).

Lab nodes run on the controller's own CPUs: every module a node runs competes with Ansible for
the same cores, so node-side work does not overlap the way it does on real hosts, each with its
own CPUs. The table reports the CPU seconds of each run next to the wall time for that reason.

    sudo .venv/bin/python bench/bench_nodes.py [--sizes 1,4,16] [--keep-going]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from accelplane.nodes.progress import ProgressView  # noqa: E402
from tests.support.ansible import lab, nodes, rootfs  # noqa: E402
from tests.support.ansible.catalog import build_lab  # noqa: E402


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(size: int, work: Path, lower: Path, repo: Path) -> dict[str, float]:
    started = []
    try:
        for index in range(size):
            started.append(nodes.start_node(f"h100-{index + 1:02d}", work / "nodes", lower, repo, "nvidia"))
        stack = lab.write_stack(work, {"h100-train": [(node.name, node.root) for node in started]})
        figures: dict[str, float] = {}
        for run in ("apply", "converged"):
            cpu, start = _cpu(), time.perf_counter()
            with open(os.devnull, "w") as quiet:
                result = lab.run("site.yml", stack, work, view=ProgressView(out=quiet))
            figures[run] = time.perf_counter() - start
            figures[f"{run}_cpu"] = _cpu() - cpu
            if result.rc != 0:
                raise RuntimeError(f"site.yml failed on {size} nodes:\n{lab.failure(result)}")
            changed = sum(host.changed for host in result.view.hosts.values())
            if run == "converged" and changed:
                raise RuntimeError(f"the second run changed {changed} things on {size} nodes")
        return figures
    finally:
        for node in reversed(started):
            nodes.stop_node(node)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,4,16")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("bench_nodes: needs root (overlay mounts, chroot)", file=sys.stderr)
        return 2
    sizes = [int(size) for size in args.sizes.split(",")]
    lower = rootfs.ensure_rootfs()
    with tempfile.TemporaryDirectory(prefix="bench-nodes-") as scratch:
        repo = build_lab(Path(scratch) / "lab")
        results = {size: measure(size, Path(scratch) / f"n{size}", lower, repo) for size in sizes}
    base = results[sizes[0]]
    print(f"site.yml on lab nodes ({os.cpu_count()} CPUs shared by the controller and every node)")
    print(
        f"{'nodes':>5}  {'apply s':>8}  {'cpu s':>7}  {'x one':>6}  {'per host s':>10}  "
        f"{'converged s':>11}  {'cpu s':>7}  {'x one':>6}  {'per host s':>10}"
    )
    for size in sizes:
        row = results[size]
        extra = max(size - sizes[0], 1)
        print(
            f"{size:>5}  {row['apply']:>8.1f}  {row['apply_cpu']:>7.1f}  {row['apply'] / base['apply']:>6.2f}  "
            f"{(row['apply'] - base['apply']) / extra if size != sizes[0] else 0:>10.2f}  "
            f"{row['converged']:>11.1f}  {row['converged_cpu']:>7.1f}  {row['converged'] / base['converged']:>6.2f}  "
            f"{(row['converged'] - base['converged']) / extra if size != sizes[0] else 0:>10.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
