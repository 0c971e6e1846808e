"""The `kubernetes` section is checked per cloud: what the add-ons profile pins, how many TPU chips a
replica takes, where a replica may run, how many nodes a TPU training job takes; each refusal names
the file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from accelplane.cloud_support import cloud_support
from accelplane.clouds.aws.declaration import AwsNodePool
from accelplane.clouds.gcp.declaration import GcpNodePool
from accelplane.config.loader import load_stack_file
from accelplane.errors import InputError
from tests.support.stack_files import line_of, write_variant


def _problems(path: Path) -> list[str]:
    with pytest.raises(InputError) as caught:
        load_stack_file(path)
    return [str(problem) for problem in caught.value.problems]


def test_gke_needs_no_load_balancer_controller_or_device_plugin_charts() -> None:
    aws, gcp = cloud_support("aws"), cloud_support("gcp")
    assert "aws_load_balancer_controller" in aws.addon_fields()
    assert gcp.addon_fields() == ("kueue", "jobset", "kube_prometheus_stack")
    assert aws.vendor_plugin_fields("nvidia") == ("nvidia_device_plugin", "dcgm_exporter")
    assert gcp.vendor_plugin_fields("nvidia") == () and gcp.vendor_plugin_fields("google") == ()
    assert AwsNodePool.model_construct(efa=True).fabric_plugin_field() == "efa_device_plugin"
    assert AwsNodePool.model_construct(efa=False).fabric_plugin_field() is None
    assert GcpNodePool.model_construct().fabric_plugin_field() is None


def test_an_eks_add_ons_profile_still_pins_the_controller(tmp_path: Path) -> None:
    path, _ = write_variant(tmp_path, '        aws_load_balancer_controller: "1.13.0"\n', "")
    [message] = _problems(path)
    assert "software_profiles.cluster-addons.aws_load_balancer_controller" in message
    assert "must pin aws_load_balancer_controller" in message


def test_a_gke_add_ons_profile_pins_kueue(tmp_path: Path) -> None:
    path, _ = write_variant(tmp_path, '        kueue: "0.14.2"\n', "", stack="tpu-prod")
    [message] = _problems(path)
    assert "software_profiles.cluster-addons.kueue" in message and "must pin kueue" in message


def test_a_tpu_replica_takes_all_of_its_vm_s_chips(tmp_path: Path) -> None:
    path, line = write_variant(tmp_path, "          accelerators_per_replica: 8\n",
                               "          accelerators_per_replica: 4\n", stack="tpu-prod")
    [message] = _problems(path)
    assert f"{path}:{line}:" in message
    assert "kubernetes.inference_services[0].backends[1].accelerators_per_replica" in message
    assert "takes the VM's 8 TPU chips, not 4" in message


def test_an_inference_replica_never_runs_on_a_multi_host_slice(tmp_path: Path) -> None:
    path, _ = write_variant(tmp_path, "        instance_type: ct5lp-hightpu-8t\n        tpu_topology: 2x4\n",
                            "        instance_type: ct5lp-hightpu-4t\n        tpu_topology: 4x4\n", stack="tpu-prod")
    problems = _problems(path)
    assert any("kubernetes.inference_services[0].backends[1].node_pool" in p and "multi-host 4x4 slice" in p
               for p in problems), problems


def test_a_tpu_training_job_takes_whole_slices(tmp_path: Path) -> None:
    old = "          workload: pretrain\n          image: us-central1-docker.pkg.dev/acme-ml-tpu-prod/training/maxtext"
    new = old.replace("workload: pretrain\n", "workload: pretrain\n          nodes: 6\n")
    path, _ = write_variant(tmp_path, old, new, stack="tpu-prod")
    [message] = _problems(path)
    assert f"{path}:{line_of(path, 'nodes: 6')}:" in message
    assert "kubernetes.training_templates[0].nodes" in message
    assert "multiple of 4 up to 8, not 6" in message
