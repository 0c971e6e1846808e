"""A pinned companion that was never released cannot be installed: incompatible, not a warning."""

from __future__ import annotations

import pytest

from accelplane.matrix import Verdict, load
from accelplane.matrix.versions import parse_version

C, W, X = Verdict.COMPATIBLE, Verdict.WARN, Verdict.INCOMPATIBLE
H100, V5E = "nvidia-h100", "google-tpu-v5e"

CASES = [
    ("torchaudio-never-released", {"accelerator": H100, "torch": "2.8.0", "torchaudio": "2.8.1"},
     "release.torchaudio"),
    ("torchaudio-never-released-alone", {"accelerator": H100, "torchaudio": "2.6.1"}, "release.torchaudio"),
    ("torchvision-never-released", {"accelerator": H100, "torch": "2.8.0", "torchvision": "0.23.1"},
     "release.torchvision"),
    ("jaxlib-never-released-in-jax-range", {"accelerator": V5E, "jax": "0.5.2", "jaxlib": "0.5.2"}, "release.jaxlib"),
    ("jaxlib-never-released-alone", {"accelerator": V5E, "jaxlib": "0.4.37"}, "release.jaxlib"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "stack", "rule"), CASES, ids=[c[0] for c in CASES])
def test_never_released_is_incompatible(judge, case, stack, rule) -> None:  # type: ignore[no-untyped-def]
    judged = judge(stack)
    assert judged.verdict(rule) is X, judged.dump()
    assert "never released" in judged.message(rule) and "cannot be installed" in judged.message(rule)
    assert judged.report.verdict is X
    # the pairing rules do not also call it "not in the matrix"
    assert not [f for f in judged.report.findings if f.not_in_matrix and f.rule.startswith("torch.")]


def test_released_companions_have_no_release_finding(judge) -> None:  # type: ignore[no-untyped-def]
    judged = judge({"accelerator": H100, "torch": "2.8.0", "torchvision": "0.23.0", "torchaudio": "2.8.0"})
    assert [f for f in judged.report.findings if f.rule.startswith("release.")] == []
    assert judged.verdict("torch.torchaudio") is C


def test_a_version_newer_than_the_registry_read_stays_not_in_the_matrix(judge) -> None:  # type: ignore[no-untyped-def]
    judged = judge({"accelerator": H100, "torch": "2.8.0", "torchvision": "0.40.0"})
    assert judged.findings("release.torchvision") == []
    assert judged.verdict("torch.torchvision") is W


def test_jax_range_is_not_called_compatible_for_a_jaxlib_that_does_not_exist(judge) -> None:  # type: ignore[no-untyped-def]
    judged = judge({"accelerator": V5E, "jax": "0.5.2", "jaxlib": "0.5.1"})
    assert judged.verdict("tpu.jax") is C
    judged = judge({"accelerator": V5E, "jax": "0.5.2", "jaxlib": "0.5.2"})
    assert [f for f in judged.findings("tpu.jax") if "jaxlib" in f.message] == []


def test_published_lists_cover_what_the_pairing_tables_name() -> None:
    data = load()
    published = {p.key: set(p.versions) for p in data.published.packages}
    for release in data.pytorch.releases:
        for key in ("torchvision", "torchaudio"):
            missing = [v for v in getattr(release, key) if v not in published[key]]
            assert missing == [], (release.torch, key, missing)
    jaxlibs = [parse_version(v) for v in published["jaxlib"]]
    for record in data.tpu.jax:  # each jax's jaxlib range holds at least one release
        low, high = parse_version(record.jaxlib_min), parse_version(record.jaxlib_max)
        assert any(low <= v <= high for v in jaxlibs), record.jax


def test_a_pin_after_a_closed_lines_last_release_cannot_be_installed(judge) -> None:
    """torchaudio is in maintenance: nothing after 2.11.1 (published.yaml `closed`, with its source).
    The boundary: 2.11.1 is a release; 2.11.2 and 2.12.0 are not. torchvision, whose line is open, is
    still "not in the matrix" above its window (it may simply be newer than the data)."""
    base = {"accelerator": "nvidia-h100", "python": "3.11", "driver": "580.95.05", "cuda": "13.0", "torch": "2.11.0"}
    released = judge({**base, "torchaudio": "2.11.1"})
    assert released.findings("release.torchaudio") == []
    for version in ("2.11.2", "2.12.0"):
        judged = judge({**base, "torchaudio": version})
        assert judged.verdict("release.torchaudio") is Verdict.INCOMPATIBLE
        [finding] = judged.findings("release.torchaudio")
        assert finding.message.startswith(f"torchaudio {version} was never released: torchaudio is in maintenance")
        assert "the last release is 2.11.1" in finding.message
        assert finding.source == "https://github.com/pytorch/pytorch.github.io/pull/2074"
    newer = judge({**base, "torchvision": "0.40.0"})
    assert newer.findings("release.torchvision") == []


def test_matrix_show_lists_a_packages_releases_and_refuses_an_unknown_one() -> None:
    from tests.support.cli_contract import run_cli

    shown = run_cli(["matrix", "show", "--package", "torchaudio"])
    assert shown.code == 0
    assert "2.10.0, 2.11.0, 2.11.1" in shown.out and "has not released after 2.11.1" in shown.out
    assert "0.29.1, 0.29.2" in run_cli(["matrix", "show", "--package", "torchvision"]).out
    unknown = run_cli(["matrix", "show", "--package", "tensorflow"])
    assert unknown.code == 2 and "no release list for 'tensorflow'" in unknown.err
