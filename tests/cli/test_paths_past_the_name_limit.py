"""A path the system cannot look up (a name longer than the file system allows) is "not found",
exit 2 naming the option: `Path.is_file()` and `is_dir()` raise OSError for it (found by tests/fuzz)."""

from __future__ import annotations

import pytest

from accelplane.cli import main

LONG = "x" * 300  # NAME_MAX is 255 bytes on Linux file systems


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", f"--stack={LONG}"], f"--stack: no stack '{LONG}'"),
        (["preview", f"--stack=org/{LONG}"], f"--stack: no stack 'org/{LONG}'"),
        (["verify", "--stack=dev", f"--ca-bundle={LONG}"], f"error: {LONG}: --ca-bundle: no such file"),
        (["diff", "--stack=dev", "--base=HEAD", f"--project-dir={LONG}"],
         f"error: {LONG}: --project-dir: not a directory"),
        (["diff", f"--stack-file={LONG}/Pulumi.dev.yaml", "--base=HEAD"],
         "--stack-file: cannot read: File name too long"),
    ],
)
def test_a_name_too_long_to_look_up_is_not_found_naming_the_option(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
