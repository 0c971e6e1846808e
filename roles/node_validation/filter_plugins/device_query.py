"""Filters of the node_validation role: the vendor tools' output, parsed into facts.

Formats are the real tools': `nvidia-smi --query-gpu=... --format=csv,noheader,nounits`,
`rocm-smi --showproductname --showdriverversion --json`, nccl-tests' `all_reduce_perf` summary
and the result table of `dcgmi diag`.
"""

from __future__ import annotations

import json
import re

DOCUMENTATION = """
name: device_query
short_description: Parse nvidia-smi, rocm-smi, all_reduce_perf and dcgmi diag output
"""

NVIDIA_QUERY = ("index", "name", "uuid", "driver_version", "pci.bus_id", "memory.total", "persistence_mode")


def nvidia_smi_devices(lines, fields=NVIDIA_QUERY):
    """One dict per GPU from `--format=csv,noheader,nounits` lines."""
    devices = []
    for line in lines:
        values = [value.strip() for value in line.split(",")]
        if len(values) == len(fields):
            devices.append(dict(zip(fields, values, strict=True)))
    return devices


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


def _failed(result, tool):
    if result.get("rc", 1) == 0:
        return None
    output = " ".join(str(result.get(key) or "") for key in ("stdout", "stderr", "msg")).strip()
    return f"{tool} failed (rc {result.get('rc', 'none')}): {output}"


def nvidia_smi_problems(result, expected_devices, driver):
    """What differs between an nvidia-smi query (a registered command result) and the profile."""
    failed = _failed(result, "nvidia-smi")
    if failed:
        return [failed]
    devices = nvidia_smi_devices(result.get("stdout_lines", []))
    problems = []
    if len(devices) != int(expected_devices):
        problems.append(f"devices: {len(devices)} GPUs visible, expected {expected_devices}")
    for device in devices:
        if device["driver_version"] != driver:
            problems.append(f"GPU {device['index']} runs driver {device['driver_version']}, expected {driver}")
        if device["persistence_mode"] != "Enabled":
            problems.append(f"GPU {device['index']} persistence mode is {device['persistence_mode']}, expected Enabled")
    return problems


def rocm_smi_problems(result, expected_devices, kmd):
    """What differs between a rocm-smi query (a registered command result) and the profile."""
    failed = _failed(result, "rocm-smi")
    if failed:
        return [failed]
    parsed = rocm_smi_devices(result.get("stdout", ""))
    problems = []
    if len(parsed["devices"]) != int(expected_devices):
        problems.append(f"devices: {len(parsed['devices'])} GPUs visible, expected {expected_devices}")
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


class FilterModule:
    def filters(self):
        return {
            "nvidia_smi_devices": nvidia_smi_devices,
            "rocm_smi_devices": rocm_smi_devices,
            "nvidia_smi_problems": nvidia_smi_problems,
            "rocm_smi_problems": rocm_smi_problems,
            "nccl_bus_bandwidth": nccl_bus_bandwidth,
            "dcgm_diag_failures": dcgm_diag_failures,
        }
