"""Every kind of bad declaration is refused with file, line, field path and what was expected."""

from __future__ import annotations

from pathlib import Path

import pytest

from accelplane.cli import main
from accelplane.config.loader import load_stack_file
from accelplane.errors import InputError
from tests.support.stack_files import line_of, stack_text, write_variant


def _error(path: Path) -> InputError:
    with pytest.raises(InputError) as caught:
        load_stack_file(path)
    return caught.value


def _single(path: Path) -> str:
    error = _error(path)
    assert len(error.problems) == 1, str(error)
    return str(error.problems[0])


def test_malformed_yaml_names_file_and_line(tmp_path: Path) -> None:
    path, line = write_variant(tmp_path, "    region: us-east-1\n", "    region: [us-east-1\n")
    message = _single(path)
    assert message.startswith(f"{path}:")
    assert "malformed YAML" in message
    reported = int(message.split(":")[1])
    assert line <= reported <= line + 2


def test_duplicate_key_is_refused_not_silently_overwritten(tmp_path: Path) -> None:
    path, line = write_variant(tmp_path, "    region: us-east-1\n", "    region: us-east-1\n    region: us-west-2\n")
    message = _single(path)
    assert f"{path}:{line + 1}:" in message and "duplicate key 'region'" in message


def test_unknown_key_lists_the_allowed_ones(tmp_path: Path) -> None:
    path, line = write_variant(tmp_path, "        disk_gib: 200\n", "        disk_gib: 200\n        dsik_gib: 200\n")
    message = _single(path)
    assert f"{path}:{line + 1}: accelplane:platform.node_pools[1].dsik_gib: unknown key" in message
    assert "disk_gib" in message  # the key the user meant is offered


def test_unknown_key_inside_a_software_profile(tmp_path: Path) -> None:
    path, line = write_variant(tmp_path, '        cuda: "13.0"\n', '        cuda: "13.0"\n        cudaa: "13.0"\n')
    message = _single(path)
    assert f":{line + 1}: accelplane:platform.software_profiles.l4-cuda13.cudaa: unknown key" in message
    assert "driver" in message


def test_wrong_type_names_field_and_value(tmp_path: Path) -> None:
    path, line = write_variant(tmp_path, "disk_gib: 200", "disk_gib: lots")
    message = _single(path)
    assert f"{path}:{line}: accelplane:platform.node_pools[1].disk_gib:" in message
    assert "integer" in message and "'lots'" in message


def test_unknown_enum_value_lists_the_choices(tmp_path: Path) -> None:
    path, line = write_variant(tmp_path, "purpose: inference", "purpose: serving")
    message = _single(path)
    assert f":{line}: accelplane:platform.node_pools[1].purpose:" in message
    assert "'training', 'inference' or 'general'" in message


def test_scaling_min_above_max(tmp_path: Path) -> None:
    path, line = write_variant(
        tmp_path, "scaling: {min: 0, desired: 1, max: 2}", "scaling: {min: 3, desired: 1, max: 2}"
    )
    message = _single(path)
    assert f"{path}:{line}: accelplane:platform.node_pools[1].scaling: expected min <= desired <= max" in message
    assert "min=3" in message


def test_subnet_outside_the_vpc(tmp_path: Path) -> None:
    path, _ = write_variant(
        tmp_path, "private_subnets: [10.40.0.0/19, 10.40.32.0/19]", "private_subnets: [10.40.0.0/19, 10.41.32.0/19]"
    )
    message = _single(path)
    line = line_of(path, "private_subnets:")
    assert f"{path}:{line}: accelplane:platform.network.new_vpc.private_subnets[1]:" in message
    assert "10.41.32.0/19 is outside the VPC 10.40.0.0/16" in message


def test_malformed_cidr(tmp_path: Path) -> None:
    path, line = write_variant(tmp_path, "cidr: 10.40.0.0/16", "cidr: 10.40.0.1/16")
    message = _single(path)
    assert f":{line}: accelplane:platform.network.new_vpc.cidr:" in message and "CIDR" in message


def test_pool_naming_a_missing_profile(tmp_path: Path) -> None:
    text_old = (
        "        software_profile: l4-cuda13\n        capacity: {type: spot}\n        scaling: {min: 0, desired: 0"
    )
    path, line = write_variant(tmp_path, text_old, text_old.replace("l4-cuda13", "l4-cuda14"))
    message = _single(path)
    assert f"{path}:{line}: accelplane:platform.node_pools[2].software_profile:" in message
    assert "no software profile named 'l4-cuda14'; declared: cluster-addons, l4-cuda13" in message


def test_instance_type_that_does_not_exist(tmp_path: Path) -> None:
    path, line = write_variant(tmp_path, "instance_type: g6.xlarge", "instance_type: g6.xlargee")
    message = _single(path)
    assert f"{path}:{line}: accelplane:platform.node_pools[1].instance_type:" in message
    assert "'g6.xlargee' does not exist in EC2" in message
    # A typo gets the nearest real names (it got none).
    assert "; did you mean g6.xlarge" in message


def test_efa_pool_on_an_instance_type_without_efa(tmp_path: Path) -> None:
    path, _ = write_variant(tmp_path, "instance_type: g6.xlarge\n", "instance_type: g6.xlarge\n        efa: true\n")
    # (the Kubernetes layer also asks the profile for an EFA device plugin version: a second problem)
    message = str(_error(path))
    line = line_of(path, "efa: true")
    assert (
        f"{path}:{line}: accelplane:platform.node_pools[1].efa: instance type g6.xlarge does not support EFA" in message
    )


def test_accelerator_that_the_instance_type_does_not_carry(tmp_path: Path) -> None:
    path, line = write_variant(tmp_path, "instance_type: g6.xlarge", "instance_type: p5.48xlarge")
    message = str(_error(path))
    assert f":{line}: accelplane:platform.node_pools[1].instance_type: p5.48xlarge carries 8 x NVIDIA H100" in message


def test_tls_policy_allowing_tls_1_0_is_refused(tmp_path: Path) -> None:
    path, line = write_variant(
        tmp_path, "tls_policy: ELBSecurityPolicy-TLS13-1-2-2021-06", "tls_policy: ELBSecurityPolicy-2016-08"
    )
    message = _single(path)
    assert f":{line}: accelplane:platform.inference_endpoint.tls_policy:" in message and "TLS 1.2" in message


def test_storage_class_typo(tmp_path: Path) -> None:
    path, line = write_variant(tmp_path, "storage_class: INTELLIGENT_TIERING", "storage_class: INTELLIGENT")
    message = _single(path)
    assert ".lifecycle[0].transitions[0].storage_class: unknown S3 storage class 'INTELLIGENT'" in message
    assert f":{line}:" in message


def test_workload_granted_an_undeclared_bucket(tmp_path: Path) -> None:
    path, line = write_variant(
        tmp_path, '{role: datasets, access: read, prefix: "corpora/"}', '{role: logs, access: read, prefix: "corpora/"}'
    )
    message = _single(path)
    assert f":{line}: accelplane:platform.workloads[0].buckets[0].role: no bucket with role 'logs'" in message


def test_all_problems_are_reported_at_once(tmp_path: Path) -> None:
    path, _ = write_variant(tmp_path, "instance_type: g6.xlarge", "instance_type: nope.large")
    text = path.read_text().replace("scaling: {min: 2, desired: 2, max: 3}", "scaling: {min: 4, desired: 2, max: 3}")
    path.write_text(text)
    assert len(_error(path).problems) == 2


def test_cli_exits_2_without_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, line = write_variant(tmp_path, "instance_type: g6.xlarge", "instance_type: g6.xlargee")
    assert main(["preview", "--stack-file", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"Pulumi.dev.yaml:{line}: accelplane:platform.node_pools[1].instance_type" in err
    assert "Traceback" not in err


def test_missing_stack_names_the_expected_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["preview", "--stack", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "Pulumi.nosuch.yaml" in err and "stacks here: " in err and "dev" in err


def test_inference_image_must_be_pinned_by_digest(tmp_path: Path) -> None:
    path, line = write_variant(
        tmp_path,
        "image: 111122223333.dkr.ecr.us-east-1.amazonaws.com/llm-server@sha256:",
        "image: 111122223333.dkr.ecr.us-east-1.amazonaws.com/llm-server:latest #",
    )
    message = _single(path)
    assert f":{line}: accelplane:platform.kubernetes.inference_services[0].image:" in message
    assert "String should match pattern" in message


def test_inference_service_on_a_training_pool(tmp_path: Path) -> None:
    path, line = write_variant(tmp_path, "node_pool: infer-l4", "node_pool: train-l4")
    message = _single(path)
    assert f":{line}: accelplane:platform.kubernetes.inference_services[0].node_pool:" in message
    assert "'train-l4' is not an accelerator inference pool" in message


def test_one_device_plugin_version_per_cluster(tmp_path: Path) -> None:
    path, _ = write_variant(tmp_path, 'nvidia_device_plugin: "0.18.0"', 'nvidia_device_plugin: "0.17.1"', stack="prod")
    message = _single(path)
    assert (
        "accelplane:platform.node_pools[2].software_profile: nvidia_device_plugin 0.18.0 differs from 0.17.1" in message
        and "one version runs per cluster" in message
    )


def test_neuron_profile_without_the_exporter_image_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = stack_text("prod")
    start = text.index("        neuron_monitor_image: ")
    (tmp_path / "Pulumi.prod.yaml").write_text(text[:start] + text[text.index("\n", start) + 1 :])
    path = tmp_path / "Pulumi.prod.yaml"
    line = line_of(path, "      trn1-neuron:\n") + 1  # the profile's first key
    message = _single(path)
    assert f"{path}:{line}: accelplane:platform.software_profiles.trn1-neuron.neuron_monitor_image:" in message
    assert "pool train-trn1 (aws-trainium) runs on this profile, which must pin neuron_monitor_image" in message
    assert main(["preview", "--stack-file", str(path)]) == 2
    err = capsys.readouterr().err
    assert "trn1-neuron.neuron_monitor_image" in err and "Traceback" not in err


def test_exporter_image_must_be_pinned_by_digest(tmp_path: Path) -> None:
    path, line = write_variant(
        tmp_path,
        "neuron_monitor_image: 444455556666.dkr.ecr.us-west-2.amazonaws.com/neuron/neuron-monitor@sha256:",
        "neuron_monitor_image: public.ecr.aws/neuron/neuron-monitor:1.3.0 #",
        stack="prod",
    )
    message = _single(path)
    assert f":{line}: accelplane:platform.software_profiles.trn1-neuron.neuron_monitor_image:" in message
    assert "String should match pattern" in message
