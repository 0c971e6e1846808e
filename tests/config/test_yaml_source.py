"""Stack-file YAML is read safely: impossible dates are field errors with their line (not a
traceback), date-looking text stays text, and shapes that would hang or exhaust memory downstream
(deep nesting, recursive aliases, alias bombs, unhashable keys, huge integers) are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from accelplane.cli import main
from accelplane.config.loader import load_stack_file
from accelplane.config.yaml_source import MAX_DEPTH, parse_yaml
from accelplane.errors import InputError
from tests.support.stack_files import stack_text, write_variant


def _error(text: str) -> str:
    with pytest.raises(InputError) as caught:
        parse_yaml(text, "f.yaml")
    return str(caught.value)


def test_an_impossible_waiver_date_names_its_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = stack_text("dev").rstrip("\n") + (
        "\n    waivers:\n      - rule: AP-KMS-001\n        resource: acme-ml-dev-data-key\n"
        "        reason: rotation handled by the quarterly job\n        owner: ml-platform\n"
        "        expires: 2026-06-31\n"
    )
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(text)
    line = text.splitlines().index("        expires: 2026-06-31") + 1
    assert main(["check", "--stack-file", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{line}: accelplane:platform.waivers[0].expires:" in err and "day value is outside" in err
    assert "Traceback" not in err


def test_a_date_looking_description_stays_text(tmp_path: Path) -> None:
    path, _ = write_variant(
        tmp_path, "description: Chart versions of the cluster-wide controllers", "description: 2026-02-30", stack="dev")
    stack = load_stack_file(path)
    assert any(profile.description == "2026-02-30" for profile in stack.platform.software_profiles.values())


def test_dates_are_strings_for_the_models_to_parse() -> None:
    assert parse_yaml("a: 2026-01-31\nb: 2026-02-30\n", "f.yaml").data == {"a": "2026-01-31", "b": "2026-02-30"}


def test_an_alias_bomb_is_refused_before_it_expands() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    assert "aliases expand to more than 1,000,000 values" in _error("\n".join(lines) + "\n")


def test_a_recursive_alias_is_refused() -> None:
    assert "an alias refers to a node that contains it" in _error("a: &loop\n  - *loop\n")


def test_nesting_past_the_limit_is_refused_with_its_line() -> None:
    text = "a:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(MAX_DEPTH + 5)) + "  " * (MAX_DEPTH + 6) + "x\n"
    assert f"nested deeper than {MAX_DEPTH} levels" in _error(text)
    assert "f.yaml:1: malformed YAML" in _error("[" * 10_000 + "]" * 10_000)


def test_an_unhashable_key_is_a_marked_error() -> None:
    assert "f.yaml:2: malformed YAML: a list or mapping cannot be a mapping key" in _error("a: 1\n? [x, y]\n: 2\n")


def test_an_integer_past_the_conversion_limit_is_a_marked_error() -> None:
    message = _error("a: 1\nb: " + "9" * 5000 + "\n")
    assert message.startswith("error: f.yaml:2: malformed YAML:") and "digits" in message


def test_tens_of_thousands_of_tags_are_refused_with_one_problem(tmp_path: Path) -> None:
    extra = "".join(f"        team-{i}: value-{i}\n" for i in range(30_000))
    path, _ = write_variant(tmp_path, "      cost_centre: ", "      extra:\n" + extra + "      cost_centre: ")
    with pytest.raises(InputError) as caught:
        load_stack_file(path)
    assert len(caught.value.problems) == 1
    assert "30000 tags, but AWS allows 50 per resource" in str(caught.value)
