"""Benchmark: site.yml on 1, 4 and 16 lab nodes; wall time and per-host overhead.

Each size gets fresh nodes (overlay copies of the cached Debian root, chroot connection, the lab
apt repository), a first apply and a second (converged) apply with the fact cache the first run
filled. Needs root; prints a table. Tuning in ansible.cfg: forks 32, pipelining (the chroot
connection pipes modules over stdin), fact caching (jsonfile, gathering=smart).

Lab nodes run on the controller's own CPUs: every module a node runs competes with Ansible for
the same cores, so node-side work does not overlap the way it does on real hosts, each with its
own CPUs. To show which side a figure belongs to, every command a node runs is accounted in a
cgroup of its own (cgroup v2 `cpu.stat`; the connection's `chroot_exe` is a wrapper that joins
the node's cgroup before it execs chroot). The table splits the CPU seconds of each run into
the nodes' share and the controller's (Ansible, ansible-runner, the connection plumbing).

The target (issue 15) for the largest size's apply: wall time within 1.3x of the physical
floor, the nodes' own CPU seconds divided by the cores they share (no schedule can beat it on
this machine), and at most 5 CPU seconds of controller work per host. Both ratios are printed
with the load average at the start and end, since anything else running shares the same cores.

    sudo .venv/bin/python bench/bench_nodes.py [--sizes 1,4,16] [--shards 2]

`--shards N` applies the largest size once more through `accelplane nodes apply --shards N` (each shard
its own process) and prints its wall time and controller CPU per host beside the single run's: the
sharding's overhead. On two cores the shards share the cores the single run used: no speed-up can show.
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

# Joins the cgroup named after the node's root directory (chroot's first argument), then execs
# chroot: everything the node runs is accounted there. What runs before the join counts as the
# controller's, so the name is cut with the shell's own expansion: `$(basename "$1")` forked a
# subshell and ran basename, 2.0 ms of CPU per command against 0.1 ms.
_WRAPPER = """#!/bin/sh
echo $$ > "{cgroups}/${{1##*/}}/cgroup.procs"
exec chroot "$@"
"""


def _cgroup2_mount() -> Path | None:
    for line in Path("/proc/mounts").read_text().splitlines():
        _, mount_point, kind, *_ = line.split()
        if kind == "cgroup2":
            return Path(mount_point)
    return None


class NodeAccounting:
    """One cgroup per lab node under a cgroup of this run; CPU seconds per node from cpu.stat."""

    def __init__(self, scratch: Path) -> None:
        mount = _cgroup2_mount()
        if mount is None:
            raise SystemExit("bench_nodes: no cgroup v2 mount to account the nodes' CPU in")
        self.base = mount / f"accelplane-bench-{os.getpid()}"
        self.base.mkdir()
        self.wrapper = scratch / "chroot-accounted"
        self.wrapper.write_text(_WRAPPER.format(cgroups=self.base))
        self.wrapper.chmod(0o755)

    def add(self, node: str) -> None:
        (self.base / node).mkdir(exist_ok=True)

    def cpu(self) -> float:
        total = 0
        for group in self.base.iterdir():
            if group.is_dir():
                for line in (group / "cpu.stat").read_text().splitlines():
                    key, value = line.split()
                    if key == "usage_usec":
                        total += int(value)
        return total / 1e6

    def close(self) -> None:
        for group in self.base.iterdir():
            if group.is_dir():
                group.rmdir()
        self.base.rmdir()


def _cpu() -> float:
    """CPU seconds of this process and its waited-for descendants: ansible-runner runs in this
    process (it reads Ansible's events and writes them as files), ansible-playbook, its forks and
    the nodes' commands below it."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def _machine_busy() -> float:
    """CPU seconds all cores spent busy since boot (/proc/stat: everything but idle and iowait)."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    # guest time is already counted in user time.
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def measure(
    size: int, work: Path, lower: Path, repo: Path, accounting: NodeAccounting, *, converged: bool = True
) -> dict[str, float]:
    started = []
    try:
        for index in range(size):
            node = nodes.start_node(f"h100-{index + 1:02d}", work / "nodes", lower, repo, "nvidia",
                                    compile_cache=False)  # a real host compiles every payload
            accounting.add(node.root.name)
            started.append(node)
        stack = lab.write_stack(work, {"h100-train": [(node.name, node.root) for node in started]})
        figures: dict[str, float] = {}
        for run in ("apply", "converged") if converged else ("apply",):
            cpu, node_cpu, busy, start = _cpu(), accounting.cpu(), _machine_busy(), time.perf_counter()
            with open(os.devnull, "w") as quiet:
                result = lab.run(
                    "site.yml",
                    stack,
                    work,
                    view=ProgressView(out=quiet),
                    extravars={"ansible_chroot_exe": str(accounting.wrapper)},
                )
            figures[run] = time.perf_counter() - start
            figures[f"{run}_cpu"] = _cpu() - cpu
            figures[f"{run}_node_cpu"] = accounting.cpu() - node_cpu
            # What else ran on these cores meanwhile (other users' tests): the machine's busy time
            # less this run's own.
            figures[f"{run}_other_cpu"] = max(_machine_busy() - busy - figures[f"{run}_cpu"], 0.0)
            if result.rc != 0:
                raise RuntimeError(f"site.yml failed on {size} nodes:\n{lab.failure(result)}")
            changed = sum(host.changed for host in result.view.hosts.values())
            if run == "converged" and changed:
                raise RuntimeError(f"the second run changed {changed} things on {size} nodes")
        return figures
    finally:
        for node in reversed(started):
            nodes.stop_node(node)


def measure_sharded(
    size: int, shards: int, work: Path, lower: Path, repo: Path, accounting: NodeAccounting
) -> dict[str, float]:
    """The same first apply through `accelplane nodes apply --shards N` (each shard its own process)."""
    from accelplane.cli import main as accelplane

    started = []
    try:
        for index in range(size):
            node = nodes.start_node(f"h100-{index + 1:02d}", work / "nodes", lower, repo, "nvidia",
                                    compile_cache=False)
            accounting.add(node.root.name)
            started.append(node)
        stack = lab.write_stack(work, {"h100-train": [(node.name, node.root) for node in started]})
        # The shards' processes take no extra variables: the accounting wrapper goes in group_vars.
        group_vars = work / "group_vars" / "all.yml"
        group_vars.write_text(group_vars.read_text() + f"ansible_chroot_exe: {accounting.wrapper}\n")
        cpu, node_cpu, start = _cpu(), accounting.cpu(), time.perf_counter()
        with open(os.devnull, "w") as quiet:
            saved, sys.stdout = sys.stdout, quiet
            try:
                code = accelplane(["nodes", "apply", "--stack-file", str(stack), "--shards", str(shards)])
            finally:
                sys.stdout = saved
        if code != 0:
            raise RuntimeError(f"the sharded apply failed on {size} nodes (exit {code})")
        wall = time.perf_counter() - start
        return {"apply": wall, "apply_cpu": _cpu() - cpu, "apply_node_cpu": accounting.cpu() - node_cpu}
    finally:
        for node in reversed(started):
            nodes.stop_node(node)


def _sharded_row(one: dict[str, float], sharded: dict[str, float], size: int, shards: int, cpus: int) -> None:
    ctl_one = (one["apply_cpu"] - one["apply_node_cpu"]) / size
    ctl_sharded = (sharded["apply_cpu"] - sharded["apply_node_cpu"]) / size
    floor = sharded["apply_node_cpu"] / cpus
    print(
        f"sharded apply, {size} nodes in {shards} shards: wall {sharded['apply']:.1f} s "
        f"({sharded['apply'] / one['apply']:.2f}x "
        f"of one process), {sharded['apply'] / floor:.2f}x of its floor; controller CPU per host {ctl_sharded:.2f} s "
        f"(one process: {ctl_one:.2f} s): the sharding's overhead {ctl_sharded - ctl_one:+.2f} s per host (a process, "
        "an inventory load and the preflight play per shard)"
    )


def _own_cpu_estimate(results: dict[int, dict[str, float]], base_size: int, size: int, run: str, cpus: int) -> float:
    """With each node's work on its own CPUs (real hosts), what remains shared is the controller's
    extra CPU over the one-node run, spread over the controller's cores; no overlap with the
    nodes' work is assumed, so this errs high."""
    base, row = results[base_size], results[size]
    extra = (row[f"{run}_cpu"] - row[f"{run}_node_cpu"]) - (base[f"{run}_cpu"] - base[f"{run}_node_cpu"])
    return (base[run] + max(extra, 0.0) / cpus) / base[run]


def _rows(results: dict[int, dict[str, float]], sizes: list[int], run: str) -> None:
    base = results[sizes[0]]
    cpus = len(os.sched_getaffinity(0))
    print(
        f"{run}: {'nodes':>5}  {'wall s':>7}  {'x one':>6}  {'cpu s':>6}  {'nodes':>6}  {'ctl':>6}  "
        f"{'ctl/host':>8}  {'node/host':>9}  {'own-CPU est. x one':>18}"
    )
    for size in sizes:
        row = results[size]
        if run not in row:
            continue
        wall, cpu, node = row[run], row[f"{run}_cpu"], row[f"{run}_node_cpu"]
        controller = cpu - node
        estimate = _own_cpu_estimate(results, sizes[0], size, run, cpus)
        print(
            f"{'':{len(run) + 1}} {size:>5}  {wall:>7.1f}  {wall / base[run]:>6.2f}  {cpu:>6.1f}  {node:>6.1f}  "
            f"{controller:>6.1f}  {controller / size:>8.2f}  {node / size:>9.2f}  {estimate:>18.2f}"
        )


FLOOR_TARGET = 1.3  # wall time / (nodes' CPU seconds / cores)
CONTROLLER_TARGET = 5.0  # controller CPU seconds per host


def _target(row: dict[str, float], size: int, cpus: int) -> None:
    """The issue-15 figures for `size` nodes' first apply."""
    floor = row["apply_node_cpu"] / cpus
    controller_per_host = (row["apply_cpu"] - row["apply_node_cpu"]) / size
    wall_ratio = row["apply"] / floor
    print(
        f"target, {size} nodes' apply on {cpus} cores: wall {row['apply']:.1f} s / floor {floor:.1f} s "
        f"(nodes' CPU {row['apply_node_cpu']:.1f} s / {cpus}) = {wall_ratio:.2f}x (target <= {FLOOR_TARGET}x, "
        f"{'met' if wall_ratio <= FLOOR_TARGET else 'missed'}); controller CPU per host "
        f"{controller_per_host:.2f} s (target <= {CONTROLLER_TARGET} s, "
        f"{'met' if controller_per_host <= CONTROLLER_TARGET else 'missed'})"
    )
    # Controller and nodes together set the floor on shared cores; this says which side dominates.
    shared_floor = row["apply_cpu"] / cpus
    print(
        f"  all CPU of the run / cores = {shared_floor:.1f} s: wall is {row['apply'] / shared_floor:.2f}x of that; "
        f"controller share of the run's CPU {100 * (row['apply_cpu'] - row['apply_node_cpu']) / row['apply_cpu']:.0f}%"
    )
    # The controller runs on the nodes' cores here, so on a quiet machine the wall time cannot beat
    # (nodes + controller) / cores: the controller's CPU sets the least ratio this machine can show.
    print(f"  least ratio on a quiet machine with this controller CPU: {row['apply_cpu'] / row['apply_node_cpu']:.2f}x")
    # Other processes on the same cores (concurrent test runs) stretch the wall time, not the CPU figures.
    busy = (row["apply_cpu"] + row["apply_other_cpu"]) / cpus
    print(
        f"  other processes used {row['apply_other_cpu']:.1f} CPU s meanwhile; everything that ran / cores = "
        f"{busy:.1f} s: wall is {row['apply'] / busy:.2f}x of that (1.00x: the cores were never idle)"
    )


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,4,16")
    # A 64-node apply takes about a quarter of an hour on two cores; its converged re-run adds as much.
    parser.add_argument("--converged-max", type=int, default=16, help="converged re-runs only up to this size")
    parser.add_argument("--shards", type=int, default=0,
                        help="also apply the largest size through `accelplane nodes apply --shards N` (N processes)")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("bench_nodes: needs root (overlay mounts, chroot, cgroups)", file=sys.stderr)
        return 2
    sizes = [int(size) for size in args.sizes.split(",")]
    load_before = _load()
    lower = rootfs.ensure_rootfs()
    with tempfile.TemporaryDirectory(prefix="bench-nodes-") as scratch:
        accounting = NodeAccounting(Path(scratch))
        try:
            repo = build_lab(Path(scratch) / "lab")
            results = {
                size: measure(
                    size, Path(scratch) / f"n{size}", lower, repo, accounting, converged=size <= args.converged_max
                )
                for size in sizes
            }
            sharded = (measure_sharded(sizes[-1], args.shards, Path(scratch) / f"s{sizes[-1]}", lower, repo, accounting)
                       if args.shards > 1 else None)
        finally:
            accounting.close()
    cpus = len(os.sched_getaffinity(0))
    print(f"site.yml on lab nodes ({cpus} CPUs shared by the controller and every node)")
    print(f"load average (1, 5, 15 min): before {load_before}, after {_load()}")
    print("cpu s = all CPU of the run; nodes = what the nodes ran (cgroups); ctl = the rest (controller)")
    _rows(results, sizes, "apply")
    _rows(results, sizes, "converged")
    largest = sizes[-1]
    # The targets are set for fleets (16 nodes and more): each such size gets its two ratios, to
    # show whether the cost per host stays flat as the fleet grows.
    for size in [size for size in sizes if size >= 16] or [largest]:
        _target(results[size], size, cpus)
    if sharded is not None:
        _sharded_row(results[largest], sharded, largest, args.shards, cpus)
    estimates = {cores: _own_cpu_estimate(results, sizes[0], largest, "apply", cores) for cores in (2, 4, 8)}
    print(
        f"own-CPU estimate for {largest} nodes' apply by controller cores: "
        + ", ".join(f"{cores}: {estimate:.2f}x" for cores, estimate in estimates.items())
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
