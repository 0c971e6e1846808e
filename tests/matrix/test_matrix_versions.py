"""The version parser orders vendor version strings correctly and refuses what is not a version."""

from __future__ import annotations

import pytest

from accelplane.matrix.versions import VersionError, parse_version


@pytest.mark.parametrize(
    ("lower", "higher"),
    [
        ("570.26", "570.124.06"),  # numeric, not lexical
        ("2.9.0", "2.10.0"),
        ("8.0.RC1", "8.0.RC3"),  # CANN release candidates ...
        ("8.0.RC3", "8.0.0"),  # ... come before the final release
        ("8.0.0", "8.1.RC1"),
        ("2.1.0", "2.1.0.post4"),  # torch_npu post releases after the final
        ("2.1.0.post4", "2.1.0.post17"),
        ("0.1.dev20240612", "0.1.dev20240916"),
        ("2.0.0.2.0.0b0", "2.0.0.2.0.1b0"),  # torch-neuronx betas
        ("1.13.1.1.17.0", "2.1.2.2.4.0"),
    ],
)
def test_versions_sort_like_the_vendors_release_them(lower: str, higher: str) -> None:
    assert parse_version(lower) < parse_version(higher)


@pytest.mark.parametrize(
    ("left", "right"),
    [("12.8", "12.8.0"), ("570.172.08", "570.172.8"), ("2.6.0+cu124", "2.6.0"), ("1.12.0-aws", "1.12.0")],
)
def test_trailing_zeros_and_local_labels_do_not_change_equality(left: str, right: str) -> None:
    assert parse_version(left) == parse_version(right)
    assert hash(parse_version(left)) == hash(parse_version(right))


def test_local_label_is_kept_for_build_detection() -> None:
    assert parse_version("2.8.0+cu128").local == "cu128"
    assert parse_version("6.8.0-1015-aws").local == "1015-aws"
    assert str(parse_version(" 2.8.0 ")) == "2.8.0"


@pytest.mark.parametrize("text", ["570.x", "2.9.*", "latest", "", "v", "1..2", "12,8"])
def test_malformed_versions_are_refused_with_a_hint(text: str) -> None:
    with pytest.raises(VersionError, match="pin an exact version"):
        parse_version(text)


def test_prefix_and_series_helpers() -> None:
    assert parse_version("2.9.1").has_prefix(parse_version("2.9"))
    assert not parse_version("2.10.0").has_prefix(parse_version("2.1"))
    assert parse_version("12.8.1").same_series(parse_version("12.8"), 2)
    assert str(parse_version("2.5.1.2.4.0").truncate(3)) == "2.5.1"
