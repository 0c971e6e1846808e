"""Huawei Ascend hosts (roles/ascend_npu through node_software) on lab nodes: the NPU driver and
firmware and the CANN toolkit and kernels from checksummed .run installers at the profile's versions;
torch_npu beside PyTorch's CPU build; npu-smi (device count, health, driver and firmware) and a
matmul on `npu` validated; a second apply changes nothing; check mode writes nothing and names the
installers that would run; validate names drift; a canary whose new driver does not load rolls back.

The stand-ins (tests/support/ansible/catalog.py ASCEND) are shell scripts under the real installers'
file names that take their documented options and only write the files the real ones leave
(version.info, ascend_toolkit_install.info, set_env.sh, an npu-smi printing the real format); CANN
8.3.RC1's npu-smi fails like a driver that did not load. The runs are the mixed lab's, shared with
the other vendors' modules (tests/support/ansible/mixed.py). The choice of file per architecture is
tested on the role's filter directly: the lab's nodes have the host's architecture.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.ansible import lab, mixed
from tests.support.ansible.catalog import ARCH, ASCEND, ascend_installers, ascend_role_filters

HOST = "ascend-01"
PROFILE = "ascend910b-cann82"
CANN = "8.2.RC1"
RELEASE = ASCEND[CANN]
TOOLKIT_INFO = f"usr/local/Ascend/ascend-toolkit/latest/{ARCH}-linux/ascend_toolkit_install.info"
KERNELS_INFO = "usr/local/Ascend/ascend-toolkit/latest/opp_kernel/version.info"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, lab_root: Path, lab_repo: Path) -> mixed.Session:
    return mixed.session_runs(tmp_path_factory, lab_root, lab_repo)


def _release_installed(files: dict[str, str | None], cann: str = CANN) -> None:
    release = ASCEND[cann]
    assert f"Version={release['driver']}\n" in (files["usr/local/Ascend/driver/version.info"] or "")
    assert f"Version={release['firmware']}\n" in (files["usr/local/Ascend/firmware/version.info"] or "")
    assert f"version={cann}\n" in (files[TOOLKIT_INFO] or "")
    assert f"version_dir={cann}\n" in (files[KERNELS_INFO] or "")


def test_site_installs_the_ascend_release_and_validates_it(runs):
    found, _ = runs
    state = found.applied[HOST]
    _release_installed(state.files)
    assert "/usr/local/Ascend/ascend-toolkit/set_env.sh" in (state.files["etc/profile.d/accelplane-ascend.sh"] or "")
    assert state.installed["containerd.io"] == ("1.7.27-1", "hi")
    # torch_npu beside PyTorch's CPU build of the torch it pairs with.
    assert state.files["venv"] == f"torch-{RELEASE['torch']}-cpu"
    pip = {p["name"]: p["version"] for p in json.loads(state.files["pip"] or "[]")}
    assert pip["torch-npu"] == RELEASE["torch_npu"]
    assert not [name for name in state.installed if name.startswith(("libnccl", "rccl", "nvidia", "rocm"))]
    report = found.reports[HOST]
    assert report["ok"] is True, report["mismatches"]
    assert len(report["devices"]) == 8 and report["devices"][0]["name"] == "910B3"
    assert report["devices"][0]["health"] == "OK" and report["devices"][0]["driver_version"] == RELEASE["driver"]
    matmul = report["checks"]["matmul"]
    assert matmul["error"] is None and [d["name"] for d in matmul["devices"]] == ["910B3"] * 8
    assert found.first is not None and found.first.view.hosts[HOST].outcomes["reboot"] == "rebooted"


def test_second_apply_changes_nothing(runs):
    mixed.assert_second_apply_changes_nothing(runs[0], HOST)


def test_check_mode_names_the_installers_that_would_run_and_writes_nothing(runs):
    check = mixed.checked(runs, HOST)
    line = next(line for line in check["progress"].splitlines() if HOST in line and "Would run" in line)
    files = [installer["file"] for installer in ascend_installers("8.3.RC1")]
    # Over an installed driver Huawei's order is firmware, then driver (an overwrite installation).
    assert line.endswith(", ".join([files[1], files[0], files[2], files[3]])), line
    _release_installed(check["after"][HOST].files)


def test_validate_names_the_drift_of_an_ascend_node(runs):
    report = mixed.drifted(runs, HOST)
    mismatches = report["mismatches"]
    firmware = f"ascend_npu: firmware 7.7.0.9.999 is installed, expected {RELEASE['firmware']}"
    assert any(m.startswith(firmware) for m in mismatches), mismatches
    assert any(m.startswith(f"ascend_npu: kernels is not installed, expected {CANN}") for m in mismatches), mismatches
    # npu-smi reads the firmware the NPUs run: every NPU names it.
    assert report["checks"]["devices"] == [
        f"NPU {index} runs firmware 7.7.0.9.999, expected {RELEASE['firmware']}" for index in range(8)
    ]
    assert [m for m in mismatches if not m.startswith(("ascend_npu:", "NPU "))] == [], mismatches


def test_failed_canary_rolls_back_to_the_validated_release(runs):
    message, upgrade = mixed.rolled_back(runs, HOST, PROFILE)
    assert "npu-smi failed (rc 3): dcmi module initialize failed" in message, upgrade["out"]
    state = upgrade["after"][HOST]
    _release_installed(state.files)
    pip = {p["name"]: p["version"] for p in json.loads(state.files["pip"] or "[]")}
    assert pip["torch-npu"] == RELEASE["torch_npu"]
    assert upgrade["reports"][HOST]["ok"] is False


# The role's choice of files, without a lab node: the lab's nodes have the host's architecture.


def test_an_aarch64_host_gets_the_aarch64_installers():
    files = [installer["file"] for installer in ascend_installers(CANN, "aarch64")]
    assert files == [
        "Ascend-hdk-910b-npu-driver_25.0.rc1.1_linux-aarch64.run",
        "Ascend-hdk-910b-npu-firmware_7.7.0.1.231.run",
        "Ascend-cann-toolkit_8.2.RC1_linux-aarch64.run",
        "Ascend-cann-kernels-910b_8.2.RC1_linux-aarch64.run",
    ]
    x86 = [installer["file"] for installer in ascend_installers(CANN, "x86_64")]
    # The driver spells the architecture x86-64, the CANN packages x86_64; the firmware is one file.
    assert x86[0].endswith("_linux-x86-64.run") and x86[1] == files[1] and x86[2].endswith("_linux-x86_64.run")


def test_an_architecture_without_installers_is_refused():
    with pytest.raises(ValueError, match="not 'ppc64le'"):
        ascend_installers(CANN, "ppc64le")


def test_without_a_mirror_the_installers_come_from_huaweis_release_directories():
    module = ascend_role_filters()
    settings = {
        "versions": {"driver": "25.0.rc1.1", "firmware": "7.7.0.1.231", "toolkit": CANN, "kernels": CANN},
        "chip": "910b",
        "files": {"driver": "d_{version_lower}.run", "firmware": "f_{version}.run", "toolkit": "t.run",
                  "kernels": "k.run"},
        "urls": {"driver": "https://h/HDK%20{hdk}/{file}", "firmware": "https://h/HDK%20{hdk}/{file}",
                 "toolkit": "https://h/CANN%20{version}/{file}", "kernels": "https://h/CANN%20{version}/{file}"},
        "base_url": "",
        "sha256": {"t.run": "ab" * 32},
        "args": {name: [] for name in ("driver", "firmware", "toolkit", "kernels")},
        "version_files": dict.fromkeys(("driver", "firmware", "toolkit", "kernels"), "/v/{arch}"),
        "version_keys": dict.fromkeys(("driver", "firmware", "toolkit", "kernels"), "Version"),
    }
    installers = module.ascend_installers(settings, "aarch64")
    # The firmware sits in its HDK (driver) release's directory.
    assert [i["url"] for i in installers] == [
        "https://h/HDK%2025.0.RC1.1/d_25.0.rc1.1.run",
        "https://h/HDK%2025.0.RC1.1/f_7.7.0.1.231.run",
        "https://h/CANN%208.2.RC1/t.run",
        "https://h/CANN%208.2.RC1/k.run",
    ]
    assert [i["sha256"] for i in installers] == [None, None, "ab" * 32, None]
    assert installers[0]["version_file"] == "/v/aarch64"


def test_huaweis_install_order_driver_first_on_a_new_host_firmware_first_over_a_driver():
    module = ascend_role_filters()
    installers = ascend_installers(CANN)
    new = module.ascend_due(installers, {})
    assert [i["name"] for i in new] == ["driver", "firmware", "toolkit", "kernels"]
    installed = {"driver": "24.1.rc2", "firmware": "7.3.0.1.231", "toolkit": CANN, "kernels": CANN}
    assert [i["name"] for i in module.ascend_due(installers, installed)] == ["firmware", "driver"]
    # Versions compare without case: the driver writes 25.0.rc1.1 for the HDK release 25.0.RC1.1.
    same = {"driver": "25.0.RC1.1", "firmware": RELEASE["firmware"], "toolkit": CANN.lower(), "kernels": CANN}
    assert module.ascend_due(installers, same) == []
    assert module.ascend_recorded_version("Version=24.1.rc1\nascendhal_version=7.35.19\n", "Version") == "24.1.rc1"
    assert module.ascend_recorded_version("package_name=Ascend-cann-toolkit\nversion=8.5.0\n", "version") == "8.5.0"


def test_the_version_files_are_read_in_one_command_and_split_per_component():
    module = ascend_role_filters()
    marker = "--- end ---"
    keys = {"driver": "Version", "firmware": "Version", "toolkit": "version", "kernels": "version_dir"}
    installers = [{"name": name, "version_key": key} for name, key in keys.items()]
    # What `cat f; echo; echo MARKER` prints per file; the firmware's file is missing.
    text = (
        f"Version=25.0.rc1.1\nascendhal_version=7.35.19\n\n{marker}\n\n{marker}\n"
        f"package_name=Ascend-cann-toolkit\nversion=8.2.RC1\n\n{marker}\n"
        f"Version=8.2.T5.0.B028\nversion_dir=8.2.RC1\n\n{marker}"
    )
    assert module.ascend_installed(text, installers, marker) == {
        "driver": "25.0.rc1.1", "firmware": "", "toolkit": "8.2.RC1", "kernels": "8.2.RC1"
    }
    assert module.ascend_installed("", installers, marker) == dict.fromkeys(keys, "")


# `npu-smi info` as Huawei's MindCluster fault diagnosis guide prints it (github.com/Ascend/mind-cluster).
NPU_SMI_INFO = """\
+------------------------------------------------------------------------------------------------+
| npu-smi 23.0.5                   Version: 23.0.5                                               |
+---------------------------+---------------+----------------------------------------------------+
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+
| 0     xxx                 | OK            | 73.1        37                0    / 0             |
| 0                         | 0000:61:00.0  | 0           920  / 13553      0    / 32768         |
+===========================+===============+====================================================+
| 7     xxx                 | Warning       | 67.0        38                0    / 0             |
| 0                         | 0000:3D:00.0  | 0           2346 / 15567      0    / 32768         |
+===========================+===============+====================================================+
+---------------------------+---------------+----------------------------------------------------+
| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |
+===========================+===============+====================================================+
| No running processes found in NPU 0                                                            |
+===========================+===============+====================================================+
"""
NPU_SMI_BOARD = """\
NPU ID                         : 0
Software Version               : 23.0.5
Firmware Version               : 7.1.0.7.220
Compatibility                  : OK
NPU ID                         : 7
Software Version               : 23.0.5
Firmware Version               : 7.1.0.5.220
"""


def test_npu_smi_output_is_read_into_devices_and_problems():
    query = _device_query()
    devices = query.npu_smi_devices(NPU_SMI_INFO)
    assert devices == [
        {"index": "0", "name": "xxx", "health": "OK", "bus_id": "0000:61:00.0", "hbm_mib": 32768},
        {"index": "7", "name": "xxx", "health": "Warning", "bus_id": "0000:3D:00.0", "hbm_mib": 32768},
    ]
    assert query.npu_smi_version(NPU_SMI_INFO) == "23.0.5"
    info = {"rc": 0, "stdout": NPU_SMI_INFO}
    boards = {"rc": 0, "stdout": NPU_SMI_BOARD}
    assert query.npu_smi_problems(info, boards, 8, "23.0.5", "7.1.0.7.220") == [
        "devices: 2 NPUs visible, expected 8",
        "NPU 7 health is Warning, expected OK",
        "NPU 7 runs firmware 7.1.0.5.220, expected 7.1.0.7.220",
    ]
    assert query.npu_smi_problems(info, {"skipped": True}, 2, "24.1.rc2", "x") == [
        "NPU 7 health is Warning, expected OK",
        "npu-smi reports driver 23.0.5, expected 24.1.rc2",
    ]
    failed = {"rc": 3, "stdout": "dcmi module initialize failed. ret is -8005"}
    assert query.npu_smi_problems(failed, None, 8, "23.0.5", "x") == [
        "npu-smi failed (rc 3): dcmi module initialize failed. ret is -8005"
    ]


def _load(path: Path, name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _device_query():
    return _load(lab.PROJECT_ROOT / "roles/node_validation/filter_plugins/device_query.py", "device_query")
