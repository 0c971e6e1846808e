"""Benchmark the version matrix: data load, checking the prod stack's profiles, a wider set of
realistic profiles across vendors, and resolve. Prints figures; asserts nothing about time.

    .venv/bin/python bench/bench_matrix.py [--repeat N]
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

AS_OF = dt.date(2026, 12, 2)

# Realistic profiles across vendors (what stack files pin), used besides the prod stack's own.
PROFILES: list[dict[str, str]] = [
    {
        "accelerator": "nvidia-hgx-h100-8gpu",
        "instance": "p5.48xlarge",
        "os": "amazon-linux-2023",
        "python": "3.11",
        "driver": "570.172.08",
        "kernel_module": "open",
        "fabric_manager": "570.172.08",
        "cuda": "12.8",
        "cudnn": "9.10.2.21",
        "nccl": "2.27.3",
        "nccl_package": "nvidia-nccl-cu12",
        "torch": "2.8.0",
        "efa_installer": "1.43.2",
        "aws_ofi_nccl": "1.16.3",
    },
    {
        "accelerator": "nvidia-l40s",
        "instance": "g6e.2xlarge",
        "os": "amazon-linux-2023",
        "python": "3.11",
        "driver": "570.172.08",
        "kernel_module": "open",
        "cuda": "12.8",
        "cudnn": "9.10.2.21",
        "nccl": "2.27.3",
        "nccl_package": "nvidia-nccl-cu12",
        "torch": "2.8.0",
    },
    {
        "accelerator": "nvidia-l4",
        "instance": "g6.xlarge",
        "os": "amazon-linux-2023",
        "python": "3.11",
        "driver": "580.95.05",
        "kernel_module": "open",
        "cuda": "13.0",
        "nccl": "2.28.9",
        "nccl_package": "nvidia-nccl-cu13",
        "torch": "2.11.0",
    },
    {
        "accelerator": "nvidia-hgx-b200-8gpu",
        "instance": "p6-b200.48xlarge",
        "os": "ubuntu-24.04",
        "python": "3.12",
        "driver": "595.71.05",
        "kernel_module": "open",
        "fabric_manager": "595.71.05",
        "cuda": "13.2.2",
        "cudnn": "9.26.0.51",
        "nccl": "2.30.7",
        "nccl_package": "nvidia-nccl-cu13",
        "torch": "2.15.0",
        "torchvision": "0.29.2",
        "efa_installer": "1.50.0",
        "aws_ofi_nccl": "1.21.1",
    },
    {
        "accelerator": "nvidia-a10g",
        "instance": "g5.2xlarge",
        "os": "ubuntu-22.04",
        "python": "3.10",
        "driver": "535.104.05",
        "cuda": "12.4",
        "torch": "2.6.0",
        "torchvision": "0.21.0",
    },
    {
        "accelerator": "amd-mi300x",
        "os": "ubuntu-22.04",
        "python": "3.12",
        "rocm": "6.3.3",
        "amdgpu_kmd": "6.3.3",
        "torch": "2.7.1+rocm6.3",
        "nccl": "2.21.5",
    },
    {
        "accelerator": "aws-trainium",
        "instance": "trn1.32xlarge",
        "os": "amazon-linux-2023",
        "python": "3.11",
        "neuron_sdk": "2.31.1",
        "torch_neuronx": "2.9.0.2.15.32035",
        "torch": "2.9.0",
        "efa_installer": "1.43.2",
    },
    {
        "accelerator": "aws-trainium2",
        "instance": "trn2.48xlarge",
        "python": "3.11",
        "neuron_sdk": "2.24.1",
        "torch_neuronx": "2.7.0.2.8.6734",
        "torch": "2.7.0",
    },
    {
        "accelerator": "google-tpu-v6e",
        "python": "3.12",
        "jax": "0.8.2",
        "jaxlib": "0.8.2",
        "libtpu": "0.0.32.1",
        "tpu_runtime": "v2-alpha-tpuv6e",
    },
    {
        "accelerator": "intel-gaudi3",
        "os": "ubuntu-22.04",
        "python": "3.10",
        "gaudi_sw": "1.19.0",
        "torch": "2.5.1",
    },
    {
        "accelerator": "huawei-ascend-910b",
        "python": "3.11",
        "cann": "9.1.0",
        "torch_npu": "2.12.0",
        "torch": "2.12.0",
    },
]


def prod_profiles() -> list[dict[str, str]]:
    """(pool accelerator, profile) stacks of stacks/Pulumi.prod.yaml, as preview checks them."""
    try:
        from accelplane.config.loader import load_stack

        platform = load_stack("prod").platform
    except Exception as error:  # the config layer is another engineer's; the bench must still run
        print(f"  (prod stack not loadable here: {error}; using the built-in profiles only)")
        return []
    stacks = []
    for pool in platform.node_pools:
        profile = platform.pool_profile(pool)
        if profile is not None and pool.accelerator:
            stacks.append(profile.matrix_stack(pool.accelerator, pool.instance_type))
    return stacks


def timed(fn, repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return samples


def describe(label: str, samples: list[float], unit_count: int = 1) -> None:
    ms = [s * 1000 for s in samples]
    per = statistics.median(ms) / unit_count
    print(
        f"  {label:<58} median {statistics.median(ms):8.2f} ms   p95 "
        f"{sorted(ms)[int(0.95 * (len(ms) - 1))]:8.2f} ms"
        f"   ({per:.3f} ms each)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()

    cold = subprocess.run(
        [
            sys.executable,
            "-c",
            "import time; t=time.perf_counter(); from accelplane.matrix import load; load(); "
            "print(time.perf_counter()-t)",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    print("version matrix benchmark")
    print(
        "  cold import + load + validate of every data file (fresh process): "
        f"{float(cold.stdout) * 1000:.1f} ms"
    )

    from accelplane.matrix import check, load, resolve

    load()
    prod = prod_profiles()
    if prod:
        describe(
            f"check every prod pool profile ({len(prod)} stacks)",
            timed(lambda: [check(s, as_of=AS_OF) for s in prod], args.repeat),
            len(prod),
        )
    describe(
        f"check {len(PROFILES)} realistic profiles across vendors",
        timed(lambda: [check(s, as_of=AS_OF) for s in PROFILES], args.repeat),
        len(PROFILES),
    )
    verdicts = {s["accelerator"]: check(s, as_of=AS_OF).verdict.value for s in PROFILES}
    print("  verdicts:", ", ".join(f"{k}={v}" for k, v in verdicts.items()))
    for name in ("nvidia-hgx-h100-8gpu", "nvidia-v100", "amd-mi300x", "aws-trainium2", "google-tpu-v5e"):
        describe(f"resolve {name}", timed(lambda n=name: resolve(n, as_of=AS_OF), max(5, args.repeat // 20)))

    from accelplane.matrix import accelerators
    from accelplane.matrix.resolver import NoProfileFoundError

    names = sorted(accelerators())

    def resolve_all() -> int:
        found = 0
        for name in names:
            try:
                resolve(name, as_of=AS_OF)
                found += 1
            except NoProfileFoundError:  # Kepler, MI25, MI60: no torch build in the matrix fits
                pass
        return found

    describe(f"resolve every accelerator of the vocabulary ({len(names)})", timed(resolve_all, 1), len(names))
    print(f"  profiles found for {resolve_all()} of {len(names)} accelerators")


if __name__ == "__main__":
    main()
