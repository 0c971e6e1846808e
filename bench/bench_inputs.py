"""Benchmark: what the CI gate costs on large and hostile inputs (issue 12, "bounded reading").

Each case runs `accelplane` as a user would (a fresh process) and prints wall time, CPU time and
peak memory (the child's max RSS), so "judged in seconds or refused clearly" is measured, not
asserted:

- a stack file with 30,000 tag keys (refused at validation: AWS allows 50 tags per resource);
- a stack file with 20,000 node labels on one pool (legal: judged by the whole program);
- a `pulumi stack export` of 5,000 resources (the dev export repeated with renamed URNs);
- refusals that must be immediate: a FIFO, /dev/zero, 100,000-deep JSON, an alias bomb.

    .venv/bin/python bench/bench_inputs.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / "stacks" / "Pulumi.dev.yaml"
BAD_STATE = ROOT / "tests" / "check" / "fixtures" / "bad-stack-export.json"


def _run(args: list[str]) -> tuple[int, float, float, float, str]:
    """(exit code, wall s, CPU s, peak RSS MiB, last stderr line) of one `accelplane` process,
    measured with wait4 so each figure is that process's own."""
    with tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen([sys.executable, "-m", "accelplane", *args], cwd=ROOT,
                                   stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        lines = err.read().decode(errors="replace").strip().splitlines()
    return process.returncode, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, (lines or [""])[-1][:110]


def _with(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def main() -> None:
    dev = DEV.read_text()
    with tempfile.TemporaryDirectory(prefix="accelplane-bench-") as directory:
        tmp = Path(directory)
        cases: list[tuple[str, list[str]]] = []

        tags = tmp / "Pulumi.tags.yaml"
        extra = "".join(f"        team-{i}: value-{i}\n" for i in range(30_000))
        tags.write_text(_with(dev, "      cost_centre: ", "      extra:\n" + extra + "      cost_centre: "))
        cases.append((f"30,000 tag keys ({tags.stat().st_size / 1e6:.1f} MB)", ["check", "--stack-file", str(tags)]))

        labels = tmp / "Pulumi.labels.yaml"
        extra = "".join(f"          team.example.com/l{i}: v{i}\n" for i in range(20_000))
        labels.write_text(_with(dev, "      - name: train-l4\n", "      - name: train-l4\n        labels:\n" + extra))
        cases.append((f"20,000 node labels ({labels.stat().st_size / 1e6:.1f} MB)",
                      ["check", "--stack-file", str(labels)]))

        base = json.loads(BAD_STATE.read_text())
        resources = []
        copies = 5_000 // len(base["deployment"]["resources"]) + 1
        for copy in range(copies):
            text = json.dumps(base["deployment"]["resources"]).replace("::acme-ml-dev", f"::acme-ml-dev-c{copy}")
            resources += json.loads(text)
        state = tmp / "state.json"
        state.write_text(json.dumps({"version": 3, "deployment": {"manifest": {}, "resources": resources}}))
        cases.append((f"state export, {len(resources):,} resources ({state.stat().st_size / 1e6:.0f} MB)",
                      ["check", "--state", str(state), "--format", "json", "--output", str(tmp / "out.json")]))

        fifo = tmp / "fifo"
        os.mkfifo(fifo)
        cases.append(("a FIFO as --plan", ["check", "--plan", str(fifo)]))
        cases.append(("/dev/zero as --state", ["check", "--state", "/dev/zero"]))
        deep = tmp / "deep.json"
        deep.write_text("[" * 100_000 + "]" * 100_000)
        cases.append(("100,000-deep JSON plan", ["check", "--plan", str(deep)]))
        bomb = tmp / "Pulumi.bomb.yaml"
        lines = ["config:", "  a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
        lines += [f"  a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
        bomb.write_text("\n".join(lines) + "\n")
        cases.append(("YAML alias bomb (10^9 values)", ["check", "--stack-file", str(bomb)]))

        print(f"{'input':<46} {'exit':>4} {'wall s':>7} {'CPU s':>6} {'peak MiB':>9}  last line")
        for label, args in cases:
            code, wall, cpu, rss, last = _run(args)
            print(f"{label:<46} {code:>4} {wall:>7.2f} {cpu:>6.2f} {rss:>9.0f}  {last}")


if __name__ == "__main__":
    main()
