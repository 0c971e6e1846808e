"""`accelplane check` as a CI gate that cannot be fooled: it refuses what is not a plan or export,
a document of another stack, and judges the bare-metal profiles the Pulumi graph does not hold."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from accelplane.cli import main
from tests.support.stack_files import STACKS_DIR, write_variant

BAD_STATE = Path(__file__).parent / "fixtures" / "bad-stack-export.json"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("option", "document", "expected"),
    [
        ("--plan", {}, "steps: expected `pulumi preview --json` output"),
        ("--plan", {"resources": None}, "resources: expected the list of resources"),
        ("--plan", {"stack": "dev", "resources": []}, "holds no resources: nothing to judge"),
        ("--plan", {"steps": [], "changeSummary": {}}, "holds no resources: nothing to judge"),
        ("--plan", [], "steps: expected `pulumi preview --json` output"),
        ("--state", {}, "deployment: expected a `pulumi stack export` document"),
        ("--state", {"version": 3, "deployment": {"resources": None}}, "deployment.resources: expected the list"),
        ("--state", {"version": 3, "deployment": {"manifest": {}}}, "deployment.resources: expected the list"),
    ],
)
def test_what_is_not_a_plan_or_export_is_refused_not_passed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, document: Any, expected: str
) -> None:
    path = write_json(tmp_path / "input.json", document)
    code, out, err = run(capsys, option, str(path))
    assert code == 2 and out == "", err
    assert f"error: {path}" in err and expected in err


def test_an_export_of_another_stack_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--state", str(BAD_STATE), "--stack", "prod")
    assert code == 2
    assert f"{BAD_STATE}: --state: the state is of stack 'dev' (project 'accelplane'), not of the stack given " \
           "('prod', project 'accelplane')" in err


def test_an_export_of_another_project_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = BAD_STATE.read_text().replace("urn:pulumi:dev::accelplane::", "urn:pulumi:dev::other-project::")
    path = tmp_path / "other.json"
    path.write_text(text)
    code, _, err = run(capsys, "--state", str(path), "--stack", "dev")
    assert code == 2 and "(project 'other-project')" in err


def test_a_document_mixing_stacks_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = json.loads(BAD_STATE.read_text())
    resource = next(r for r in state["deployment"]["resources"] if r["type"].startswith("aws:s3/"))
    resource["urn"] = resource["urn"].replace("urn:pulumi:dev::", "urn:pulumi:prod::")
    path = write_json(tmp_path / "mixed.json", state)
    code, _, err = run(capsys, "--state", str(path))
    assert code == 2 and "resources of more than one stack in one document" in err


def _lab_variant(tmp_path: Path, old: str, new: str) -> Path:
    path, _ = write_variant(tmp_path, old, new, stack="lab")
    return path


def test_an_incompatible_bare_metal_profile_fails_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Fabric manager one patch from the driver on an NVSwitch (HGX) system: the matrix says incompatible.
    path = _lab_variant(tmp_path, 'fabric_manager: "570.172.08"', 'fabric_manager: "570.172.07"')
    code, out, _ = run(capsys, "--stack-file", str(path), "--format", "json")
    report = json.loads(out)
    blocking = [f for f in report["findings"] if f["enforcement"] == "mandatory" and not f["waived"]]
    assert code == 1
    assert [(f["rule"], f["type"], f["name"]) for f in blocking] == [
        ("AP-VER-001", "accelplane:bare-metal:HostGroup", "h100-train")]
    assert "570.172.07" in blocking[0]["message"]


def test_the_same_profile_passes_the_clean_lab_stack(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--stack", "lab", "--format", "json")
    report = json.loads(out)
    assert code == 0
    notes = report["summary"]["notes"]
    assert "2 bare-metal host groups judged from the declaration (h100-train, mi300x-infer)" in notes


def test_strict_matrix_makes_a_conditional_group_block(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The MI300X group's pairing is not in the matrix (a warning) on the lab stack; strict_matrix does not
    # block warnings, only conditional verdicts: a CUDA minor-version-compatibility pairing is one.
    path = _lab_variant(tmp_path, "    bare_metal:\n", "    bare_metal:\n      strict_matrix: true\n")
    text = path.read_text()
    path.write_text(text.replace('        cuda: "12.8"\n', '        cuda: "12.9"\n', 1))
    code, out, _ = run(capsys, "--stack-file", str(path), "--format", "json")
    findings = [(f["rule"], f["name"]) for f in json.loads(out)["findings"] if f["enforcement"] == "mandatory"]
    assert code == 1 and ("AP-VER-001", "h100-train") in findings


def test_sarif_points_at_the_declaring_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _lab_variant(tmp_path, 'fabric_manager: "570.172.08"', 'fabric_manager: "570.172.07"')
    code, out, _ = run(capsys, "--stack-file", str(path), "--format", "sarif")
    results = json.loads(out)["runs"][0]["results"]
    location = next(r for r in results if r["ruleId"] == "AP-VER-001")["locations"][0]["physicalLocation"]
    assert code == 1
    assert location["artifactLocation"]["uri"] == str(path)
    # The group's choice of profile, where the fix goes (its versions, or another profile).
    assert location["region"]["startLine"] == _field_after(path, "        - name: h100-train\n", "software_profile:")


def _field_after(path: Path, element: str, field: str) -> int:
    """The line of the first `field` after `element` (the element's own field)."""
    text = path.read_text()
    return text[: text.index(field, text.index(element))].count("\n") + 1


def test_sarif_lines_of_node_pool_findings_are_the_pools(capsys: pytest.CaptureFixture[str]) -> None:
    # Judged in 2031, the dev pools' driver branch is past end of life: an advisory finding per node group.
    code, out, _ = run(capsys, "--stack", "dev", "--as-of", "2031-01-01", "--format", "sarif")
    results = [r for r in json.loads(out)["runs"][0]["results"] if r["ruleId"] == "AP-VER-002"]
    dev = STACKS_DIR / "Pulumi.dev.yaml"
    lines = {r["message"]["text"].split(":")[0]: r["locations"][0]["physicalLocation"]["region"]["startLine"]
             for r in results}
    # In 2031 the dev pools' expiry (2027-12-31) has passed too: AP-COST-003 blocks; the version findings stay advisory.
    blocking = {r["ruleId"] for r in json.loads(out)["runs"][0]["results"] if r["level"] == "error"}
    assert code == 1 and blocking == {"AP-COST-003"} and lines
    assert lines == {
        "acme-ml-dev-infer-l4-ng": _field_after(dev, "      - name: infer-l4\n", "software_profile:"),
        "acme-ml-dev-train-l4-ng": _field_after(dev, "      - name: train-l4\n", "software_profile:"),
    }


def test_junit_carries_time_and_timestamp_and_single_class_names(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--state", str(BAD_STATE), "--format", "junit")
    root = ET.fromstring(out)
    assert code == 1
    assert float(root.get("time", "-1")) > 0 and root.get("timestamp")
    for suite in root.iter("testsuite"):
        assert suite.get("timestamp") == root.get("timestamp") and float(suite.get("time", "-1")) >= 0
        for case in suite.iter("testcase"):
            family, _, rule = case.get("classname", "").partition(".")
            assert family == suite.get("name") and not rule.startswith(f"{family}."), case.get("classname")
    assert sum(int(s.get("tests", 0)) for s in root.iter("testsuite")) == int(root.get("tests", -1))


def test_junit_does_not_repeat_a_family_the_check_id_already_names() -> None:
    from accelplane.report.document import Item, Report, RuleInfo
    from accelplane.report.junit import render_junit

    rule = RuleInfo(id="drift.missing", name="declared-resources-exist", description="d", severity="high",
                    enforcement="mandatory", remediation="r", group="drift")
    item = Item(rule="drift.missing", severity="high", enforcement="mandatory", urn="urn:pulumi:a::b::t::n",
                type="t", name="n", message="m", remediation="r", blocking=True)
    root = ET.fromstring(render_junit(Report(tool="accelplane verify", subject="stack a", items=[item],
                                             rules=[rule])))
    assert [c.get("classname") for c in root.iter("testcase")] == ["drift.missing"]


def test_preview_preview_json_and_check_count_the_same_resources(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graph_file = tmp_path / "dev.json"
    assert main(["preview", "--stack", "dev", "--json", str(graph_file)]) == 0
    text = capsys.readouterr().out
    graph = json.loads(graph_file.read_text())
    counted = graph["summary"]["resources"]
    assert f"{counted} resources (" in text
    assert counted == sum(1 for r in graph["resources"] if not r["type"].startswith("pulumi:"))
    code, out, _ = run(capsys, "--stack", "dev", "--format", "json")
    assert code == 0 and json.loads(out)["summary"]["resources"] == counted
    code, out, _ = run(capsys, "--plan", str(graph_file), "--stack", "dev", "--format", "json")
    assert code == 0 and json.loads(out)["summary"]["resources"] == counted


def test_a_plan_from_preview_json_is_judged_like_the_stack(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The offline graph records outputs and property dependencies, so references resolve the same way."""
    graph_file = tmp_path / "dev.json"
    assert main(["preview", "--stack", "dev", "--json", str(graph_file)]) == 0
    capsys.readouterr()
    _, stack_out, _ = run(capsys, "--stack", "dev", "--as-of", "2031-01-01", "--format", "json")
    _, plan_out, _ = run(capsys, "--plan", str(graph_file), "--stack", "dev", "--as-of", "2031-01-01",
                         "--format", "json")

    def keys(out: str) -> list[tuple[str, str, str]]:
        return sorted((f["rule"], f["urn"], f["message"]) for f in json.loads(out)["findings"])

    assert keys(stack_out) and keys(stack_out) == keys(plan_out)


@pytest.mark.parametrize(("stack", "line", "rule", "resource"), [
    ("prod", "          rate_limit: {requests: 600, window_seconds: 60, key: source_ip, exempt_paths: [/v1/health]}\n",
     "AP-LB-010", "acme-ml-inference-alb"),
    ("tpu-prod",
     "          rate_limit: {requests: 600, window_seconds: 60, key: source_ip, exempt_paths: [/healthz]}\n",
     "AP-GLB-010", "acme-tpu-svc-llm-server-h100-service"),
])
def test_a_prod_endpoint_that_drops_its_rate_limit_fails_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], stack: str, line: str, rule: str, resource: str
) -> None:
    assert run(capsys, "--stack", stack)[0] == 0
    path, _ = write_variant(tmp_path, line, "", stack=stack)
    code, out, _ = run(capsys, "--stack-file", str(path))
    assert code == 1, out
    assert any(rule in row and resource in row and "BLOCKING" in row for row in out.splitlines()), out


def test_a_missing_cloud_armor_rate_limit_points_at_the_service_that_declares_it(tmp_path: Path) -> None:
    """Issue 45 item 4, as a user saw it: `check --stack tpu-prod --format sarif` without the service's
    `rate_limit` put AP-GLB-010 on the endpoint's `certificate:` line; the fix is the service's rate_limit.
    The finding is each unprotected backend Service's, and both point at the service's first line."""
    line = "          rate_limit: {requests: 600, window_seconds: 60, key: source_ip, exempt_paths: [/healthz]}\n"
    path, _ = write_variant(tmp_path, line, "", stack="tpu-prod")
    service_line = path.read_text().splitlines().index("        - name: llm-server") + 1
    sarif = tmp_path / "check.sarif"
    assert main(["check", "--stack-file", str(path), "--format", "sarif", "--output", str(sarif)]) == 1
    results = [r for r in json.loads(sarif.read_text())["runs"][0]["results"] if r["ruleId"] == "AP-GLB-010"]
    located = {(r["properties"]["resourceType"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
               for r in results}
    assert len(results) == 2 and located == {("kubernetes:core/v1:Service", service_line)}, results


@pytest.mark.parametrize(("stack", "old", "new", "rule", "expected"), [
    # prod without its service's rate_limit: AP-LB-010 pointed at the endpoint's certificate_arn line.
    ("prod", "          rate_limit: {requests: 600, window_seconds: 60, key: source_ip, exempt_paths: [/v1/health]}\n",
     "", "AP-LB-010", "        - name: serve"),
    # mode: count in prod: AP-LB-011 (web ACL) and AP-GLB-011 (Cloud Armor) pointed at the endpoint too.
    ("prod", "exempt_paths: [/v1/health]}", "exempt_paths: [/v1/health], mode: count}", "AP-LB-011",
     "          rate_limit: {requests: 600, window_seconds: 60, key: source_ip, exempt_paths: [/v1/health], "
     "mode: count}"),
    ("tpu-prod", "exempt_paths: [/healthz]}", "exempt_paths: [/healthz], mode: count}", "AP-GLB-011",
     "          rate_limit: {requests: 600, window_seconds: 60, key: source_ip, exempt_paths: [/healthz], "
     "mode: count}"),
])
def test_a_services_rate_limit_finding_points_at_that_service(
    tmp_path: Path, stack: str, old: str, new: str, rule: str, expected: str
) -> None:
    """Issue 45 item 4: a finding whose fix is a service's rate_limit points at that field (or at the
    service that can declare it), not at the endpoint the load balancer or policy is built from."""
    path, _ = write_variant(tmp_path, old, new, stack=stack)
    sarif = tmp_path / "check.sarif"
    main(["check", "--stack-file", str(path), "--format", "sarif", "--output", str(sarif)])
    results = [r for r in json.loads(sarif.read_text())["runs"][0]["results"] if r["ruleId"] == rule]
    lines = path.read_text().splitlines()
    pointed = {lines[r["locations"][0]["physicalLocation"]["region"]["startLine"] - 1] for r in results}
    assert results and pointed == {expected}, (len(results), pointed)


def test_a_profile_finding_points_at_the_pools_choice_of_profile(tmp_path: Path) -> None:
    """AP-VER-002 (a conditional profile) on tpu-prod pointed at the pool's `- name:` line; the fix is the
    profile the pool names (its versions, or another profile): the pool's `software_profile:` line."""
    sarif = tmp_path / "check.sarif"
    assert main(["check", "--stack", "tpu-prod", "--format", "sarif", "--output", str(sarif)]) == 0
    lines = (STACKS_DIR / "Pulumi.tpu-prod.yaml").read_text().splitlines()
    results = [r for r in json.loads(sarif.read_text())["runs"][0]["results"] if r["ruleId"] == "AP-VER-002"]
    pointed = sorted(lines[r["locations"][0]["physicalLocation"]["region"]["startLine"] - 1].strip() for r in results)
    assert pointed == ["software_profile: h100-gke", "software_profile: h100-serve-gke"], pointed
