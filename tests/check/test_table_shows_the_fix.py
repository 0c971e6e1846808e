"""The table format shows the fix, as SARIF (the rule's help), JSON and Markdown (`remediation`) do.

Seen: `accelplane check` in a terminal listed findings without what to do about them, while the
same run as SARIF or JSON carried it. Now the table ends its rows with one `fix <rule>:` line per rule
that found something (two findings of one rule, one line).
"""

from __future__ import annotations

import json

import pytest

from accelplane.cli import main


def test_each_rule_with_a_finding_gets_its_fix_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--stack", "tpu-prod", "--format", "json"]) == 0
    findings = json.loads(capsys.readouterr().out)["findings"]
    by_rule: dict[str, list[dict]] = {}
    for finding in findings:
        by_rule.setdefault(finding["rule"], []).append(finding)
    assert any(len(found) > 1 for found in by_rule.values()), "the stack should hold a rule with two findings"
    assert main(["check", "--stack", "tpu-prod"]) == 0
    table = capsys.readouterr().out.splitlines()
    for rule, found in by_rule.items():
        lines = [line for line in table if line.startswith(f"fix {rule}: ")]
        assert lines == [f"fix {rule}: {found[0]['remediation']}"], (rule, lines)
