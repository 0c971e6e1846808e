"""docs/troubleshooting.md names only things that exist: policy rule ids (the registry), version-matrix
rules, `accelplane` commands (parsed by the CLI parser as it is now), `accelplane verify` checks,
node-validation report checks and settings, and the monitoring alerts; and it covers every symptom."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml

from accelplane.cli import build_parser
from accelplane.errors import InputError
from accelplane.rules.registry import RULES

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "troubleshooting.md"
TEXT = DOC.read_text(encoding="utf-8")
# Inline code spans, whitespace normalised (a span may wrap across lines of a paragraph).
SPANS = [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", TEXT)]

SYMPTOMS = [
    "Device not recognised",
    "Training start fails",
    "Communication timeout",
    "High inference latency",
    "Checkpoint load failure",
    "Frequent restarts",
    "Out of memory (OOM)",
    "Low utilisation",
    "Slow checkpoint writes",
    "Performance far below expectation",
]
_MATRIX_RULE = re.compile(r"^(nvidia|amd|nccl|efa|neuron|torch|stack|tpu|gaudi|ascend)\.[a-z0-9-]+$")
_VERIFY_CHECK = re.compile(r"^(drift|live|endpoint|checkpoint|verify|rules)\.([a-z-]+|\*)$")


def _sections() -> dict[str, str]:
    parts = re.split(r"^## (.+)$", TEXT, flags=re.MULTILINE)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def _slug(heading: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def test_every_symptom_has_detection_before_and_after_go_live_and_actions() -> None:
    sections = _sections()
    for symptom in SYMPTOMS:
        assert symptom in sections, f"missing section: {symptom}"
        body = sections[symptom]
        for part in ("**What you see.**", "**Before go-live.**", "**After go-live.**", "**What to do.**"):
            assert part in body, f"{symptom}: no {part}"
    glance = sections["At a glance"]
    anchors = re.findall(r"\]\(#([^)]+)\)", glance)
    assert sorted(anchors) == sorted(_slug(s) for s in SYMPTOMS)


def test_every_rule_id_is_in_the_registry_with_the_name_given() -> None:
    rules = {rule.id: rule for rule in RULES}
    named = set(re.findall(r"\bAP-[A-Z0-9]+-\d{3}\b", TEXT))
    assert len(named) >= 12
    assert named <= set(rules), f"unknown rule ids: {sorted(named - set(rules))}"
    # "`AP-S3-007` (s3-access-scoped-to-prefix)": the name in parentheses is the rule's.
    for rule_id, name in re.findall(r"`(AP-[A-Z0-9]+-\d{3})` \(([a-z0-9-]+)\)", TEXT):
        assert rules[rule_id].name == name, f"{rule_id} is {rules[rule_id].name}, the runbook says {name}"


def _parse(command: str) -> None:
    tokens = shlex.split(command.replace("<", "").replace(">", ""))
    assert tokens[0] == "accelplane"
    build_parser().parse_args(tokens[1:])


def test_every_accelplane_command_parses_with_the_cli_as_it_is() -> None:
    commands = sorted({span for span in SPANS if span.startswith("accelplane ")})
    assert len(commands) >= 12
    subcommands = {command.split()[1] for command in commands}
    assert subcommands >= {"check", "diff", "preview", "matrix", "nodes", "verify"}
    problems = []
    for command in commands:
        try:
            _parse(command)
        except (InputError, SystemExit) as error:
            problems.append(f"{command}: {error}")
    assert not problems, "\n".join(problems)


def test_the_command_check_itself_rejects_what_does_not_exist() -> None:
    for wrong in ("accelplane frobnicate --stack prod", "accelplane check --stak prod",
                  "accelplane verify --probes many --stack prod", "accelplane nodes validate"):
        with pytest.raises(InputError):
            _parse(wrong)


def test_every_matrix_rule_named_exists_in_the_matrix_checks() -> None:
    sources = "\n".join(p.read_text() for p in (ROOT / "accelplane" / "matrix" / "checks").glob("*.py"))
    # The matrix has no registry of rule names: each check function names its rule in a literal.
    known = set(re.findall(r'"([a-z]+\.[a-z0-9-]+)"', sources))
    named = {span for span in SPANS if _MATRIX_RULE.match(span)}
    assert len(named) >= 10
    assert named <= known, f"unknown matrix rules: {sorted(named - known)}"


def test_every_verify_check_named_exists() -> None:
    from accelplane.verify.results import CheckId

    known = {check.value for check in CheckId}
    prefixes = {value.split(".")[0] for value in known}
    named = {span for span in SPANS if _VERIFY_CHECK.match(span)}
    assert len(named) >= 8
    for check in named:
        if check.endswith(".*"):
            assert check[:-2] in prefixes, f"no verify checks under {check}"
        else:
            assert check in known, f"unknown verify check: {check}"


def test_node_validation_checks_and_settings_exist() -> None:
    from accelplane.declaration.bare_metal import Validation

    tasks = yaml.safe_load((ROOT / "roles" / "node_validation" / "tasks" / "main.yml").read_text())
    report = next(t["ansible.builtin.set_fact"]["node_validation_report"] for t in tasks
                  if "node_validation_report" in (t.get("ansible.builtin.set_fact") or {}))
    checks = {span.split(".", 1)[1] for span in SPANS if re.fullmatch(r"checks\.[a-z_]+", span)}
    assert checks == set(report["checks"]), "the runbook should name every check of the node report"
    settings = {span.split(".", 1)[1] for span in SPANS if re.fullmatch(r"validation\.[a-z_]+", span)}
    assert settings and settings <= set(Validation.model_fields)


def test_alerts_named_are_the_monitoring_layers() -> None:
    from accelplane.k8s.monitoring import ALERTS

    alerts = {alert[0] for alert in ALERTS}
    named = {span for span in SPANS if re.fullmatch(r"(Accelerator|Neuron|Inference|Node)[A-Z][A-Za-z0-9]+", span)}
    assert named == alerts, f"named {sorted(named)}, defined {sorted(alerts)}"
