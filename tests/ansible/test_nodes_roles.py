"""Role interfaces and the parsers behind validation, without nodes.

Argument specs reject bad values before any task runs (the plays below target localhost, in
check mode, and fail at the spec). The parsers read the real tools' output formats.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from accelplane.nodes.progress import ProgressView

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "roles/node_validation/filter_plugins"))
sys.path.insert(0, str(ROOT / "plugins/modules"))
sys.path.insert(0, str(ROOT / "roles/framework_env/filter_plugins"))
import device_query  # noqa: E402
import framework_env  # noqa: E402
import pinned_packages  # noqa: E402


def run_role(tmp_path: Path, role: str, variables: dict) -> subprocess.CompletedProcess[str]:
    play = [
        {
            "name": "Role interface",
            "hosts": "localhost",
            "connection": "local",
            "gather_facts": True,
            "gather_subset": ["min"],
            "roles": [{"role": role, **variables}],
        }
    ]
    playbook = tmp_path / "play.yml"
    playbook.write_text(yaml.safe_dump(play))
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
        "ANSIBLE_HOME": str(tmp_path / "home"),
        "NO_COLOR": "1",
        "ANSIBLE_CACHE_PLUGIN_CONNECTION": str(tmp_path / "facts"),
    }
    return subprocess.run(
        [str(Path(sys.executable).parent / "ansible-playbook"), "--check", str(playbook)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("role", "variables", "message"),
    [
        (
            "nvidia_driver",
            {"nvidia_driver_version": "570.172.08", "nvidia_driver_kernel_module": "closed"},
            "value of nvidia_driver_kernel_module must be one of: open, proprietary, got: closed",
        ),
        ("nvidia_driver", {"nvidia_driver_kernel_module": "open"}, "missing required arguments: nvidia_driver_version"),
        (
            "comms_stack",
            {"comms_stack_library": "gloo", "comms_stack_nccl_version": "2.27.3"},
            "value of comms_stack_library must be one of: nccl, rccl, got: gloo",
        ),
        (
            "node_validation",
            {"node_validation_vendor": "nvidia", "node_validation_devices": "eight"},
            "node_validation_devices",
        ),
    ],
)
def test_argument_specs_reject_bad_values_before_any_task(tmp_path, role, variables, message):
    result = run_role(tmp_path, role, variables)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert message in output, output
    assert "Validating arguments against arg spec 'main'" in output
    role_tasks = [line for line in output.splitlines() if line.startswith(f"TASK [{role} : ")]
    assert len(role_tasks) == 1, role_tasks  # nothing but the validation ran


def test_fabric_manager_role_alone_refuses_a_version_other_than_the_driver(tmp_path):
    result = run_role(
        tmp_path,
        "nvidia_fabric_manager",
        {"nvidia_fabric_manager_version": "570.172.09", "nvidia_fabric_manager_driver_version": "570.172.08"},
    )
    assert result.returncode != 0
    assert "Fabric Manager 570.172.09 differs from driver 570.172.08" in result.stdout


# Real formats: `nvidia-smi --query-gpu=... --format=csv,noheader,nounits`, rocm-smi --json,
# nccl-tests' summary, dcgmi diag's table.
NVIDIA_SMI = [
    "0, NVIDIA H100 80GB HBM3, GPU-4f6e2b1c-8d3a-4b2e-9f1a-2c3d4e5f6a7b, 570.172.08, 00000000:18:00.0, 81559, Enabled",
    "1, NVIDIA H100 80GB HBM3, GPU-5a6e2b1c-8d3a-4b2e-9f1a-2c3d4e5f6a7b, 570.133.20, 00000000:2A:00.0, 81559, Disabled",
]


def test_nvidia_smi_query_becomes_facts_and_names_each_difference():
    devices = device_query.nvidia_smi_devices(NVIDIA_SMI)
    assert devices[0] == {
        "index": "0",
        "name": "NVIDIA H100 80GB HBM3",
        "uuid": "GPU-4f6e2b1c-8d3a-4b2e-9f1a-2c3d4e5f6a7b",
        "driver_version": "570.172.08",
        "pci.bus_id": "00000000:18:00.0",
        "memory.total": "81559",
        "persistence_mode": "Enabled",
    }
    problems = device_query.nvidia_smi_problems({"rc": 0, "stdout_lines": NVIDIA_SMI}, 8, "570.172.08")
    assert problems == [
        "devices: 2 GPUs visible, expected 8",
        "GPU 1 runs driver 570.133.20, expected 570.172.08",
        "GPU 1 persistence mode is Disabled, expected Enabled",
    ]
    failed = {"rc": 9, "stdout": "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."}
    assert device_query.nvidia_smi_problems(failed, 8, "570.172.08")[0].startswith(
        "nvidia-smi failed (rc 9): NVIDIA-SMI"
    )


def test_rocm_smi_json_becomes_facts():
    text = (
        '{"card0": {"Card Series": "AMD Instinct MI300X OAM", "GFX Version": "gfx942"}, '
        '"card1": {"Card Series": "AMD Instinct MI300X OAM", "GFX Version": "gfx942"}, '
        '"system": {"Driver version": "6.10.5"}}'
    )
    parsed = device_query.rocm_smi_devices(text)
    assert [d["gfx_target"] for d in parsed["devices"]] == ["gfx942", "gfx942"]
    assert device_query.rocm_smi_problems({"rc": 0, "stdout": text}, 2, "6.12.12") == [
        "amdgpu driver 6.10.5 loaded, expected 6.12.12"
    ]


def test_nccl_tests_summary_and_dcgm_failures_are_read():
    summary = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 356.42 \n#\n"
    assert device_query.nccl_bus_bandwidth(summary) == {"avg_bus_bandwidth_gbps": 356.42, "out_of_bounds": 0}
    table = (
        "| Deployment                | Pass                                           |\n"
        "| PCIe                      | Fail - All                                     |\n"
        "| Memory                    | Pass - All                                     |\n"
    )
    assert device_query.dcgm_diag_failures(table) == ["PCIe"]


def test_framework_wheels_are_matched_on_exact_version_python_and_cpu():
    """The index page format of download.pytorch.org (percent-encoded local versions, hashes in
    the fragment) and a find-links directory give the same answer."""
    page = (
        '<a href="/whl/cu128/torch-2.8.0%2Bcu128-cp311-cp311-manylinux_2_28_x86_64.whl#sha256=ab">t</a>\n'
        '<a href="/whl/cu128/torch-2.8.0%2Bcu128-cp312-cp312-manylinux_2_28_aarch64.whl#sha256=cd">t</a>\n'
        "<a href='nvidia_nccl_cu12-2.27.3-py3-none-manylinux2014_x86_64.whl'>n</a>"
    )
    names = framework_env.framework_env_wheel_names(page)
    assert names[0] == "torch-2.8.0+cu128-cp311-cp311-manylinux_2_28_x86_64.whl"
    requirements = ["torch==2.8.0+cu128", "nvidia-nccl-cu12==2.27.3"]
    assert framework_env.framework_env_missing_wheels(names, requirements, "3.11", "x86_64") == []
    assert framework_env.framework_env_missing_wheels(names, requirements, "3.12", "x86_64") == [
        "framework: no wheel of torch 2.8.0+cu128 for Python 3.12 on x86_64 (offered: 2.8.0+cu128)"
    ]
    assert framework_env.framework_env_missing_wheels(names, ["torch==2.8.1+cu128"], "3.11", "x86_64") == [
        "framework: no wheel of torch 2.8.1+cu128 for Python 3.11 on x86_64 (offered: 2.8.0+cu128)"
    ]
    assert framework_env.framework_env_missing_wheels(names, ["Nvidia_NCCL.cu12==2.27.3"], "3.11", "aarch64") == [
        "framework: no wheel of nvidia-nccl-cu12 2.27.3 for Python 3.11 on aarch64 (offered: 2.27.3)"
    ]
    stable_abi = ["triton-3.4.0-cp39-abi3-manylinux_2_28_x86_64.whl"]
    assert framework_env.framework_env_missing_wheels(stable_abi, ["triton==3.4.0"], "3.11", "x86_64") == []
    assert framework_env.framework_env_index_name("Nvidia_NCCL.cu12==2.27.3") == "nvidia-nccl-cu12"


def test_pinned_packages_module_rejects_a_set_without_a_version_before_running(tmp_path):
    result = subprocess.run(
        [
            str(Path(sys.executable).parent / "ansible"),
            "localhost",
            "-m",
            "pinned_packages",
            "-a",
            '{"name": "x", "sets": [{"set": "x", "packages": ["a"]}], "state": "verified"}',
        ],
        cwd=ROOT,
        env={**os.environ, "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"), "ANSIBLE_HOME": str(tmp_path), "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "missing required arguments: version found in sets" in result.stdout, result.stdout + result.stderr


def _pinned_packages_on_this_machine(tmp_path, arguments):
    """The module run by ad-hoc `ansible localhost` (this machine's dpkg): its result as JSON."""
    ansible = str(Path(sys.executable).parent / "ansible")
    result = subprocess.run(
        [ansible, "localhost", "-m", "pinned_packages", "-a", json.dumps(arguments)],
        cwd=ROOT,
        env={**os.environ, "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"), "ANSIBLE_HOME": str(tmp_path), "NO_COLOR": "1",
             "ANSIBLE_CALLBACK_RESULT_FORMAT": "json"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    # "localhost | SUCCESS => {...}" (or FAILED!)
    status, _, answer = result.stdout.partition("=>")
    return {"status": status.split("|")[-1].strip(), **json.loads(answer)}


def test_one_verified_run_judges_each_set_against_its_own_callers_pin_file(tmp_path):
    """node_software compares every component's packages in one module run: each set's pins are read
    from the pin file of the role that wrote them (`owner`), not from one file for all."""
    preferences = tmp_path / "preferences.d"
    preferences.mkdir()
    pin_file = preferences / "accelplane-container_runtime.pref"
    pin_file.write_text("Package: dpkg\nPin: version *\nPin-Priority: 1000\n")
    sets = [
        {"set": "runtime", "packages": ["dpkg"], "version": "*", "owner": "container_runtime"},
        {"set": "collectives", "packages": ["coreutils"], "version": "*", "owner": "comms_stack"},
    ]
    found = _pinned_packages_on_this_machine(
        tmp_path, {"name": "node_software", "sets": sets, "state": "verified", "hold": False,
                   "preferences_dir": str(preferences)})
    # dpkg is pinned by container_runtime's file; comms_stack has no pin file at all.
    assert found["mismatches"] == ["collectives: coreutils is not pinned to * (pin: none)"], found


def test_an_install_refuses_sets_of_another_caller(tmp_path):
    sets = [{"set": "runtime", "packages": ["dpkg"], "version": "*", "owner": "container_runtime"}]
    found = _pinned_packages_on_this_machine(
        tmp_path, {"name": "comms_stack", "sets": sets, "preferences_dir": str(tmp_path / "p")})
    assert found["status"] == "FAILED!", found
    assert "owner is for the read-only states" in found["msg"], found
    assert not (tmp_path / "p").exists()  # refused before writing anything


def test_pinned_packages_reads_madison_and_dpkg_against_the_sets():
    sets = [{"set": "nccl", "packages": ["libnccl2", "libnccl-dev"], "version": "2.27.3-*+cuda12.8"}]
    madison = [
        " libnccl2 | 2.27.3-1+cuda13.0 | file:/srv ./ Packages",
        " libnccl2 | 2.27.3-1+cuda12.8 | file:/srv ./ Packages",
        " libnccl-dev | 2.27.3-1+cuda13.0 | file:/srv ./ Packages",
    ]
    offered = pinned_packages.offered_versions(madison)
    assert pinned_packages.missing_messages(offered, sets) == [
        "nccl: libnccl-dev not offered at version 2.27.3-*+cuda12.8 by the configured repositories "
        "(offered: libnccl-dev: 2.27.3-1+cuda13.0)"
    ]
    state = pinned_packages.installed_state(["libnccl2\t2.27.3-1+cuda12.8\thi ", "libnccl-dev\t2.27.3-1+cuda13.0\tii "])
    pins = pinned_packages.pinned_in(pinned_packages.pin_file_text("comms_stack", sets))
    assert pins == {"libnccl2": "2.27.3-*+cuda12.8", "libnccl-dev": "2.27.3-*+cuda12.8"}
    assert pinned_packages.drift_messages(state, pins, sets) == [
        "nccl: libnccl-dev is 2.27.3-1+cuda13.0, expected 2.27.3-*+cuda12.8",
        "nccl: libnccl-dev is not held",
    ]
    # What an install moves: only the package off its pattern, to the highest offered match.
    offered = {"libnccl2": ["2.27.3-1+cuda12.8"], "libnccl-dev": ["2.27.3-2+cuda12.8", "2.27.3-1+cuda12.8"]}
    assert pinned_packages.install_specs(state, offered, sets) == ["libnccl-dev=2.27.3-2+cuda12.8"]


def test_progress_view_prints_what_changed_and_summarises_each_host():
    out = io.StringIO()
    view = ProgressView(out=out, clock=iter(range(100)).__next__)
    view({"event": "playbook_on_play_start", "event_data": {"play": "Install"}})
    view(
        {
            "event": "runner_on_ok",
            "event_data": {"host": "n1", "task": "Pin", "role": "comms_stack", "res": {"changed": True}},
        }
    )
    view(
        {
            "event": "runner_on_ok",
            "event_data": {
                "host": "n1",
                "task": "Reboot",
                "role": "node_reboot",
                "res": {"ansible_facts": {"node_reboot_result": "rebooted"}},
            },
        }
    )
    view({"event": "runner_on_failed", "event_data": {"host": "n2", "task": "Validate", "res": {"msg": "drift"}}})
    view(
        {
            "event": "playbook_on_stats",
            "event_data": {"ok": {"n1": 5, "n2": 3}, "changed": {"n1": 1}, "failures": {"n2": 1}},
        }
    )
    lines = out.getvalue().splitlines()
    assert lines[0].endswith("== Install")
    assert "n1" in lines[1] and "changed" in lines[1] and "comms_stack : Pin" in lines[1]
    assert "FAILED" in lines[2] and "drift" in lines[2]
    summary = view.summary({"n1": "reports/n1.json"}).splitlines()
    assert summary[1].split() == ["n1", "changed", "5", "1", "0", "rebooted", "reports/n1.json"]
    assert summary[2].split()[:2] == ["n2", "failed"] and summary[-1] == "n2: drift"


# A real H200 SXM node's line (nvidia-smi --query-gpu=..., read on the node 2026-12-04).
H200_NODE = ["0, NVIDIA H200, GPU-0c44aaa9-22a5-f661-cd38-36ed02f8c092, 580.159.04, 00000000:00:06.0, 143771, Enabled"]


def test_a_node_whose_gpus_are_another_model_fails_naming_both():
    from accelplane.matrix.loader import accelerators

    known = accelerators()
    result = {"rc": 0, "stdout_lines": H200_NODE}
    # Declared as what it is: the SXM part's name.
    assert device_query.nvidia_smi_problems(result, 1, "580.159.04", known["nvidia-h200"].product_names,
                                            "nvidia-h200") == []
    # Declared as the PCIe card (whose nvidia-smi name is "NVIDIA H200 NVL"), or as H100s: named, both sides.
    assert device_query.nvidia_smi_problems(result, 1, "580.159.04", known["nvidia-h200-nvl"].product_names,
                                            "nvidia-h200-nvl") == [
        "GPU 0 is NVIDIA H200, but the group is declared nvidia-h200-nvl (NVIDIA H200 NVL)"]
    assert device_query.nvidia_smi_problems(result, 1, "580.159.04", known["nvidia-hgx-h100-8gpu"].product_names,
                                            "nvidia-hgx-h100-8gpu") == [
        "GPU 0 is NVIDIA H200, but the group is declared nvidia-hgx-h100-8gpu (NVIDIA H100 80GB HBM3)"]
    # A node declared with H100s that holds A100s, with the right count and driver, no longer passes.
    a100 = [line.replace("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB") for line in NVIDIA_SMI[:1]]
    assert device_query.nvidia_smi_problems({"rc": 0, "stdout_lines": a100}, 1, "570.172.08",
                                            known["nvidia-hgx-h100-8gpu"].product_names, "nvidia-hgx-h100-8gpu") == [
        "GPU 0 is NVIDIA A100-SXM4-80GB, but the group is declared nvidia-hgx-h100-8gpu (NVIDIA H100 80GB HBM3)"]


def test_rocm_smi_model_is_matched_as_a_whole_word():
    from accelplane.matrix.loader import accelerators

    known = accelerators()
    text = ('{"card0": {"Card Series": "AMD Instinct MI300X OAM", "GFX Version": "gfx942"}, '
            '"system": {"Driver version": "6.12.12"}}')
    result = {"rc": 0, "stdout": text}
    assert device_query.rocm_smi_problems(result, 1, "6.12.12", known["amd-mi300x"].product_names, "amd-mi300x") == []
    assert device_query.rocm_smi_problems(result, 1, "6.12.12", known["amd-mi325x"].product_names, "amd-mi325x") == [
        "GPU 0 is AMD Instinct MI300X OAM, but the group is declared amd-mi325x (MI325X)"]
