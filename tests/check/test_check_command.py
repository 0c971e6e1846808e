"""`accelplane check` end to end: sources (stack, state, plan), exit codes, formats, waivers,
strictness and enforcement configuration."""

from __future__ import annotations

import copy
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from accelplane.cli import main
from accelplane.rules.registry import RULES
from accelplane.rules.rule import Family
from accelplane.rules.view import UNKNOWN_SENTINELS
from tests.support.stack_files import stack_text

BAD_STATE = Path(__file__).parent / "fixtures" / "bad-stack-export.json"
FINDING_KEYS = ["rule", "severity", "enforcement", "urn", "type", "name", "message", "remediation", "waived"]
FAMILY_OF = {rule.id: rule.family for rule in RULES}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


def as_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = run(capsys, *args, "--format", "json")
    return code, json.loads(out)


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_real_stacks_have_no_mandatory_findings(capsys, stack: str) -> None:
    code, report = as_json(capsys, "--stack", stack)
    mandatory = [f for f in report["findings"] if f["enforcement"] == "mandatory" and not f["waived"]]
    assert mandatory == [], mandatory
    assert code == 0
    assert report["summary"]["passed"] is True and report["summary"]["resources"] > 90


def test_bad_stack_export_trips_every_family(capsys) -> None:
    code, report = as_json(capsys, "--state", str(BAD_STATE))
    assert code == 1
    assert all(list(f) == FINDING_KEYS for f in report["findings"])
    assert {FAMILY_OF[f["rule"]] for f in report["findings"]} == set(Family)
    # Blocking: the mandatory rules' findings (dev's secrets never rotate: AP-SM-003 advises).
    mandatory = [f for f in report["findings"] if f["enforcement"] == "mandatory"]
    assert report["summary"]["blocking"] == len(mandatory) == len(report["findings"]) - 1


def _plan_from_state(state: dict[str, Any]) -> dict[str, Any]:
    steps = []
    for resource in state["deployment"]["resources"]:
        new_state = {k: resource[k] for k in ("urn", "type", "inputs", "parent", "protect", "dependencies", "custom")}
        steps.append({"op": "create", "urn": resource["urn"], "newState": new_state})
    return {"steps": steps, "changeSummary": {"create": len(steps)}}


def test_plan_file_gives_the_findings_of_the_state_it_creates(capsys, tmp_path: Path) -> None:
    state = json.loads(BAD_STATE.read_text())
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(_plan_from_state(state)))
    _, from_state = as_json(capsys, "--state", str(BAD_STATE))
    code, from_plan = as_json(capsys, "--plan", str(plan))
    assert code == 1
    def pairs(report: dict[str, Any]) -> set[tuple[str, str]]:
        return {(f["rule"], f["urn"]) for f in report["findings"]}

    assert pairs(from_plan) == pairs(from_state)


def test_plan_values_unknown_at_preview_skip_the_rule_instead_of_passing_or_failing(capsys, tmp_path: Path) -> None:
    state = json.loads(BAD_STATE.read_text())
    plan = _plan_from_state(state)
    unknown = next(iter(UNKNOWN_SENTINELS))
    for step in plan["steps"]:
        if step["urn"].endswith("acme-ml-dev-infer-l4-lt"):
            unknown_number = "3eeb2bf0-c639-47a8-9e75-3b44932eb421"
            step["newState"]["inputs"]["metadataOptions"]["httpPutResponseHopLimit"] = unknown_number
        if step["urn"].endswith("acme-ml-dev-trainer-access"):
            step["newState"]["inputs"]["policy"] = unknown
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan))
    _, report = as_json(capsys, "--plan", str(path))
    rules = {(f["rule"], f["name"]) for f in report["findings"]}
    assert ("AP-EC2-002", "acme-ml-dev-infer-l4-lt") not in rules
    assert ("AP-IAM-001", "acme-ml-dev-trainer-access") not in rules
    assert any("values unknown until apply" in note for note in report["summary"]["notes"])


def test_deleted_resources_in_a_plan_are_not_judged(capsys, tmp_path: Path) -> None:
    plan = _plan_from_state(json.loads(BAD_STATE.read_text()))
    for step in plan["steps"]:
        if step["urn"].endswith(("ci-deployer", "ci-deployer-key")):
            step["op"] = "delete"
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan))
    _, report = as_json(capsys, "--plan", str(path))
    assert not any(f["name"].startswith("ci-deployer") for f in report["findings"])


def test_accelplane_preview_json_is_accepted_as_a_plan(capsys, tmp_path: Path) -> None:
    state = json.loads(BAD_STATE.read_text())
    graph = {"stack": "dev", "resources": [
        {**{k: r[k] for k in ("urn", "type", "inputs", "parent")}, "name": r["urn"].rsplit("::", 1)[-1]}
        for r in state["deployment"]["resources"]]}
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(graph))
    code, report = as_json(capsys, "--plan", str(path))
    assert code == 1 and any(f["rule"] == "AP-KMS-001" for f in report["findings"])


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "not valid JSON"),
        ('{"deployment": {"resources": [{"urn": "x", "type": "t"}]}}', "deployment.resources[0].urn"),
        ('{"deployment": {"resources": [{"urn": "urn:pulumi:a::b::t::n", "type": "aws:x:Y", "inputs": []}]}}',
         "deployment.resources[0].inputs"),
        ("[]", "deployment"),
    ],
)
def test_bad_state_files_exit_2_naming_file_and_field(capsys, tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / "state.json"
    path.write_text(content)
    code, out, err = run(capsys, "--state", str(path))
    assert code == 2 and out == ""
    assert str(path) in err and expected in err and "Traceback" not in err


def test_bad_plan_and_missing_files_exit_2(capsys, tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text('{"steps": [{"op": 3}]}')
    code, _, err = run(capsys, "--plan", str(path))
    assert code == 2 and "steps[0].op" in err
    code, _, err = run(capsys, "--plan", str(tmp_path / "missing.json"))
    assert code == 2 and "file not found" in err
    code, _, err = run(capsys)
    assert code == 2 and "--stack" in err


# ------------------------------------------------------------------------------------- formats


def test_every_format_renders_the_same_findings(capsys, tmp_path: Path) -> None:
    _, report = as_json(capsys, "--state", str(BAD_STATE))
    count = len(report["findings"])
    outputs = {}
    for fmt in ("table", "sarif", "junit", "markdown"):
        target = tmp_path / f"report.{fmt}"
        code, out, err = run(capsys, "--state", str(BAD_STATE), "--format", fmt, "--output", str(target))
        assert code == 1 and out == "" and "FAILED" in err
        outputs[fmt] = target.read_text()
    sarif = json.loads(outputs["sarif"])
    assert sarif["version"] == "2.1.0" and sarif["$schema"].endswith("sarif-2.1.0.json")
    run_ = sarif["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    assert len(run_["results"]) == count
    enforcement = {(f["rule"], f["urn"]): f["enforcement"] for f in report["findings"]}
    for result in run_["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        # An advisory finding is a SARIF warning, a blocking one an error.
        urn = result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]
        assert result["level"] == {"mandatory": "error", "advisory": "warning"}[enforcement[(result["ruleId"], urn)]]
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == str(BAD_STATE.relative_to(Path.cwd()))
        assert location["region"]["startLine"] >= 1
    assert all(float(rule["properties"]["security-severity"]) > 0 for rule in rules)
    junit = ET.fromstring(outputs["junit"])
    # JUnit fails the blocking findings only.
    blocking = sum(f["enforcement"] == "mandatory" for f in report["findings"])
    assert junit.tag == "testsuites" and int(junit.get("failures")) == blocking == count - 1
    assert int(junit.get("tests")) >= len(RULES)
    assert "### accelplane check" in outputs["markdown"] and "| Severity | Rule |" in outputs["markdown"]
    # A table of the blocking findings and one of the advisory ones, each under its header row.
    assert outputs["markdown"].count("\n| ") - 2 == count
    assert "FAILED: " in outputs["table"] and "AP-KMS-001" in outputs["table"]


# ------------------------------------------------------------------------------------- waivers


@pytest.fixture
def stacks_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A project of its own (Pulumi.yaml, stacks/) as the current directory, whose `--stack dev` has
    the waivers a test writes."""
    (tmp_path / "Pulumi.yaml").write_text("name: accelplane\nruntime: python\nstackConfigDir: stacks\n")
    (tmp_path / "stacks").mkdir()
    monkeypatch.chdir(tmp_path)

    def write(waivers: str) -> Path:
        text = stack_text("dev").rstrip("\n") + "\n    waivers:\n" + waivers
        path = tmp_path / "stacks" / "Pulumi.dev.yaml"
        path.write_text(text)
        return path

    return write


WAIVER = """      - rule: {rule}
        resource: {resource}
        reason: {reason}
        owner: ml-platform
        expires: "{expires}"
"""


def test_waived_finding_is_reported_waived_and_does_not_block(capsys, stacks_dir) -> None:
    stacks_dir(WAIVER.format(rule="AP-KMS-001", resource="acme-ml-dev-data-key",
                             reason="key rotation handled by the quarterly re-encryption job", expires="2099-01-01"))
    _, report = as_json(capsys, "--state", str(BAD_STATE), "--stack", "dev", "--as-of", "2026-01-01")
    kms = [f for f in report["findings"] if f["rule"] == "AP-KMS-001"]
    assert kms and all(f["waived"] for f in kms)
    assert report["summary"]["waived"] == len(kms)
    assert report["summary"]["waivers"][0]["state"] == "active"


def test_expired_waiver_fails_the_check_and_stops_waiving(capsys, stacks_dir) -> None:
    stacks_dir(WAIVER.format(rule="AP-KMS-001", resource="acme-ml-dev-data-key",
                             reason="key rotation handled by the quarterly re-encryption job", expires="2025-06-30"))
    code, report = as_json(capsys, "--state", str(BAD_STATE), "--stack", "dev", "--as-of", "2026-01-01")
    assert code == 1
    assert not any(f["waived"] for f in report["findings"])
    assert any("expired on 2025-06-30" in failure for failure in report["summary"]["failures"])


def test_expired_waiver_fails_even_on_a_clean_stack(capsys, stacks_dir) -> None:
    stacks_dir(WAIVER.format(rule="AP-LB-003", resource="acme-ml-dev-inference-alb",
                             reason="header validation done by the WAF in front of the ALB", expires="2025-06-30"))
    code, out, _ = run(capsys, "--stack", "dev", "--as-of", "2026-01-01")
    assert code == 1 and "expired" in out


def test_unused_waiver_is_a_note_not_a_failure(capsys, stacks_dir) -> None:
    stacks_dir(WAIVER.format(rule="AP-LB-003", resource="acme-ml-dev-inference-alb",
                             reason="header validation done by the WAF in front of the ALB", expires="2099-01-01"))
    code, report = as_json(capsys, "--stack", "dev", "--as-of", "2026-01-01")
    assert code == 0 and any("matches no finding" in note for note in report["summary"]["notes"])


def test_waiver_without_a_reason_is_rejected(capsys, stacks_dir) -> None:
    path = stacks_dir(WAIVER.format(rule="AP-KMS-001", resource="acme-ml-dev-data-key", reason="ok",
                                    expires="2099-01-01"))
    code, _, err = run(capsys, "--stack", "dev")
    assert code == 2 and str(path) in err and "waivers[0].reason" in err


def test_waiver_naming_no_rule_is_rejected_with_its_line(capsys, stacks_dir) -> None:
    path = stacks_dir(WAIVER.format(rule="AP-KMS-999", resource="acme-ml-dev-data-key",
                                    reason="a typo in the rule id must not waive nothing", expires="2099-01-01"))
    code, _, err = run(capsys, "--stack", "dev")
    line = path.read_text().splitlines().index("      - rule: AP-KMS-999") + 1
    assert code == 2 and f"{path}:{line}" in err and "waivers[0].rule" in err


# ------------------------------------------------------------------------- strict and enforcement


@pytest.fixture
def advisory_only_state(tmp_path: Path) -> Path:
    state = json.loads(BAD_STATE.read_text())
    clean = json.loads(BAD_STATE.read_text())
    resources = [r for r in clean["deployment"]["resources"] if r["type"] == "aws:lb/loadBalancer:LoadBalancer"]
    resources = copy.deepcopy(resources)
    resources[0]["inputs"]["dropInvalidHeaderFields"] = False
    state["deployment"]["resources"] = resources
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state))
    return path


def test_advisory_findings_show_but_pass_unless_strict(capsys, advisory_only_state: Path) -> None:
    code, report = as_json(capsys, "--state", str(advisory_only_state))
    assert code == 0 and [f["rule"] for f in report["findings"]] == ["AP-LB-003"]
    assert report["findings"][0]["enforcement"] == "advisory"
    code, report = as_json(capsys, "--state", str(advisory_only_state), "--strict")
    assert code == 1 and report["summary"]["strict"] is True and report["summary"]["blocking"] == 1


def test_policy_config_sets_levels_like_the_pack_config(capsys, tmp_path: Path) -> None:
    config = tmp_path / "policy.json"
    config.write_text(json.dumps({"all": "advisory", "AP-KMS-001": {"enforcementLevel": "mandatory"},
                                  "AP-IAM-001": "disabled"}))
    code, report = as_json(capsys, "--state", str(BAD_STATE), "--policy-config", str(config))
    assert code == 1
    blocking = {f["rule"] for f in report["findings"] if f["enforcement"] == "mandatory"}
    assert blocking == {"AP-KMS-001"}
    assert not any(f["rule"] == "AP-IAM-001" for f in report["findings"])
    config.write_text(json.dumps({"AP-NOPE-001": "advisory"}))
    code, _, err = run(capsys, "--state", str(BAD_STATE), "--policy-config", str(config))
    assert code == 2 and "AP-NOPE-001" in err


def test_a_state_check_loads_no_declaration_model_nor_cloud_sdk(tmp_path: Path) -> None:
    """`check --state` without a stack judges the export alone: the rules' modules, not the declaration's
    pydantic models, a cloud's SDK or the Pulumi engine (its start-up is what a CI gate pays each run;
    bench/bench_check_state.py times it against checkov). A fresh process, as the CLI runs; an export of
    one hardened GPU Deployment, on which no rule fires."""
    import subprocess
    import sys

    stack_urn = "urn:pulumi:ci::accelplane::pulumi:pulumi:Stack::accelplane-ci"
    container = {"name": "trainer", "image": f"registry.example.com/trainer@sha256:{'0' * 64}",
                 "resources": {"requests": {"nvidia.com/gpu": "8"}, "limits": {"nvidia.com/gpu": "8"}},
                 "securityContext": {"allowPrivilegeEscalation": False, "runAsNonRoot": True}}
    deployment = {"urn": "urn:pulumi:ci::accelplane::kubernetes:apps/v1:Deployment::trainer", "custom": True,
                  "id": "training/trainer", "type": "kubernetes:apps/v1:Deployment", "parent": stack_urn,
                  "inputs": {"metadata": {"name": "trainer", "namespace": "training"}, "spec": {
                      "replicas": 1, "selector": {"matchLabels": {"app": "trainer"}},
                      "template": {"metadata": {"labels": {"app": "trainer"}},
                                   "spec": {"serviceAccountName": "trainer", "containers": [container]}}}},
                  "outputs": {}}
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"version": 3, "deployment": {"manifest": {}, "resources": [
        {"urn": stack_urn, "custom": False, "type": "pulumi:pulumi:Stack"}, deployment]}}))
    probe = ("import sys\nfrom accelplane.cli import main\n"
             f"code = main(['check', '--state', {str(state)!r}, '--format', 'json'])\n"
             "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'pydantic', 'pulumi', 'pulumi_aws', "
             "'pulumi_gcp', 'boto3', 'botocore', 'grpc'} | {m for m in sys.modules "
             "if m.startswith('accelplane.declaration')})\n"
             "print(code, heavy, file=sys.stderr)\n")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert result.stderr.strip().splitlines()[-1] == "0 []", result.stderr[-2000:]
