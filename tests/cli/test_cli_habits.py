"""Habits a command-line user expects: `--version`, a quiet end when the reader closes the pipe, the
rules listed and shown."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from accelplane.cli import main, version

ROOT = Path(__file__).resolve().parents[2]


def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"accelplane {version()}" and version() != "0+unknown"


@pytest.mark.parametrize("argv", [["preview", "--stack", "dev"], ["matrix", "show", "--accelerator", "nvidia-h100"]])
def test_a_reader_that_stops_early_ends_the_command_quietly(argv: list[str]) -> None:
    """`accelplane preview --stack dev | head -1`: no BrokenPipeError traceback."""
    process = subprocess.Popen([sys.executable, "-m", "accelplane", *argv], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()  # what `head -1` does once it has its line
    err = process.stderr.read().decode()
    process.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert process.returncode in (0, -13), process.returncode  # done, or ended by SIGPIPE like `yes | head`


def test_rules_list_names_every_rule_and_show_finds_one_by_id_old_id_or_slug(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["rules", "list", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    from accelplane.rules.registry import RULES

    # The registered rules and the two checks only `accelplane diff` makes (AP-RO-004, AP-CAP-002).
    assert len(listed) == len(RULES) + 2 and {"id", "severity", "checks", "why", "fix", "sources"} <= set(listed[0])
    for key in ("AP-GTAG-001", "AP-TAG-004", "gcp-required-labels"):
        assert main(["rules", "show", key, "--format", "json"]) == 0
        assert json.loads(capsys.readouterr().out)["id"] == "AP-GTAG-001"
    assert main(["rules", "show", "AP-IAM-001"]) == 0
    text = capsys.readouterr().out
    assert "checks:  Checks whether an IAM identity policy allows every action" in text and "fix:" in text


def test_the_diff_only_step_check_is_listed_and_shown(capsys: pytest.CaptureFixture[str]) -> None:
    """`accelplane rules show AP-RO-004` said "no rule 'AP-RO-004'; did you mean AP-RO-003 ..." although
    the README names it and `accelplane diff` reports it: every id a command reports is listed and shown."""
    assert main(["rules", "list"]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert [line.split()[:4] for line in listing if line.startswith("AP-RO-004")] == [
        ["AP-RO-004", "high", "mandatory", "rollout"]]
    assert "(diff only)" in next(line for line in listing if line.startswith("AP-RO-004"))
    assert listing[-1].startswith("131 rules and 2 checks of `accelplane diff` only")
    assert main(["rules", "show", "ap-ro-004", "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["name"] == "rollout-one-step-per-change" and record["diff_only"] is True
    assert "two canaries growing at once" in record["why"]
    assert main(["rules", "show", "AP-IAM-001", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["diff_only"] is False


def test_an_unknown_rule_is_bad_input_with_the_nearest_ids(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "show", "AP-IAM-0001"]) == 2
    err = capsys.readouterr().err
    assert "no rule 'AP-IAM-0001'; did you mean AP-IAM-001" in err and "Traceback" not in err


def test_nodes_counts_the_hosts_the_limit_selects() -> None:
    """`nodes apply --limit h100-01` announces 1 host, not every host of the stack."""
    from accelplane.cli.nodes import limited_hosts
    from accelplane.config.loader import load_stack
    from accelplane.nodes.inventory import build_inventory

    inventory = build_inventory(load_stack("lab"))
    every = set(inventory.hosts)
    first = sorted(every)[0]
    assert limited_hosts(first, inventory) == {first}
    assert limited_hosts("all", inventory) == every
    assert limited_hosts(f"all:!{first}", inventory) == every - {first}
    group = next(name for name, g in inventory.groups.items() if g.get("hosts"))
    assert limited_hosts(group, inventory) == set(inventory.groups[group]["hosts"])
    assert limited_hosts(f"all:&{group}", inventory) == set(inventory.groups[group]["hosts"])


def test_the_verdict_line_counts_in_the_right_number_and_names_a_failure_that_is_no_finding() -> None:
    from accelplane.report.document import Report

    report = Report(tool="accelplane check", subject="stack dev", items=[], rules=[])
    assert report.verdict_line() == "PASSED: 0 blocking findings, 0 findings"
    report.failures.append("waiver 0 (AP-TAG-001 on acme) expired on 2026-01-01")
    assert report.verdict_line() == ("FAILED: 0 blocking findings, 0 findings, 1 failure: waiver 0 (AP-TAG-001 on "
                                     "acme) expired on 2026-01-01")


def test_every_json_report_says_which_tool_and_versions_wrote_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--stack", "dev", "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert (summary["tool"], summary["version"], summary["reportSchemaVersion"]) == ("accelplane", version(), 1)


@pytest.mark.parametrize("fmt", ["sarif", "json", "junit"])
def test_an_output_file_is_written_on_bad_input_with_the_error_as_its_result(
    tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    stack = tmp_path / "Pulumi.dev.yaml"
    stack.write_text((ROOT / "stacks" / "Pulumi.dev.yaml").read_text().replace("accelerator: nvidia-l4\n",
                                                                              "accelerator: nvidia-l4x\n", 1))
    out = tmp_path / f"report.{fmt}"
    assert main(["check", "--stack-file", str(stack), "--format", fmt, "--output", str(out)]) == 2
    assert "unknown accelerator 'nvidia-l4x'" in capsys.readouterr().err
    text = out.read_text()
    assert "unknown accelerator" in text and "accelplane.input" in text
    if fmt == "sarif":
        [result] = [r for r in json.loads(text)["runs"][0]["results"] if "unknown accelerator" in r["message"]["text"]]
        assert result["level"] == "error"
        assert result["locations"][0]["physicalLocation"]["region"]["startLine"] > 1
