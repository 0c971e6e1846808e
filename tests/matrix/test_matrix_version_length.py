"""A version longer than any vendor writes is a marked problem, not a ValueError (found by tests/fuzz).

`matrix check` with `cuda: "111…1"` (5,000 digits) ended in int()'s digit-limit ValueError, a
traceback; a compat_package with a hundred-digit major escaped as a VersionError.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from accelplane.cli import main
from accelplane.matrix.versions import MAX_LENGTH, VersionError, parse_version


@pytest.mark.parametrize("text", ["1" * 5000, "1." * 40 + "1", "2.9.0.dev" + "9" * 80])
def test_a_version_longer_than_the_limit_is_a_version_error(text: str) -> None:
    with pytest.raises(VersionError, match=f"at most {MAX_LENGTH}"):
        parse_version(text)


def test_the_longest_real_versions_still_parse() -> None:
    assert str(parse_version("2.9.0.2.15.32035")) == "2.9.0.2.15.32035"
    assert parse_version("570.172.08-0ubuntu1~22.04.1").release == (570, 172, 8)


@pytest.mark.parametrize(("key", "value", "message"), [
    ("cuda", "1" * 5000, "cuda: a version of 5000 characters (at most 64)"),
    ("compat_package", "cuda-compat-" + "9" * 70 + "-1", "compat_package: a version of 72 characters"),
])
def test_an_overlong_version_in_a_matrix_file_exits_2_naming_its_line(
    key: str, value: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "stack.yaml"
    path.write_text(f'accelerator: nvidia-h100\n{key}: "{value}"\n')
    assert main(["matrix", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"error: {path}:2: {message}" in err and "Traceback" not in err
