"""The matrix data: every file loads, every fact has a source, lists are sorted, the vocabulary is
the one the rest of accelplane relies on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from accelplane.matrix import MATRIX_KEYS, AcceleratorFacts, MatrixDataError, Vendor, accelerators, load
from accelplane.matrix import facts as f
from accelplane.matrix.loader import _check_sorted

DESIGN_KEYS = (
    "accelerator instance os kernel glibc python driver kernel_module fabric_manager cuda compat_package "
    "cudnn "
    "nccl nccl_package torch torchvision torchaudio rocm rocm_userspace amdgpu_kmd gpu_target neuron_sdk "
    "torch_neuronx torch_neuron jax jaxlib libtpu torch_xla tpu_runtime gaudi_sw cann torch_npu efa_installer "
    "aws_ofi_nccl nccl_tests as_of"
)
REQUIRED_ACCELERATORS = [
    "nvidia-h100",
    "nvidia-h200",
    "nvidia-hgx-h100-8gpu",
    "nvidia-hgx-h200-8gpu",
    "nvidia-b200",
    "nvidia-hgx-b200-8gpu",
    "nvidia-a100",
    "nvidia-a10g",
    "nvidia-l4",
    "nvidia-l40s",
    "nvidia-t4",
    "amd-mi300x",
    "amd-mi250x",
    "aws-trainium",
    "aws-trainium2",
    "aws-inferentia",
    "aws-inferentia2",
    "google-tpu-v5e",
    "google-tpu-v5p",
    "google-tpu-v6e",
    "intel-gaudi2",
    "intel-gaudi3",
    "huawei-ascend-910b",
]
DATA_DIR = Path(__file__).resolve().parents[2] / "accelplane" / "matrix" / "data"


def test_matrix_keys_are_exactly_the_design_contract() -> None:
    assert frozenset(DESIGN_KEYS.split()) == MATRIX_KEYS


def test_every_data_file_loads_and_validates() -> None:
    data = load()
    assert data.cuda_rows and data.torch and data.rocm.releases and data.neuron.releases
    assert sorted(p.name for p in DATA_DIR.glob("*.yaml")) == sorted(
        [
            "accelerators.yaml",
            "nvidia.yaml",
            "pytorch.yaml",
            "comms.yaml",
            "rocm.yaml",
            "neuron.yaml",
            "tpu.yaml",
            "gaudi.yaml",
            "ascend.yaml",
            "os.yaml",
            "published.yaml",
        ]
    )


def test_every_fact_carries_a_public_source() -> None:
    facts = load().all_facts()
    assert len(facts) > 300
    pattern = re.compile(r"^(https?://|registry:|github:|reference:)\S+")
    unsourced = [repr(fact)[:120] for fact in facts if not pattern.match(getattr(fact, "source", "") or "")]
    assert unsourced == []


def test_a_fact_without_source_fails_validation() -> None:
    with pytest.raises(ValidationError, match="source"):
        f.CudaDriverRow.model_validate({"cuda": "12.8.0", "driver": "570.26"})
    with pytest.raises(ValidationError, match="source must start with"):
        f.CudaDriverRow.model_validate({"cuda": "12.8.0", "driver": "570.26", "source": "trust me"})


def test_every_record_in_the_yaml_files_names_its_source() -> None:
    # Independent of the schema: each list item that is a mapping at the top of a section has `source`,
    # except nested package rows that inherit their record's source.
    import yaml

    nested = {"torch_neuronx", "torch_xla", "libtorch_neuronx_lite", "jax_neuronx", "os"}
    missing = []
    for path in DATA_DIR.glob("*.yaml"):
        document = yaml.safe_load(path.read_text())
        for section, value in document.items():
            if section.startswith("x-") or not isinstance(value, list):
                continue
            for index, item in enumerate(value):
                if isinstance(item, dict) and "source" not in item:
                    missing.append(f"{path.name}:{section}[{index}]")
                if isinstance(item, dict):
                    for key in nested & item.keys():
                        assert isinstance(item[key], (list, str)), f"{path.name}:{section}[{index}].{key}"
    assert missing == []


def test_malformed_versions_in_data_fail_validation() -> None:
    with pytest.raises(ValidationError, match="malformed version"):
        f.CudaDriverRow.model_validate(
            {"cuda": "12.x", "driver": "570.26", "source": "https://example.com/x"}
        )


def test_unsorted_lists_are_refused() -> None:
    rows = f.CommsFile.model_validate(
        {
            "nccl_packages": [],
            "aws_ofi_nccl": [
                {
                    "version": "1.16.0",
                    "tested_nccl": [],
                    "min_nccl": "2.17.1",
                    "source": "https://example.com/a",
                },
                {
                    "version": "1.15.0",
                    "tested_nccl": [],
                    "min_nccl": "2.17.1",
                    "source": "https://example.com/a",
                },
            ],
            "efa_installer": [],
            "nccl_tests": [],
        }
    )
    with pytest.raises(MatrixDataError, match=r"1\.15\.0 is not after 1\.16\.0"):
        _check_sorted("comms.yaml", rows, "aws_ofi_nccl", "version")


def test_duplicates_count_as_unsorted() -> None:
    table = f.AscendFile.model_validate(
        {
            "cann": [
                {"cann": "8.0.RC1", "torch_npu": ["2.2.0"], "source": "https://example.com/a"},
                {"cann": "8.0.RC1", "torch_npu": ["2.2.0"], "source": "https://example.com/a"},
            ],
            "python": [],
        }
    )
    with pytest.raises(MatrixDataError):
        _check_sorted("ascend.yaml", table, "cann", "cann")


def test_accelerator_vocabulary_has_every_required_name() -> None:
    vocabulary = accelerators()
    missing = [name for name in REQUIRED_ACCELERATORS if name not in vocabulary]
    assert missing == []
    assert {facts.vendor for facts in vocabulary.values()} == set(Vendor)
    for name, facts in vocabulary.items():
        assert isinstance(facts, AcceleratorFacts)
        assert name == facts.name and name.startswith(f"{facts.vendor.value}-")


def test_nvswitch_is_exactly_the_hgx_boards() -> None:
    for name, facts in accelerators().items():
        assert facts.nvswitch == ("-hgx-" in name), name


def test_blackwell_and_grace_hopper_need_open_kernel_modules() -> None:
    vocabulary = accelerators()
    for name in ("nvidia-b200", "nvidia-hgx-b200-8gpu", "nvidia-gh200"):
        assert vocabulary[name].requires_open_kernel_module, name
    assert not vocabulary["nvidia-h100"].requires_open_kernel_module


def test_accelerator_facts_are_frozen() -> None:
    facts = accelerators()["nvidia-h100"]
    with pytest.raises(ValidationError):
        facts.nvswitch = True  # type: ignore[misc]


def test_every_nvidia_gpu_maps_to_an_architecture_and_every_amd_gpu_to_a_rocm_target() -> None:
    data = load()
    targets = {t for release in data.rocm.releases for t in release.gpu_targets}
    for facts in accelerators().values():
        if facts.vendor is Vendor.NVIDIA:
            assert facts.compute_capability and data.architecture(facts.compute_capability), facts.name
        if facts.vendor is Vendor.AMD:
            assert facts.gfx_target in targets, facts.name


def test_load_is_cached() -> None:
    assert load() is load()
