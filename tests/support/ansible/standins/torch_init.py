"""Stand-in for PyTorch @VERSION@ on lab nodes without GPUs.

The real wheel's version and build (`torch.__version__`, `torch.version.cuda` / `.hip`) and the few
tensor operations accelplane's matmul check uses, in pure Python. `torch.cuda` sees the GPUs
listed in /etc/lab/hardware.json.
"""

import json
import random

__version__ = "@VERSION@"
float32 = "float32"
float64 = "float64"


def _set(value):
    return value or None


class version:  # noqa: N801 - the real module's name
    cuda = _set("@CUDA@")
    hip = _set("@HIP@")


def manual_seed(seed):
    random.seed(seed)


class device:  # noqa: N801
    def __init__(self, kind, index=None):
        self.type, self.index = kind, index


class Tensor:
    def __init__(self, rows, dtype=float32, where="cpu"):
        self.rows, self.dtype, self.device = rows, dtype, where

    def _map(self, fn):
        return Tensor([[fn(x) for x in row] for row in self.rows], self.dtype, self.device)

    def __matmul__(self, other):
        columns = list(zip(*other.rows, strict=True))
        rows = [[sum(a * b for a, b in zip(row, col, strict=True)) for col in columns] for row in self.rows]
        return Tensor(rows, self.dtype, self.device)

    def __sub__(self, other):
        return Tensor(
            [[a - b for a, b in zip(r, s, strict=True)] for r, s in zip(self.rows, other.rows, strict=True)],
            self.dtype,
            self.device,
        )

    def double(self):
        return Tensor(self.rows, float64, self.device)

    def to(self, where):
        return Tensor(self.rows, self.dtype, where)

    def cpu(self):
        return self.to("cpu")

    def abs(self):
        return self._map(abs)

    def max(self):
        return Tensor([[max(max(row) for row in self.rows)]], self.dtype, self.device)

    def item(self):
        return self.rows[0][0]


def randn(*shape, dtype=float32):
    rows, cols = shape
    return Tensor([[random.gauss(0.0, 1.0) for _ in range(cols)] for _ in range(rows)], dtype)


def _gpus():
    try:
        with open("/etc/lab/hardware.json") as handle:
            return json.load(handle).get("gpus", [])
    except OSError:
        return []


class cuda:  # noqa: N801
    @staticmethod
    def is_available():
        return bool(_gpus())

    @staticmethod
    def device_count():
        return len(_gpus())

    @staticmethod
    def get_device_name(index=0):
        return _gpus()[index]["name"]

    @staticmethod
    def synchronize(where=None):
        return None
