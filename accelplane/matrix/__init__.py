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

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from accelplane.matrix.findings import MatrixFinding, MatrixReport, Verdict
    from accelplane.matrix.frameworks import FRAMEWORKS
    from accelplane.matrix.judge import check
    from accelplane.matrix.keys import MATRIX_KEYS
    from accelplane.matrix.loader import MatrixData, MatrixDataError, accelerators, load
    from accelplane.matrix.resolver import resolve
    from accelplane.matrix.schema import AcceleratorFacts, KernelModule, Vendor

# Public name -> the module defining it. Resolved on first use (PEP 562): importing one module of the
# package (the declaration needs only `schema`) must not load every check (start-up time of
# `check --state` and `schema`).
_EXPORTS = {
    "check": "judge", "MatrixData": "loader", "MatrixDataError": "loader", "accelerators": "loader",
    "load": "loader", "MatrixFinding": "findings", "MatrixReport": "findings", "Verdict": "findings",
    "FRAMEWORKS": "frameworks", "resolve": "resolver", "AcceleratorFacts": "schema", "KernelModule": "schema",
    "Vendor": "schema", "MATRIX_KEYS": "keys",
}
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


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{module}"), name)
