"""Filters of the node_validation role for the accelerators beyond GPUs: Intel Gaudi's `hl-smi`,
Huawei Ascend's `npu-smi` and AWS Neuron's `neuron-ls`, parsed into facts and compared with the
software profile.

Formats are the real tools': `hl-smi -Q index,name,bus_id,driver_version,memory.total -f
csv,noheader` (https://docs.habana.ai/en/latest/Management_and_Monitoring/Embedded_System_Tools_Guide/System_Management_Interface_Tool.html),
whose driver version is "<release>-<commit>" (1.22.0-8f1d3e3); `neuron-ls --json-output`
(https://awsdocs-neuron.readthedocs-hosted.com/en/latest/tools/neuron-sys-tools/neuron-ls.html), one
object per Neuron device with its NeuronCore count.
"""

from __future__ import annotations

import json

DOCUMENTATION = """
name: accelerator_query
short_description: Parse hl-smi, npu-smi and neuron-ls output
"""

HL_SMI_QUERY = ("index", "name", "bus_id", "driver_version", "memory.total")


def _failed(result, tool):
    if result.get("rc", 1) == 0:
        return None
    output = " ".join(str(result.get(key) or "") for key in ("stdout", "stderr", "msg")).strip()
    return f"{tool} failed (rc {result.get('rc', 'none')}): {output}"


def hl_smi_devices(lines, fields=HL_SMI_QUERY):
    """One dict per Gaudi from `-f csv,noheader` lines."""
    devices = []
    for line in lines:
        values = [value.strip() for value in line.split(",")]
        if len(values) == len(fields):
            devices.append(dict(zip(fields, values, strict=True)))
    return devices


def hl_smi_problems(result, expected_devices, release):
    """What differs between an hl-smi query (a registered command result) and the profile's release."""
    failed = _failed(result, "hl-smi")
    if failed:
        return [failed]
    devices = hl_smi_devices(result.get("stdout_lines", []))
    problems = []
    if len(devices) != int(expected_devices):
        problems.append(f"devices: {len(devices)} Gaudi devices visible, expected {expected_devices}")
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
    problems = []
    if len(devices) != int(expected_devices):
        problems.append(f"devices: {len(devices)} Neuron devices visible, expected {expected_devices}")
    problems += [f"Neuron device {d['index']} shows no NeuronCores" for d in devices if not d["neuron_cores"]]
    return problems


class FilterModule:
    def filters(self):
        return {
            "hl_smi_devices": hl_smi_devices,
            "hl_smi_problems": hl_smi_problems,
            "neuron_ls_devices": neuron_ls_devices,
            "neuron_ls_problems": neuron_ls_problems,
        }
