"""AMD across ROCm's compatibility history: retired Instinct GPUs, Radeon PRO / RX targets, products
per release, per-patch OS limits, and each ROCm patch release judged by its own column."""

from __future__ import annotations

import pytest

from accelplane.matrix import Verdict, accelerators

C, W, X = Verdict.COMPATIBLE, Verdict.WARN, Verdict.INCOMPATIBLE
HIST = "github:ROCm/ROCm@e396b48/docs/compatibility/compatibility-matrix-historical-6.0.csv"

REQUIRED = [
    "amd-mi25", "amd-mi50", "amd-mi60", "amd-mi100", "amd-mi210", "amd-mi250", "amd-mi250x", "amd-mi300a",
    "amd-mi300x", "amd-mi325x", "amd-mi350x", "amd-mi355x", "amd-radeon-pro-w6800", "amd-radeon-pro-v620",
    "amd-radeon-pro-w7800", "amd-radeon-pro-w7900", "amd-radeon-rx-7900-xtx", "amd-radeon-rx-7900-xt",
    "amd-radeon-rx-7900-gre",
]  # fmt: skip


def test_the_vocabulary_has_every_instinct_and_radeon_target_of_the_history() -> None:
    vocabulary = accelerators()
    assert [n for n in REQUIRED if n not in vocabulary] == []


CASES = [
    ("mi50-on-5.7.1", {"accelerator": "amd-mi50", "rocm": "5.7.1"}, "amd.gpu-target", C, []),
    ("mi50-on-5.7.0", {"accelerator": "amd-mi50", "rocm": "5.7.0"}, "amd.gpu-target", C, []),
    (
        "mi50-retired-in-6.0.2",
        {"accelerator": "amd-mi50", "rocm": "6.0.2"},
        "amd.gpu-target",
        X,
        ["ROCm 6.0.2", "gfx906", "5.7.1"],
    ),
    (
        "mi60-not-listed-in-5.7.1",
        {"accelerator": "amd-mi60", "rocm": "5.7.1"},
        "amd.gpu-target",
        X,
        ["does not list", "MI60"],
    ),
    ("mi60-on-5.0.0", {"accelerator": "amd-mi60", "rocm": "5.0.0"}, "amd.gpu-target", C, []),
    ("mi25-on-5.0.0", {"accelerator": "amd-mi25", "rocm": "5.0.0"}, "amd.gpu-target", C, []),
    ("mi25-unsupported-in-5.6.0", {"accelerator": "amd-mi25", "rocm": "5.6.0"}, "amd.gpu-target", X, ["gfx900"]),
    ("mi100-on-6.3.3", {"accelerator": "amd-mi100", "rocm": "6.3.3"}, "amd.gpu-target", C, []),
    ("mi300a-on-6.0.0", {"accelerator": "amd-mi300a", "rocm": "6.0.0"}, "amd.gpu-target", C, []),
    ("mi350x-on-7.1.1", {"accelerator": "amd-mi350x", "rocm": "7.1.1"}, "amd.gpu-target", C, []),
    ("mi350x-before-7", {"accelerator": "amd-mi350x", "rocm": "6.4.3"}, "amd.gpu-target", X, ["7.0.0"]),
    ("w6800-on-5.7.1", {"accelerator": "amd-radeon-pro-w6800", "rocm": "5.7.1"}, "amd.gpu-target", C, []),
    ("w7900-on-6.3.3", {"accelerator": "amd-radeon-pro-w7900", "rocm": "6.3.3"}, "amd.gpu-target", C, []),
    (
        "w7900-not-in-5.7.1-linux-list",
        {"accelerator": "amd-radeon-pro-w7900", "rocm": "5.7.1"},
        "amd.gpu-target",
        X,
        ["gfx1100"],
    ),
    ("rx-7900-xtx-on-6.2.4", {"accelerator": "amd-radeon-rx-7900-xtx", "rocm": "6.2.4"}, "amd.gpu-target", C, []),
    (
        "released-patch-without-a-column",
        {"accelerator": "amd-mi300x", "rocm": "6.1.3"},
        "amd.gpu-target",
        W,
        ["not in the matrix", "6.1.2", "not judged by another"],
    ),
    # Patch releases AMD publishes a column for are judged by it (the 7.2.0 revision of the table).
    ("mi300x-on-6.1.5", {"accelerator": "amd-mi300x", "rocm": "6.1.5"}, "amd.gpu-target", C, []),
    ("mi300x-on-6.4.1", {"accelerator": "amd-mi300x", "rocm": "6.4.1", "os": "ubuntu-24.04.2"}, "amd.os", C, []),
    ("mi300x-on-6.4.3", {"accelerator": "amd-mi300x", "rocm": "6.4.3"}, "amd.gpu-target", C, []),
    ("mi355x-on-7.0.2", {"accelerator": "amd-mi355x", "rocm": "7.0.2"}, "amd.gpu-target", C, []),
    ("mi355x-on-7.2.0", {"accelerator": "amd-mi355x", "rocm": "7.2.0"}, "amd.gpu-target", C, []),
    # RDNA4 (gfx1201) arrives in 6.4.1: the patch release differs from its minor's first release.
    ("rdna4-on-6.4.1", {"accelerator": "amd-radeon-ai-pro-r9700", "rocm": "6.4.1"}, "amd.gpu-target", C, []),
    (
        "rdna4-not-on-6.4.0",
        {"accelerator": "amd-radeon-ai-pro-r9700", "rocm": "6.4.0"},
        "amd.gpu-target",
        X,
        ["gfx1201"],
    ),
    # SLES 15 SP7 arrives in 6.4.2, not in 6.4.1.
    ("sles-sp7-on-6.4.2", {"accelerator": "amd-mi300x", "rocm": "6.4.2", "os": "sles-15.7"}, "amd.os", C, []),
    (
        "sles-sp7-not-on-6.4.1",
        {"accelerator": "amd-mi300x", "rocm": "6.4.1", "os": "sles-15.7"},
        "amd.os",
        W,
        ["validated on sles-15.6"],
    ),
    (
        "oracle-9-only-for-mi300x-in-6.4",
        {"accelerator": "amd-mi250x", "rocm": "6.4.2", "os": "oraclelinux-9"},
        "amd.os",
        X,
        ["only for"],
    ),
    (
        "oracle-9-mi300x-on-6.4.2",
        {"accelerator": "amd-mi300x", "rocm": "6.4.2", "os": "oraclelinux-9"},
        "amd.os",
        C,
        [],
    ),
    # A patch after the table (6.4.4) is not judged by 6.4.3's column.
    (
        "patch-after-the-table",
        {"accelerator": "amd-mi300x", "rocm": "6.4.4"},
        "amd.gpu-target",
        W,
        ["not in the matrix"],
    ),
    (
        "never-released-patch",
        {"accelerator": "amd-mi300x", "rocm": "6.2.3"},
        "release.rocm",
        X,
        ["never released", "6.2.2", "6.2.4"],
    ),
    (
        "never-released-user-space",
        {"accelerator": "amd-mi300x", "rocm": "6.3.3", "rocm_userspace": "6.0.1"},
        "release.rocm_userspace",
        X,
        ["never released"],
    ),
    (
        "mi300x-on-6.0.0-rhel",
        {"accelerator": "amd-mi300x", "rocm": "6.0.0", "os": "rhel-9.3"},
        "amd.os",
        X,
        ["only on ubuntu-22.04.3"],
    ),
    ("mi300a-on-6.0.0-rhel-8.9", {"accelerator": "amd-mi300a", "rocm": "6.0.0", "os": "rhel-8.9"}, "amd.os", C, []),
    (
        "mi300x-on-6.1.1-oracle",
        {"accelerator": "amd-mi300x", "rocm": "6.1.1", "os": "oraclelinux-8.9"},
        "amd.os",
        C,
        [],
    ),
    (
        "mi300x-on-6.1.0-oracle",
        {"accelerator": "amd-mi300x", "rocm": "6.1.0", "os": "oraclelinux-8.9"},
        "amd.os",
        X,
        ["6.1.0"],
    ),
    (
        "oracle-only-for-mi300x",
        {"accelerator": "amd-mi250x", "rocm": "6.3.3", "os": "oraclelinux-8.10"},
        "amd.os",
        X,
        ["only for"],
    ),
]


@pytest.mark.parametrize(("case", "stack", "rule", "verdict", "words"), CASES, ids=[c[0] for c in CASES])
def test_amd_history(judge, case, stack, rule, verdict, words) -> None:  # type: ignore[no-untyped-def]
    judged = judge(stack)
    assert judged.verdict(rule) is verdict, judged.dump()
    for word in words:
        assert word in judged.message(rule), judged.message(rule)


def test_a_retired_gpu_is_judged_by_the_patch_release_itself(judge) -> None:  # type: ignore[no-untyped-def]
    judged = judge({"accelerator": "amd-mi50", "rocm": "6.0.2"})
    (finding,) = judged.findings("amd.gpu-target")
    assert finding.verdict is X and "ROCm 6.0.2 " in finding.message and finding.source == HIST
    assert not [f for f in judged.report.findings if f.not_in_matrix]


def test_a_never_released_patch_is_not_judged_by_its_neighbour(judge) -> None:  # type: ignore[no-untyped-def]
    judged = judge({"accelerator": "amd-mi300x", "rocm": "6.2.3"})
    assert judged.findings("amd.gpu-target") == []
    assert judged.report.verdict is X
