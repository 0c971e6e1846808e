"""Benchmark: `bundle lock`, `bundle fetch` and `bundle verify` of the lab stack's full artifact set.

The upstream is the lab's sources (tests/support/mirror/upstream.py: stand-in debs, wheels, the
EFA installer and nccl-tests tarballs, a chart repository) served by `python -m http.server` on
127.0.0.1, as in the tests. With `--padding N` the apt index also lists N more packages (stanzas
only, never fetched) so that the index read and the resolver are measured at the size of a real
vendor repository (NVIDIA's CUDA repository for one Ubuntu release lists ~10,000 packages).

Prints wall and CPU seconds per step, the artifact count, and sha256 throughput on this machine,
from which `verify` of a real mirror extrapolates (it is hashing-bound: every byte is read once).
Asserts nothing.

    .venv/bin/python bench/bench_bundle.py [--padding 10000]
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import hashlib
import io
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from accelplane.cli import main  # noqa: E402
from tests.support.mirror.servers import http_server  # noqa: E402
from tests.support.mirror.upstream import build_upstream, lab_upstream_stack  # noqa: E402


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime + children.ru_utime + children.ru_stime


def _pad(apt: Path, count: int) -> None:
    """Add `count` stanzas to the flat repository's Packages and rewrite its Release."""
    if count <= 0:
        return
    extra = "".join(
        f"\nPackage: padding-{index:05d}\nVersion: 1.{index}-1\nArchitecture: amd64\n"
        f"Depends: libc6 (>= 2.31), padding-{(index + 1) % count:05d} (>= 1.0)\n"
        f"Filename: ./padding-{index:05d}_1.{index}-1_amd64.deb\nSize: 1024\nSHA256: {'0' * 64}\n"
        "Description: bench padding\n"
        for index in range(count)
    )
    packages = (apt / "Packages").read_bytes() + extra.encode()
    (apt / "Packages").write_bytes(packages)
    (apt / "Packages.gz").write_bytes(gzip.compress(packages, mtime=0))
    lines = ["Origin: accelplane-lab", "Label: accelplane-lab", "Suite: lab", "Codename: lab", "SHA256:"]
    for name in ("Packages", "Packages.gz"):
        data = (apt / name).read_bytes()
        lines.append(f" {hashlib.sha256(data).hexdigest()} {len(data)} {name}")
    (apt / "Release").write_text("\n".join(lines) + "\n")


def _step(name: str, argv: list[str], rows: list[tuple[str, float, float]]) -> None:
    wall, cpu = time.perf_counter(), _cpu()
    with contextlib.redirect_stderr(io.StringIO()) as err, contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    if code != 0:
        raise SystemExit(f"{name} failed ({code}): {err.getvalue()[-2000:]}")
    rows.append((name, time.perf_counter() - wall, _cpu() - cpu))


def _sha256_throughput() -> float:
    block = os.urandom(64 * 1024 * 1024)
    start = time.perf_counter()
    for _ in range(4):
        hashlib.sha256(block).hexdigest()
    return 4 * 64 / (time.perf_counter() - start)


def main_bench() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--padding", type=int, default=0, help="extra stanzas in the apt index (default 0)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        build = time.perf_counter()
        upstream = build_upstream(work / "srv")
        _pad(upstream / "apt", args.padding)
        built = time.perf_counter() - build
        rows: list[tuple[str, float, float]] = []
        with http_server(upstream) as url:
            (work / "stack").mkdir()
            stack = lab_upstream_stack(work / "stack", url)
            lock = work / "bundle.lock.json"
            _step("lock", ["bundle", "lock", "--stack-file", str(stack), "--output", str(lock)], rows)
            _step("fetch", ["bundle", "fetch", "--lock", str(lock), "--into", str(work / "mirror")], rows)
            _step("fetch again (nothing to do)", ["bundle", "fetch", "--lock", str(lock), "--into",
                                                   str(work / "mirror")], rows)
        _step("verify (offline)", ["bundle", "verify", "--lock", str(lock), "--mirror", str(work / "mirror")], rows)
        artifacts = json.loads(lock.read_text())["artifacts"]
        size = sum(a.get("size") or 0 for a in artifacts)
        index_lines = (upstream / "apt" / "Packages").read_text().count("\nPackage: ") + 1
        print(f"lab stack: {len(artifacts)} artifacts, {size / 1024:.1f} KiB; apt index {index_lines} stanzas "
              f"(padding {args.padding}); upstream built in {built:.1f} s")
        print(f"{'step':32} {'wall s':>8} {'cpu s':>8}")
        for name, wall, cpu in rows:
            print(f"{name:32} {wall:8.2f} {cpu:8.2f}")
        print(f"sha256 on this machine: {_sha256_throughput():.0f} MiB/s per core "
              "(verify of a real mirror: its size divided by this)")
        print(f"load average: {' '.join(f'{value:.2f}' for value in os.getloadavg())} (2 cores shared)")


if __name__ == "__main__":
    main_bench()
