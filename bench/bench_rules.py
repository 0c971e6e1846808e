"""Benchmark: the full rule set over synthetic graphs of 1k, 10k and 50k resources, and the
CrossGuard pack's start-up time over gRPC.

Synthetic graphs are copies of the prod stack's offline graph (every resource type the program
creates, in its real proportions) with URNs and ids renamed per copy, so references resolve within
a copy and never across copies. The findings printed are artefacts of copying, not rule errors:
the last copy is cut short (a bucket without its companions) and copies share Kubernetes service
account names. Prints figures; asserts nothing about time (docs/design.md). Target from
issue 4: >= 20,000 resources/s for the full rule set.

    .venv/bin/python bench/bench_rules.py [--sizes 1000 10000 50000] [--no-pack]
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import time
import tracemalloc
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from accelplane.config.loader import load_stack  # noqa: E402
from accelplane.engine.graph import from_offline_graph  # noqa: E402
from accelplane.program import offline_graph  # noqa: E402
from accelplane.rules.engine import evaluate  # noqa: E402
from accelplane.rules.graph import ReferenceGraph  # noqa: E402
from accelplane.rules.registry import RULES  # noqa: E402
from accelplane.rules.view import Resource  # noqa: E402


def _rename(value, suffix: str, ids: set[str]):
    if isinstance(value, str):
        return value + suffix if value in ids else value
    if isinstance(value, list):
        return [_rename(v, suffix, ids) for v in value]
    if isinstance(value, dict):
        return {k: _rename(v, suffix, ids) for k, v in value.items()}
    return value


def synthetic(base: list[Resource], size: int) -> list[Resource]:
    ids = {r.id for r in base if r.id}
    out: list[Resource] = []
    copy = 0
    while len(out) < size:
        suffix = f"-c{copy}"
        for r in base:
            if len(out) >= size:
                break
            out.append(replace(
                r, urn=r.urn + suffix, name=r.name + suffix, id=(r.id + suffix) if r.id else None,
                parent=(r.parent + suffix) if r.parent else None,
                dependencies=tuple(d + suffix for d in r.dependencies),
                props=_rename(r.props, suffix, ids),
            ))
        copy += 1
    return out


def bench_rules(base: list[Resource], size: int) -> None:
    resources = synthetic(base, size)
    gc.collect()
    started = time.perf_counter()
    evaluation = evaluate(ReferenceGraph(resources, environment="prod"))
    elapsed = time.perf_counter() - started
    # A second run under tracemalloc for the peak (tracemalloc slows Python down: not timed).
    gc.collect()
    tracemalloc.start()
    evaluate(ReferenceGraph(resources, environment="prod"))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"{size:>7} resources  {elapsed:7.3f} s  {size / elapsed:>10,.0f} resources/s  "
          f"peak {peak / 2**20:7.1f} MiB (tracemalloc)  findings {len(evaluation.findings)}")


def bench_pack() -> None:
    sys.path.insert(0, str(ROOT / "tests" / "policies"))
    from tests.policies.pack_client import analyze_all, info, start_pack

    pack = start_pack()
    try:
        started = time.perf_counter()
        described = info(pack)
        first_call = time.perf_counter() - started
        graph = from_offline_graph(offline_graph(load_stack("prod")))
        started = time.perf_counter()
        analyze_all(pack, graph)
        analyze = time.perf_counter() - started
    finally:
        pack.close()
    print(f"pack start-up (process start to port printed and channel ready): {pack.startup_seconds:.2f} s; "
          f"GetAnalyzerInfo {first_call * 1000:.0f} ms ({len(described.policies)} policies); "
          f"prod graph ({len(graph)} resources) Analyze x{len(graph)} + AnalyzeStack: {analyze:.2f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 50_000])
    parser.add_argument("--no-pack", action="store_true")
    args = parser.parse_args()
    base = from_offline_graph(offline_graph(load_stack("prod")))
    print(f"{len(RULES)} rules; base graph: prod, {len(base)} resources, {len({r.type for r in base})} types")
    evaluate(ReferenceGraph(base, environment="prod"))  # warm caches and lazy imports (IAM database) once
    for size in args.sizes:
        bench_rules(base, size)
    print(f"process peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    if not args.no_pack:
        bench_pack()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
