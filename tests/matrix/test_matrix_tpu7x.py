"""TPU7x (Ironwood) in the matrix: the accelerator, what it runs (JAX; TensorFlow unsupported), no TPU VM
software version (GKE only), GKE 1.34.0-gke.2201000 or newer, single-host slices only until workload
policies are declared; and the example stack that uses it."""

from __future__ import annotations

from pathlib import Path

from accelplane.matrix import Verdict
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


def test_torch_xla_on_tpu7x_is_a_warning_naming_what_google_documents(judge) -> None:
    judged = judge({**TPU7X, "torch": "2.9.0", "torch_xla": "2.9.0"})
    assert judged.verdict("tpu.generation.torch_xla") is Verdict.WARN
    assert "Google documents jax for it, not torch_xla" in judged.message("tpu.generation.torch_xla")


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
    assert "TPU tpu7x pools need GKE 1.34.0-gke.2201000 or newer (pool train-tpu7x)" in outcome.err


def test_a_multi_host_tpu7x_slice_is_refused_until_workload_policies(tmp_path: Path) -> None:
    path, line = write_variant(tmp_path, "tpu_topology: 2x2x1", "tpu_topology: 2x2x2", stack="ironwood-dev")
    outcome = run_cli(["preview", "--stack-file", str(path)])
    assert outcome.code == 2
    assert f":{line}: accelplane:platform.node_pools[1].tpu_topology: a multi-host TPU7x slice (2x2x2, 2 VMs)" \
        in outcome.err
