"""`resolve()`: the newest profile the matrix proves fully compatible, for every accelerator."""

from __future__ import annotations

import datetime as dt

import pytest

from accelplane.errors import InputError
from accelplane.matrix import Verdict, accelerators, check, resolve
from accelplane.matrix.resolver import NoProfileFoundError
from accelplane.matrix.versions import parse_version

AS_OF = dt.date(2026, 12, 2)


# Kepler's last driver branch (R470) runs CUDA up to 11.4, and the oldest torch in the matrix (1.13) is
# built for CUDA 11.6/11.7; the MI25 and MI60 are listed by no ROCm release in the matrix after 5.0.0,
# older than any torch ROCm build (rocm5.2). No torch profile is fully compatible, and resolve says so.
NO_TORCH_PROFILE = frozenset(n for n, f in accelerators().items() if f.architecture == "kepler") | {
    "amd-mi25",
    "amd-mi60",
}


@pytest.mark.parametrize("name", sorted(accelerators()))
def test_every_accelerator_resolves_to_a_fully_compatible_profile(name: str) -> None:
    if name in NO_TORCH_PROFILE:
        with pytest.raises(NoProfileFoundError):
            resolve(name, as_of=AS_OF)
        return
    profile = resolve(name, as_of=AS_OF)
    assert profile["accelerator"] == name
    assert all(isinstance(v, str) for v in profile.values())
    report = check(profile, as_of=AS_OF)
    assert report.verdict is Verdict.COMPATIBLE, [f.message for f in report.problems()]


def test_nvswitch_profiles_pin_fabric_manager_to_the_driver() -> None:
    profile = resolve("nvidia-hgx-b200-8gpu", as_of=AS_OF)
    assert profile["fabric_manager"] == profile["driver"]
    assert profile["kernel_module"] == "open"


def test_volta_resolves_below_cuda_13_on_a_proprietary_r580_driver() -> None:
    profile = resolve("nvidia-v100", as_of=AS_OF)
    assert parse_version(profile["cuda"]).major == 12
    assert profile["driver"].startswith("580.") and profile["kernel_module"] == "proprietary"


def test_python_narrows_the_choice() -> None:
    profile = resolve("nvidia-h100", python="3.9", as_of=AS_OF)
    assert profile["python"] == "3.9" and profile["torch"] == "2.8.0"


def test_an_end_of_life_branch_is_not_chosen() -> None:
    later = dt.date(2027, 4, 1)  # R595 and R610 are past end of life; R580 LTSB is not
    profile = resolve("nvidia-h100", as_of=later)
    assert profile["driver"].startswith("580.")
    assert check(profile, as_of=later).verdict is Verdict.COMPATIBLE


def test_os_is_respected_for_rocm() -> None:
    profile = resolve("amd-mi250x", os="ubuntu-20.04", as_of=AS_OF)
    assert profile["os"] == "ubuntu-20.04" and parse_version(profile["rocm"]) < parse_version("6.2")


def test_tpu_defaults_to_jax_and_can_resolve_torch_xla() -> None:
    jax = resolve("google-tpu-v6e", as_of=AS_OF)
    assert "jax" in jax and jax["tpu_runtime"] == "v2-alpha-tpuv6e"
    torch = resolve("google-tpu-v6e", framework="torch", as_of=AS_OF)
    assert torch["torch_xla"].startswith(torch["torch"].rsplit(".", 1)[0])


def test_unknown_accelerator_and_unsupported_framework_are_input_errors() -> None:
    with pytest.raises(InputError, match="unknown accelerator"):
        resolve("nvidia-h1000")
    with pytest.raises(InputError, match="framework 'jax'"):
        resolve("nvidia-h100", framework="jax")
    with pytest.raises(InputError, match="malformed os"):
        resolve("nvidia-h100", os="ubuntu")


def test_nothing_fits_is_reported() -> None:
    with pytest.raises(NoProfileFoundError, match="nvidia-v100"):
        resolve("nvidia-v100", python="3.15", as_of=AS_OF)
