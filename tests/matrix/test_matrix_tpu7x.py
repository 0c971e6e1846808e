"""TPU7x (Ironwood) in the matrix: the accelerator, what it runs (JAX and PyTorch by the newer of two readings
of Google's page; TensorFlow unsupported), no TPU VM software version (no Cloud TPU API), GKE
1.34.0-gke.2201000 or newer (Autopilot 1.34.1-gke.3084001), single-host slices (the 1-chip
tpu7x-standard-1t and the 4-chip 2x2x1) until workload policies are declared; and the example stack."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from accelplane.matrix import Verdict
from accelplane.matrix.facts import PageReading, TpuGenerationSupport
from accelplane.matrix.loader import load
from tests.support.cli_contract import run_cli
from tests.support.stack_files import write_variant

TPU7X = {"accelerator": "google-tpu7x", "python": "3.11", "jax": "0.10.2", "jaxlib": "0.10.2", "libtpu": "0.0.42"}
SOURCE = "https://cloud.google.com/tpu/docs/tpu7x"


def test_a_jax_profile_on_tpu7x_is_compatible_with_its_source(judge) -> None:
    judged = judge(TPU7X)
    assert judged.report.verdict is Verdict.COMPATIBLE, judged.dump()
    [finding] = judged.findings("tpu.generation.jax")
    assert finding.source == SOURCE and "Google publishes no minimum jax" in finding.message


def test_a_tpu_runtime_on_tpu7x_is_incompatible(judge) -> None:
    judged = judge({**TPU7X, "tpu_runtime": "v2-alpha-tpuv5"})
    assert judged.verdict("tpu.runtime") is Verdict.INCOMPATIBLE
    assert "has no TPU VM software version" in judged.message("tpu.runtime")
    # The same key on v5e is judged against v5e's runtime, as before.
    v5e = judge({**TPU7X, "accelerator": "google-tpu-v5e", "tpu_runtime": "v2-alpha-tpuv5-lite"})
    assert v5e.verdict("tpu.runtime") is Verdict.COMPATIBLE


def test_torch_xla_on_tpu7x_is_judged_by_the_newer_reading_of_googles_page(judge) -> None:
    """Issue 45: Google's tpu7x page first said "You can use the JAX framework on TPU7x", later "the JAX and
    PyTorch frameworks"; the matrix warned on torch_xla, judging by the older text."""
    judged = judge({**TPU7X, "torch": "2.9.0", "torch_xla": "2.9.0"})
    assert judged.verdict("tpu.generation.torch_xla") is Verdict.COMPATIBLE, judged.dump()
    assert "runs torch_xla by the newest of 2 readings" in judged.message("tpu.generation.torch_xla")


def test_both_readings_of_the_tpu7x_page_are_kept_in_order() -> None:
    [generation] = [g for g in load().tpu.generations if g.accelerator == "google-tpu7x"]
    older, newer = sorted(generation.readings, key=lambda reading: reading.read)
    assert "you must use Google Kubernetes Engine (GKE)" in older.says and older.frameworks == ("jax",)
    assert "GKE) or Compute Engine" in newer.says and set(newer.frameworks) == {"jax", "torch_xla"}
    assert generation.tpu_vm_runtime is False  # "Compute Engine" is its TPU machine types: no Cloud TPU API


def test_frameworks_other_than_the_newest_readings_are_refused() -> None:
    reading = {"source": SOURCE, "dated": "d", "says": "s"}
    with pytest.raises(ValidationError, match="the matrix judges by the newest reading"):
        TpuGenerationSupport(
            accelerator="google-tpu7x", frameworks=("jax",), source=SOURCE,
            readings=(PageReading(read=1, frameworks=("jax",), **reading),
                      PageReading(read=2, frameworks=("jax", "torch_xla"), **reading)),
        )


def test_the_example_ironwood_stack_previews_and_checks() -> None:
    preview = run_cli(["preview", "--stack", "ironwood-dev"])
    assert preview.code == 0, preview.err
    assert "train-tpu7x      tpu7x-jax        google-tpu7x             compatible" in preview.out
    assert run_cli(["check", "--stack", "ironwood-dev"]).code == 0


def test_gke_below_ironwoods_minimum_is_refused(tmp_path: Path) -> None:
    path, _ = write_variant(tmp_path, 'gke_version: "1.34.0-gke.2201000"', 'gke_version: "1.33.5-gke.1162000"',
                            stack="ironwood-dev")
    outcome = run_cli(["preview", "--stack-file", str(path)])
    assert outcome.code == 2
    assert ("TPU tpu7x pools need GKE 1.34.0-gke.2201000 or newer (pool train-tpu7x; GKE Standard, the cluster "
            "accelplane declares; on Autopilot 1.34.1-gke.3084001 or newer)") in outcome.err


def test_the_one_chip_tpu7x_machine_type_previews_as_a_single_host_slice(tmp_path: Path) -> None:
    """Issue 45: tpu7x-standard-1t (1 chip, topology 1x1x1 in Google's XPK) was missing."""
    path, _ = write_variant(tmp_path, "tpu_topology: 2x2x1", "tpu_topology: 1x1x1", stack="ironwood-dev")
    path.write_text(path.read_text().replace("tpu7x-standard-4t", "tpu7x-standard-1t"))
    outcome = run_cli(["preview", "--stack-file", str(path), "--json", "-"])
    assert outcome.code == 0, outcome.err
    assert '"machineType": "tpu7x-standard-1t"' in outcome.out.replace(": ", ": ")
    assert '"cloud.google.com/gke-tpu-topology": "1x1x1"' in outcome.out


def test_a_multi_host_tpu7x_slice_is_refused_until_workload_policies(tmp_path: Path) -> None:
    path, line = write_variant(tmp_path, "tpu_topology: 2x2x1", "tpu_topology: 2x2x2", stack="ironwood-dev")
    outcome = run_cli(["preview", "--stack-file", str(path)])
    assert outcome.code == 2
    assert f":{line}: accelplane:platform.node_pools[1].tpu_topology: a multi-host TPU7x slice (2x2x2, 2 VMs)" \
        in outcome.err
