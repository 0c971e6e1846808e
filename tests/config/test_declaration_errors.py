"""A declaration's mistakes come back all at once, each with the nearest names a typo was meant to be,
and a version YAML read as a number says to quote it."""

from __future__ import annotations

from pathlib import Path

import pytest

from accelplane.config.json_schema import stack_file_schema
from accelplane.config.loader import load_stack_text
from accelplane.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()


def _problems(text: str) -> list[str]:
    with pytest.raises(InputError) as raised:
        load_stack_text(text, path="Pulumi.dev.yaml", stack="dev")
    return [str(problem) for problem in raised.value.problems]


def test_independent_mistakes_come_back_in_one_run_with_the_nearest_names() -> None:
    text = DEV.replace('python: "3.11"', "python: 3.10", 1)
    text = text.replace("accelerator: nvidia-l4\n", "accelerator: nvidia-l4x\n", 1)
    text = text.replace("    kubernetes_version:", "    kubernetes_versoin: x\n    kubernetes_version:", 1)
    found = "\n".join(_problems(text))
    assert "kubernetes_versoin: unknown key; did you mean kubernetes_version" in found
    assert 'got the number 3.1: YAML reads an unquoted version as a number, 3.10 as 3.1; quote it, e.g. "3.10"' in found
    assert "unknown accelerator 'nvidia-l4x'; did you mean nvidia-l4" in found  # a cross-field check, same run


def test_an_accelerator_typo_lists_the_nearest_few_not_the_vocabulary() -> None:
    [message] = [p for p in _problems(DEV.replace("accelerator: nvidia-l4\n", "accelerator: nvidia-l40-s\n", 1))
                 if "unknown accelerator" in p]
    assert "did you mean nvidia-l40s" in message and "amd-mi300x" not in message


def test_the_json_schema_closes_accelerators_and_tpu_topologies() -> None:
    definitions = stack_file_schema()["$defs"]
    pool = definitions["GcpNodePool"]["properties"]
    accelerators = pool["accelerator"]["anyOf"][0]["enum"]
    topologies = pool["tpu_topology"]["anyOf"][0]["enum"]
    assert {"nvidia-l4", "nvidia-hgx-h100-8gpu", "google-tpu-v5p"} <= set(accelerators)
    assert {"2x2x4", "2x4"} <= set(topologies)
    assert definitions["HostGroup"]["properties"]["accelerator"]["enum"] == accelerators
    assert definitions["AwsNodePool"]["properties"]["accelerator"]["anyOf"][0]["enum"] == accelerators
    assert "tpu_topology" not in definitions["AwsNodePool"]["properties"]  # a Google Cloud key: not offered on AWS


def test_every_closed_vocabulary_names_its_nearest_word() -> None:
    """An enum (a pool's purpose, a bucket role...) says which word was meant, not only the list."""
    [message] = [p for p in _problems(DEV.replace("purpose: training", "purpose: trainng", 1)) if "purpose" in p]
    assert "(got 'trainng'; did you mean training?)" in message


@pytest.mark.parametrize(("cloud", "message"), [
    ("gpc", "accelplane:platform.cloud: no cloud 'gpc'; did you mean gcp? (installed clouds: aws, gcp)"),
    ("3", "accelplane:platform.cloud: no cloud 3 (installed clouds: aws, gcp)"),
])
def test_a_cloud_not_installed_is_refused_naming_the_installed_ones(cloud: str, message: str) -> None:
    [problem] = _problems(DEV.replace("    name: acme-ml-dev\n", f"    cloud: {cloud}\n    name: acme-ml-dev\n", 1))
    assert problem == f"Pulumi.dev.yaml:7: {message}"


def test_another_clouds_key_is_refused_once_naming_that_cloud() -> None:
    """dev is an AWS stack (no `cloud:`): a Google Cloud pool key is the model's to refuse, once."""
    problems = _problems(DEV.replace("        instance_type: g6.xlarge\n",
                                     "        instance_type: g6.xlarge\n        gpu_driver: latest\n", 1))
    assert [p for p in problems if "gpu_driver" in p] == [
        "Pulumi.dev.yaml:53: accelplane:platform.node_pools[1].gpu_driver: gpu_driver is for cloud: gcp stacks; "
        "remove it (or set cloud: gcp)"]
