"""Stand-in for torch_npu @VERSION@ on lab nodes without NPUs.

Importing it registers `torch.npu`, as the real extension does, and like it needs CANN's environment
(Huawei's set_env.sh: the real one loads CANN's libraries from the paths it sets). It sees the NPUs
of /etc/lab/hardware.json while an Ascend driver is installed.
"""

import json
import os

import torch

__version__ = "@VERSION@"

if "ASCEND_HOME_PATH" not in os.environ:
    raise ImportError("torch_npu needs CANN's environment: source /usr/local/Ascend/ascend-toolkit/set_env.sh")


def _devices():
    if not os.path.isfile("/usr/local/Ascend/driver/version.info"):
        return []
    try:
        with open("/etc/lab/hardware.json") as handle:
            return json.load(handle).get("devices", [])
    except OSError:
        return []


class npu:  # noqa: N801 - the real module's name
    @staticmethod
    def is_available():
        return bool(_devices())

    @staticmethod
    def device_count():
        return len(_devices())

    @staticmethod
    def get_device_name(index=0):
        return _devices()[index]["name"]

    @staticmethod
    def synchronize(where=None):
        return None


torch.npu = npu
