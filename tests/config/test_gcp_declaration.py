"""A Google Cloud declaration is refused, with its file, line and field, wherever it disagrees with
Google's facts (machine types, TPU shapes and zones, label rules, GKE versions) or carries a key
only the other cloud reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from accelplane.cli import main
from accelplane.config.loader import load_stack_file
from accelplane.errors import InputError
from tests.support.stack_files import write_variant


def _problems(path: Path) -> list[str]:
    with pytest.raises(InputError) as caught:
        load_stack_file(path)
    return [str(p) for p in caught.value.problems]


@pytest.mark.parametrize(
    ("old", "new", "field", "expected"),
    [
        # TPU shapes: the topology must exist for the machine type.
        ("        tpu_topology: 2x2x4\n", "        tpu_topology: 3x3x3\n", "node_pools[1].tpu_topology",
         "ct5p-hightpu-4t has no 3x3x3 slice"),
        ("        tpu_topology: 2x2x4\n", "", "node_pools[1].tpu_topology", "required for TPU pools"),
        # A multi-host slice is atomic: a fixed number of whole slices, in one zone.
        ("        scaling: {min: 2, desired: 2, max: 2}\n", "        scaling: {min: 1, desired: 2, max: 2}\n",
         "node_pools[1].scaling", "scaling counts whole slices and must be fixed"),
        ("        zones: [us-central1-a]\n        software_profile: v5p-jax\n",
         "        zones: [us-central1-a, us-central1-b]\n        software_profile: v5p-jax\n",
         "node_pools[1].zones", "a multi-host TPU slice lives in one zone"),
        # Zones must offer the accelerator.
        ("        zones: [us-central1-a]\n        software_profile: v5p-jax\n",
         "        zones: [us-central1-b]\n        software_profile: v5p-jax\n",
         "node_pools[1].zones[0]", "TPU v5p is not offered in us-central1-b"),
        # Machine type and accelerator agree.
        ("        accelerator: nvidia-hgx-h100-8gpu\n", "        accelerator: nvidia-l4\n",
         "node_pools[3].instance_type", "a3-highgpu-8g carries 8 x nvidia-h100-80gb; declare accelerator: "
         "nvidia-hgx-h100-8gpu"),
        ("        instance_type: n2-standard-8\n", "        instance_type: n9-imaginary-8\n",
         "node_pools[0].instance_type", "machine type 'n9-imaginary-8' is not one accelplane knows"),
        # The driver of a GPU pool GKE installs the driver for is GKE's, not the profile's (it was accepted
        # while the plan said gpuDriverVersion: DEFAULT and the node label claimed the typed driver).
        ('        description: A3 H100 inference (the rollout\'s baseline); GKE installs its default driver for 1.33\n',
         '        description: A3 H100 inference (the rollout\'s baseline); GKE installs its default driver for 1.33\n'
         '        driver: "535.104.05"\n',
         "software_profiles.h100-serve-gke.driver",
         "driver 535.104.05 is not what pool infer-h100 runs: with gpu_driver: default GKE installs the driver "
         "GKE 1.33.5-gke.1162000 pins as default"),
        # Cloud Armor's threshold count: a throttle 1..1,000,000, a rate-based ban 1..10,000 (Google's rate
        # limiting overview); up to 2^31-1 was accepted.
        ("rate_limit: {requests: 600,", "rate_limit: {requests: 1000001,",
         "kubernetes.inference_services[0].rate_limit.requests",
         "Cloud Armor counts at most 1,000,000 requests for a throttle's threshold, got 1,000,001"),
        ("rate_limit: {requests: 600,", "rate_limit: {action: ban, ban_seconds: 600, requests: 10001,",
         "kubernetes.inference_services[0].rate_limit.requests",
         "Cloud Armor counts at most 10,000 requests for a rate-based ban's (action: ban) threshold, got 10,001"),
        # A typo of a machine type gets the nearest real names (it got none).
        ("        instance_type: n2-standard-8\n", "        instance_type: n2-standard-88\n",
         "node_pools[0].instance_type", "; did you mean n2-standard-8"),
        ("        gpu_driver: default\n", "        gpu_driver: latest\n        tpu_topology: 2x2\n",
         "node_pools[3].tpu_topology", "tpu_topology is for TPU pools"),
        # Reservations name a Compute Engine reservation, not an EC2 one.
        ("reservation: acme-v5p-2x2x4}", "reservation_id: cr-0123456789abcdef0}",
         "node_pools[1].capacity.reservation_id", "reservation_id is for cloud: aws stacks"),
        # EKS's own pins are an AWS profile's keys: a GKE stack's profile pinning an EKS AMI release or the AWS
        # Load Balancer Controller chart was accepted and ignored (the fields sat in the neutral profile).
        ('        description: A3 H100 inference (the rollout\'s baseline); GKE installs its default driver for 1.33\n',
         '        description: A3 H100 inference (the rollout\'s baseline); GKE installs its default driver for 1.33\n'
         '        ami_release_version: 1.33.5-20251120\n',
         "software_profiles.h100-serve-gke.ami_release_version", "ami_release_version is for cloud: aws stacks"),
        ('        description: A3 H100 inference (the rollout\'s baseline); GKE installs its default driver for 1.33\n',
         '        description: A3 H100 inference (the rollout\'s baseline); GKE installs its default driver for 1.33\n'
         '        aws_load_balancer_controller: 1.13.4\n',
         "software_profiles.h100-serve-gke.aws_load_balancer_controller",
         "aws_load_balancer_controller is for cloud: aws stacks"),
        # Project settings and versions.
        ('      gke_version: "1.33.5-gke.1162000"\n', "", "gcp.gke_version",
         "required unless gcp.release_channel is declared"),
        ('      gke_version: "1.33.5-gke.1162000"\n', '      gke_version: "1.32.9-gke.1000"\n', "gcp.gke_version",
         "1.32.9-gke.1000 is not a 1.33 version"),
        ("      zones: [us-central1-a, us-central1-b]\n", "      zones: [us-east1-a, us-central1-b]\n",
         "gcp.zones[0]", "zone 'us-east1-a' is not a zone of region us-central1"),
        # Network ranges.
        ("        control_plane_cidr: 172.16.0.32/28\n", "        control_plane_cidr: 172.16.0.0/24\n",
         "network.vpc.control_plane_cidr", "GKE's private control plane takes exactly a /28"),
        ("        services_cidr: 10.36.0.0/20\n", "        services_cidr: 10.30.0.0/24\n",
         "network.vpc.services_cidr", "overlaps node_cidr 10.30.0.0/20"),
        # Labels follow Google's rules.
        ("      extra: {data-classification: confidential}\n", "      extra: {Data-Class: confidential}\n",
         "tags.extra.Data-Class", "label key 'Data-Class'"),
        ("      extra: {data-classification: confidential}\n", "      extra: {data-classification: Confidential}\n",
         "tags.extra.data-classification", "label value 'Confidential'"),
        # GCS storage classes, not S3 ones.
        ("{days: 30, storage_class: NEARLINE}", "{days: 30, storage_class: GLACIER_IR}",
         "buckets[1].lifecycle[0].transitions[0].storage_class", "unknown Cloud Storage class 'GLACIER_IR'"),
        # The endpoint's certificate is a Certificate Manager certificate.
        ("      certificate: projects/acme-ml-tpu-prod/locations/global/certificates/llm-acme-example\n", "",
         "inference_endpoint.certificate", "required field is missing"),
    ],
)
def test_google_cloud_facts_are_checked(tmp_path: Path, old: str, new: str, field: str, expected: str) -> None:
    path, _ = write_variant(tmp_path, old, new, stack="tpu-prod")
    problems = _problems(path)
    assert any(f"accelplane:platform.{field}: " in p and expected in p for p in problems), problems


def test_a_missing_slice_names_the_shapes_the_machine_type_offers(tmp_path: Path) -> None:
    """It said "ct5lp-hightpu-8t has no 2x2x2 slice (it offers 1 shapes; the JSON Schema lists them)"."""
    path, _ = write_variant(tmp_path, "        tpu_topology: 2x4\n", "        tpu_topology: 2x2x2\n", stack="tpu-prod")
    problems = _problems(path)
    assert any(p.endswith("tpu_topology: ct5lp-hightpu-8t has no 2x2x2 slice (it offers 2x4)") for p in problems), \
        problems


def test_aws_keys_on_a_google_cloud_stack_are_refused(tmp_path: Path) -> None:
    path, line = write_variant(tmp_path, "      vpc:\n", "      new_vpc: {cidr: 10.0.0.0/16, availability_zones: [a], "
                               "private_subnets: [10.0.0.0/24]}\n      vpc:\n", stack="tpu-prod")
    problems = _problems(path)
    assert any(p.startswith(f"{path}:{line}: accelplane:platform.network.new_vpc: new_vpc is for cloud: aws stacks")
               for p in problems), problems


def test_google_keys_on_an_aws_stack_are_refused(tmp_path: Path) -> None:
    path, _ = write_variant(tmp_path, "        instance_type: g6.xlarge\n",
                            "        instance_type: g6.xlarge\n        tpu_topology: 2x4\n", stack="dev")
    problems = _problems(path)
    assert any("tpu_topology: tpu_topology is for cloud: gcp stacks" in p for p in problems), problems


def test_a_stack_file_project_differing_from_the_declaration_is_refused(tmp_path: Path) -> None:
    path, line = write_variant(tmp_path, "  gcp:project: acme-ml-tpu-prod\n", "  gcp:project: someone-else\n",
                               stack="tpu-prod")
    assert _problems(path) == [f"{path}:{line}: config.gcp:project: 'someone-else' differs from the declaration's "
                               "'acme-ml-tpu-prod': remove `gcp:project` or make the two agree"]


def test_the_cli_exits_2_naming_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, line = write_variant(tmp_path, "        tpu_topology: 2x2x4\n", "        tpu_topology: 2x2x5\n",
                               stack="tpu-prod")
    assert main(["preview", "--stack-file", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{line}: accelplane:platform.node_pools[1].tpu_topology:" in err and "Traceback" not in err


@pytest.mark.parametrize("limit", ["rate_limit: {requests: 1000000,",
                                   "rate_limit: {action: ban, ban_seconds: 600, requests: 10000,"])
def test_cloud_armor_threshold_counts_at_their_maximum_are_accepted(tmp_path: Path, limit: str) -> None:
    path, _ = write_variant(tmp_path, "rate_limit: {requests: 600,", limit, stack="tpu-prod")
    assert load_stack_file(path).platform.kubernetes is not None
