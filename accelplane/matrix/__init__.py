"""The version matrix: compatibility facts as data, one checker, resolvable software profiles.

Public API (the rest of accelplane imports only these names):

- `accelerators()` -> mapping of the closed accelerator vocabulary to `AcceleratorFacts`.
- `MATRIX_KEYS` -> the flat keys of the `matrix check` contract (docs/design.md).
- `check(stack, *, as_of=None, strict=False, origin="<input>", lines=None)` -> `MatrixReport`
  (`.verdict`, `.findings`, `.to_json()`); raises `InputError` on bad input.
- `resolve(accelerator, framework=None, os=None, python=None, as_of=None)` -> the newest fully
  compatible software profile as a flat `dict[str, str]`.

The facts live in `accelplane/matrix/data/*.yaml`, each with its public source; `load()` validates
them once per process.
"""

from __future__ import annotations

from accelplane.matrix.check import check
from accelplane.matrix.loader import MatrixData, MatrixDataError, accelerators, load
from accelplane.matrix.report import MatrixFinding, MatrixReport, Verdict
from accelplane.matrix.resolve import FRAMEWORKS, resolve
from accelplane.matrix.schema import AcceleratorFacts, KernelModule, Vendor
from accelplane.matrix.stack import MATRIX_KEYS

__all__ = [
    "FRAMEWORKS",
    "MATRIX_KEYS",
    "AcceleratorFacts",
    "KernelModule",
    "MatrixData",
    "MatrixDataError",
    "MatrixFinding",
    "MatrixReport",
    "Vendor",
    "Verdict",
    "accelerators",
    "check",
    "load",
    "resolve",
]
