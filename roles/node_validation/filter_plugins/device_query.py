"""Filters of the node_validation role: the vendor tools' output, parsed into facts and compared
with the software profile.

Formats are the real tools': `nvidia-smi --query-gpu=... --format=csv,noheader,nounits`,
`rocm-smi --showproductname --showdriverversion --json`, nccl-tests' `all_reduce_perf` summary
and the result table of `dcgmi diag`; `hl-smi -Q index,name,bus_id,driver_version,memory.total -f
csv,noheader` (https://docs.habana.ai/en/latest/Management_and_Monitoring/Embedded_System_Tools_Guide/System_Management_Interface_Tool.html),
whose driver version is "<release>-<commit>" (1.22.0-8f1d3e3); `neuron-ls --json-output`
(https://awsdocs-neuron.readthedocs-hosted.com/en/latest/tools/neuron-sys-tools/neuron-ls.html), one
object per Neuron device with its NeuronCore count; `npu-smi info` and `npu-smi info -t board -i
<id>`, as the MindCluster Ascend FaultDiag user guide prints them (github.com/Ascend/mind-cluster,
English docs, "npu-smi info" and "npu-smi info -t board" examples): a table whose header names the
npu-smi and driver version ("| npu-smi 23.0.5   Version: 23.0.5 |"), then two rows per NPU,
"| <NPU> <Name> | <Health> | <Power> <Temp> <Hugepages> |" and "| <Chip> | <Bus-Id> | <AICore>
<Memory-Usage> <HBM-Usage> |"; the board query prints "Key : value" lines, Firmware Version among
them.
"""

from __future__ import annotations

import itertools
import json
import re

DOCUMENTATION = """
name: device_query
short_description: Parse nvidia-smi, rocm-smi, all_reduce_perf, dcgmi diag, hl-smi, npu-smi and neuron-ls output
"""

NVIDIA_QUERY = ("index", "name", "uuid", "driver_version", "pci.bus_id", "memory.total", "persistence_mode")
HL_SMI_QUERY = ("index", "name", "bus_id", "driver_version", "memory.total")


def _csv_devices(lines, fields):
    """One dict per device from a tool's comma-separated query lines (no header)."""
    devices = []
    for line in lines:
        values = [value.strip() for value in line.split(",")]
        if len(values) == len(fields):
            devices.append(dict(zip(fields, values, strict=True)))
    return devices


def _failed(result, tool):
    if result.get("rc", 1) == 0:
        return None
    output = " ".join(str(result.get(key) or "") for key in ("stdout", "stderr", "msg")).strip()
    return f"{tool} failed (rc {result.get('rc', 'none')}): {output}"


def _count_problems(devices, expected_devices, kind):
    """The device-count difference every query reports first (`kind`: "GPUs", "NPUs", ...)."""
    if len(devices) == int(expected_devices):
        return []
    return [f"devices: {len(devices)} {kind} visible, expected {expected_devices}"]


def nvidia_smi_devices(lines, fields=NVIDIA_QUERY):
    """One dict per GPU from `--format=csv,noheader,nounits` lines."""
    return _csv_devices(lines, fields)


def hl_smi_devices(lines, fields=HL_SMI_QUERY):
    """One dict per Gaudi from `-f csv,noheader` lines."""
    return _csv_devices(lines, fields)


def rocm_smi_devices(text):
    """One dict per GPU (card id, product, gfx target) and the driver version from rocm-smi JSON."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError):
        return {"devices": [], "driver_version": None}
    devices = [
        {
            "index": card.removeprefix("card"),
            "name": values.get("Card Series") or values.get("Card series", ""),
            "gfx_target": values.get("GFX Version", ""),
        }
        for card, values in sorted(data.items())
        if card.startswith("card") and isinstance(values, dict)
    ]
    return {"devices": devices, "driver_version": data.get("system", {}).get("Driver version")}


def _model_problem(kind, index, name, accelerator, product_names, exact):
    """The device is not the declared model: name both (None when it is, or no names are known).
    NVIDIA names are exact (nvidia-smi prints "NVIDIA H200" for the SXM part and "NVIDIA H200 NVL" for
    the PCIe card); other vendors' tools decorate the model ("AMD Instinct MI300X OAM"): a whole word."""
    if not product_names:
        return None
    if exact:
        matches = name in product_names
    else:
        matches = any(re.search(rf"(?<![A-Za-z0-9]){re.escape(model)}(?![A-Za-z0-9])", name or "", re.IGNORECASE)
                      for model in product_names)
    if matches:
        return None
    return (f"{kind} {index} is {name or 'unnamed'}, but the group is declared {accelerator} "
            f"({' or '.join(product_names)})")


def nvidia_smi_problems(result, expected_devices, driver, product_names=(), accelerator=""):
    """What differs between an nvidia-smi query (a registered command result) and the profile;
    `product_names`: what nvidia-smi prints for the declared accelerator (the matrix's facts)."""
    failed = _failed(result, "nvidia-smi")
    if failed:
        return [failed]
    devices = nvidia_smi_devices(result.get("stdout_lines", []))
    problems = _count_problems(devices, expected_devices, "GPUs")
    for device in devices:
        wrong = _model_problem("GPU", device["index"], device["name"], accelerator, product_names, exact=True)
        if wrong:
            problems.append(wrong)
        if device["driver_version"] != driver:
            problems.append(f"GPU {device['index']} runs driver {device['driver_version']}, expected {driver}")
        if device["persistence_mode"] != "Enabled":
            problems.append(f"GPU {device['index']} persistence mode is {device['persistence_mode']}, expected Enabled")
    return problems


def rocm_smi_problems(result, expected_devices, kmd, product_names=(), accelerator=""):
    """What differs between a rocm-smi query (a registered command result) and the profile."""
    failed = _failed(result, "rocm-smi")
    if failed:
        return [failed]
    parsed = rocm_smi_devices(result.get("stdout", ""))
    problems = _count_problems(parsed["devices"], expected_devices, "GPUs")
    for device in parsed["devices"]:
        wrong = _model_problem("GPU", device["index"], device["name"], accelerator, product_names, exact=False)
        if wrong:
            problems.append(wrong)
    if parsed["driver_version"] != kmd:
        problems.append(f"amdgpu driver {parsed['driver_version']} loaded, expected {kmd}")
    return problems


def nccl_bus_bandwidth(text):
    """Average bus bandwidth (GB/s) and out-of-bounds count from all_reduce_perf's summary."""
    bandwidth = re.search(r"^# Avg bus bandwidth\s*:\s*([0-9.]+)", text or "", re.MULTILINE)
    wrong = re.search(r"^# Out of bounds values\s*:\s*([0-9]+)", text or "", re.MULTILINE)
    return {
        "avg_bus_bandwidth_gbps": float(bandwidth.group(1)) if bandwidth else None,
        "out_of_bounds": int(wrong.group(1)) if wrong else None,
    }


def dcgm_diag_failures(text):
    """Names of the `dcgmi diag` table rows whose result is Fail."""
    failures = []
    for line in (text or "").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[1].startswith("Fail"):
            failures.append(cells[0])
    return failures


def hl_smi_problems(result, expected_devices, release):
    """What differs between an hl-smi query (a registered command result) and the profile's release."""
    failed = _failed(result, "hl-smi")
    if failed:
        return [failed]
    devices = hl_smi_devices(result.get("stdout_lines", []))
    problems = _count_problems(devices, expected_devices, "Gaudi devices")
    for device in devices:
        loaded = device["driver_version"].split("-", 1)[0]
        if loaded != release:
            problems.append(
                f"Gaudi {device['index']} runs driver {device['driver_version']}, expected release {release}"
            )
    return problems


def neuron_ls_devices(text):
    """One dict per Neuron device (index, PCI address, NeuronCores, memory) from neuron-ls JSON."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError):
        return []
    return (
        [
            {
                "index": str(device.get("neuron_device", "")),
                "bus_id": device.get("bdf", ""),
                "neuron_cores": device.get("nc_count"),
                "memory_size": device.get("memory_size"),
            }
            for device in data
            if isinstance(device, dict)
        ]
        if isinstance(data, list)
        else []
    )


def neuron_ls_problems(result, expected_devices):
    """What differs between a neuron-ls query (a registered command result) and the host group."""
    failed = _failed(result, "neuron-ls")
    if failed:
        return [failed]
    devices = neuron_ls_devices(result.get("stdout", ""))
    problems = _count_problems(devices, expected_devices, "Neuron devices")
    problems += [f"Neuron device {d['index']} shows no NeuronCores" for d in devices if not d["neuron_cores"]]
    return problems


def npu_smi_version(text):
    """The version in the header of `npu-smi info` (npu-smi ships with the driver: the driver's)."""
    match = re.search(r"\bVersion:\s*(\S+)", str(text or ""))
    return match.group(1) if match else ""


def npu_smi_devices(text):
    """One dict per NPU (index, name, health, bus_id, hbm) from the `npu-smi info` table."""
    devices = []
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in str(text or "").splitlines()
        if line.strip().startswith("|")
    ]
    for first, second in itertools.pairwise(rows):
        if len(first) != 3 or len(second) != 3:
            continue
        head = re.match(r"^(\d+)\s+(\S.*)$", first[0])
        if head is None or not re.match(r"^\d+$", second[0]):
            continue
        usage = re.findall(r"(\d+)\s*/\s*(\d+)", second[2])
        devices.append(
            {
                "index": head.group(1),
                "name": head.group(2).strip(),
                "health": first[1],
                "bus_id": second[1],
                "hbm_mib": int(usage[-1][1]) if usage else None,
            }
        )
    return devices


def npu_smi_boards(text):
    """NPU id -> its `npu-smi info -t board -i <id>` values (Software Version, Firmware Version ...),
    from the concatenated output of one query per NPU."""
    boards = {}
    current = None
    for line in str(text or "").splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key, value = key.strip(), value.strip()
        if key == "NPU ID":
            current = boards.setdefault(value, {})
        elif current is not None:
            current.setdefault(key, value)
    return boards


def npu_smi_problems(result, boards_result, expected_devices, driver, firmware):
    """What differs between `npu-smi info` and the board queries (registered command results) and
    the profile's driver and firmware."""
    failed = _failed(result, "npu-smi")
    if failed:
        return [failed]
    text = result.get("stdout", "")
    devices = npu_smi_devices(text)
    problems = _count_problems(devices, expected_devices, "NPUs")
    problems += [f"NPU {d['index']} health is {d['health']}, expected OK" for d in devices if d["health"] != "OK"]
    loaded = npu_smi_version(text)
    if loaded.lower() != str(driver).lower():
        problems.append(f"npu-smi reports driver {loaded or 'none'}, expected {driver}")
    if boards_result is None or boards_result.get("skipped"):
        return problems
    failed = _failed(boards_result, "npu-smi info -t board")
    if failed:
        return [*problems, failed]
    boards = npu_smi_boards(boards_result.get("stdout", ""))
    for device in devices:
        running = boards.get(device["index"], {}).get("Firmware Version", "")
        if running != str(firmware):
            problems.append(f"NPU {device['index']} runs firmware {running or 'unknown'}, expected {firmware}")
    return problems


class FilterModule:
    def filters(self):
        return {
            "nvidia_smi_devices": nvidia_smi_devices,
            "rocm_smi_devices": rocm_smi_devices,
            "nvidia_smi_problems": nvidia_smi_problems,
            "rocm_smi_problems": rocm_smi_problems,
            "nccl_bus_bandwidth": nccl_bus_bandwidth,
            "dcgm_diag_failures": dcgm_diag_failures,
            "hl_smi_devices": hl_smi_devices,
            "hl_smi_problems": hl_smi_problems,
            "neuron_ls_devices": neuron_ls_devices,
            "neuron_ls_problems": neuron_ls_problems,
            "npu_smi_version": npu_smi_version,
            "npu_smi_devices": npu_smi_devices,
            "npu_smi_boards": npu_smi_boards,
            "npu_smi_problems": npu_smi_problems,
        }
