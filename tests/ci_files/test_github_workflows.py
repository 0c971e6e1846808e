""".github/workflows: valid against GitHub's workflow schema (vendored by check-jsonschema, no
network), every action pinned by full commit SHA with its release in a comment, every
`accelplane` command line accepted by the CLI, and the jobs the review and deploy paths rely on."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import yaml

from accelplane.cli import build_parser
from accelplane.config.project import find_project
from tests.ci_files.schema_check import check_jsonschema
from tests.support.prerequisites import missing

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
_PINNED = re.compile(r"^(?P<action>[\w.-]+/[\w.-]+(?:/[\w./-]+)?)@(?P<sha>[0-9a-f]{40})$")
_USES_LINE = re.compile(r"^\s*(?:-\s+)?uses:\s*(?P<ref>\S+)\s*(?:#\s*(?P<comment>.*))?$")
def _load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text())
    if True in data:  # YAML 1.1 reads the key `on` as a boolean
        data["on"] = data.pop(True)
    return data


def _steps(workflow: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(name, step) for name, job in workflow["jobs"].items() for step in job.get("steps", [])]


def _uses(workflow: dict[str, Any], action: str) -> list[dict[str, Any]]:
    return [step for _, step in _steps(workflow) if str(step.get("uses", "")).split("@")[0] == action]


def test_there_are_the_four_workflows() -> None:
    assert [p.name for p in WORKFLOWS] == ["capacity-sync.yml", "deploy.yml", "pull-request.yml", "rollout.yml"]


def test_workflows_match_the_github_workflow_schema_offline() -> None:
    result = check_jsonschema("--builtin-schema", "vendor.github-workflows", "--no-cache", *map(str, WORKFLOWS))
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_schema_check_rejects_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text((ROOT / ".github/workflows/pull-request.yml").read_text().replace("runs-on:", "run-on:", 1))
    result = check_jsonschema("--builtin-schema", "vendor.github-workflows", "--no-cache", str(broken))
    assert result.returncode == 1
    assert "broken.yml" in result.stdout + result.stderr


def test_every_action_is_pinned_by_full_sha_with_its_release_in_a_comment() -> None:
    pins: dict[str, set[tuple[str, str]]] = {}
    for path in WORKFLOWS:
        for line in path.read_text().splitlines():
            match = _USES_LINE.match(line)
            if not match:
                continue
            ref, comment = match["ref"], (match["comment"] or "").strip()
            pinned = _PINNED.match(ref)
            assert pinned, f"{path.name}: {ref} is not pinned by a full commit SHA"
            assert re.fullmatch(r"v\d+\.\d+\.\d+", comment), f"{path.name}: {ref} needs `# vX.Y.Z` (got {comment!r})"
            pins.setdefault(pinned["action"], set()).add((pinned["sha"], comment))
    # One release of each action across the workflows: an update changes every use.
    assert {action: len(found) for action, found in pins.items()} == dict.fromkeys(pins, 1)
    assert set(pins) == {
        "actions/checkout", "actions/setup-python", "github/codeql-action/upload-sarif",
        "marocchino/sticky-pull-request-comment", "aws-actions/configure-aws-credentials", "pulumi/actions",
        "google-github-actions/auth",
    }


def test_google_cloud_jobs_use_workload_identity_federation_not_key_files() -> None:
    """Short-lived credentials from GitHub's OIDC token, as on AWS: no `credentials_json` anywhere."""
    for path in WORKFLOWS:
        workflow = _load(path)
        for step in _uses(workflow, "google-github-actions/auth"):
            assert set(step["with"]) == {"workload_identity_provider", "service_account"}, path.name
    deploy = _load(ROOT / ".github/workflows/deploy.yml")
    assert deploy["jobs"]["tpu-prod"]["permissions"]["id-token"] == "write"
    assert "credentials_json" not in "".join(path.read_text() for path in WORKFLOWS)


def _accelplane_commands(script: str) -> list[list[str]]:
    script = script.replace("\\\n", " ")
    commands = []
    for line in script.splitlines():
        line = line.strip()
        if ".venv/bin/accelplane " not in line:
            continue
        tokens = shlex.split(line[line.index(".venv/bin/accelplane ") :])
        # Shell variables stand for a stack name, a ref or a path: any word will do for the parser.
        commands.append([re.sub(r"\$\{?(\w+)\}?", r"\1", token) for token in tokens[1:]])
    return commands


def test_every_accelplane_command_line_is_accepted_by_the_cli() -> None:
    found = []
    for path in WORKFLOWS:
        for _, step in _steps(_load(path)):
            for argv in _accelplane_commands(str(step.get("run", ""))):
                build_parser().parse_args(argv)  # InputError (exit 2) on an unknown option or value
                found.append(argv[0])
    assert {"check", "diff", "preflight"} <= set(found)


def test_every_deployment_runs_preflight_before_pulumi_up() -> None:
    workflow = _load(ROOT / ".github/workflows/deploy.yml")
    for name, job in workflow["jobs"].items():
        steps = [str(step.get("run", "")) + str(step.get("uses", "")) for step in job["steps"]]
        preflight = next(i for i, text in enumerate(steps) if "accelplane preflight --stack" in text)
        up = next(i for i, text in enumerate(steps) if text.startswith("pulumi/actions"))
        assert preflight < up, name


def test_pull_requests_are_tested_checked_diffed_linted_and_previewed() -> None:
    workflow = _load(ROOT / ".github/workflows/pull-request.yml")
    assert "pull_request" in workflow["on"]
    assert workflow["permissions"] == {"contents": "read"}
    for step in _uses(workflow, "actions/setup-python"):
        assert step["with"]["cache"] == "pip" and step["with"]["cache-dependency-path"] == "requirements.txt"
    runs = {name: " ".join(str(s.get("run", "")) for s in job.get("steps", []))
            for name, job in workflow["jobs"].items()}
    assert "make test" in runs["test"] and "make .venv/.installed" in runs["test"]  # the same run as CI's

    review = workflow["jobs"]["review"]
    assert review["strategy"]["matrix"]["stack"] == "${{ fromJSON(needs.stacks.outputs.stacks) }}"
    assert review["permissions"]["security-events"] == "write"
    assert review["steps"][0]["with"]["fetch-depth"] == 0  # diff needs the target branch's history
    assert '--format sarif --output "reports/check-$STACK.sarif"' in runs["review"]
    assert '--format markdown --output "reports/check-$STACK.md"' in runs["review"]
    assert 'diff --stack "$STACK" --base "origin/$BASE_REF" --format markdown' in runs["review"]
    [sarif] = _uses(workflow, "github/codeql-action/upload-sarif")
    assert sarif["with"]["sarif_file"] == "reports/check-${{ matrix.stack }}.sarif"
    [comment] = _uses(workflow, "marocchino/sticky-pull-request-comment")
    assert comment["with"]["path"] == "reports/comment-${{ matrix.stack }}.md"
    assert "head.repo.full_name == github.repository" in comment["if"]  # fork PRs cannot comment
    assert "ansible-lint" in runs["ansible-lint"]

    [preview] = _uses(workflow, "pulumi/actions")
    assert preview["with"]["command"] == "preview"
    assert preview["with"]["stack-name"].endswith("prod")
    assert preview["with"]["policyPacks"] == "policies" and (ROOT / "policies" / "PulumiPolicy.yaml").exists()
    assert preview["with"]["comment-on-pr"] is True
    assert preview["if"] == "steps.credentials.outputs.available == 'true'"


def test_merges_deploy_dev_then_prod_behind_an_environment() -> None:
    workflow = _load(ROOT / ".github/workflows/deploy.yml")
    assert workflow["on"]["push"]["branches"] == ["main"]
    assert workflow["concurrency"]["cancel-in-progress"] is False
    jobs = workflow["jobs"]
    assert jobs["dev"]["environment"] == "dev"
    assert jobs["prod"]["environment"] == "prod" and jobs["prod"]["needs"] == "dev"
    for stack in ("dev", "prod"):
        [up] = [s for s in jobs[stack]["steps"] if str(s.get("uses", "")).startswith("pulumi/actions@")]
        assert up["with"]["command"] == "up" and up["with"]["stack-name"].endswith(stack)
        assert up["with"]["policyPacks"] == "policies"
        gate = [s for s in jobs[stack]["steps"] if "accelplane check" in str(s.get("run", ""))]
        assert gate and jobs[stack]["steps"].index(gate[0]) < jobs[stack]["steps"].index(up)


def test_what_the_workflows_rely_on_exists() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "VENV := .venv" in makefile and "STAMP := $(VENV)/.installed" in makefile  # `make .venv/.installed`
    assert (ROOT / "tests/support/ansible/install_prereqs.sh").exists()
    [stacks_step] = [s for s in _load(ROOT / ".github/workflows/pull-request.yml")["jobs"]["stacks"]["steps"]
                     if s.get("id") == "list"]
    script = stacks_step["run"].replace('>> "$GITHUB_OUTPUT"', "")
    result = subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, check=False)
    if result.returncode != 0 and "jq" in result.stderr:
        missing("jq is not installed (GitHub's runners have it; tests/support/ansible/install_prereqs.sh installs it)")
    assert result.stdout.strip() == "stacks=" + str(find_project().stacks()).replace("'", '"').replace(" ", "")


def test_rollouts_advance_by_pull_request_with_read_only_aws_access() -> None:
    workflow = _load(ROOT / ".github/workflows/rollout.yml")
    assert set(workflow["on"]) == {"workflow_dispatch", "schedule"}
    assert set(workflow["on"]["workflow_dispatch"]["inputs"]) == {"stack", "service"}
    assert workflow["permissions"] == {"contents": "read"}
    assert workflow["concurrency"]["cancel-in-progress"] is False
    job = workflow["jobs"]["advance"]
    assert job["permissions"]["id-token"] == "write" and job["permissions"]["pull-requests"] == "write"
    runs = " ".join(str(step.get("run", "")) for step in job["steps"])
    assert "rollout advance" in runs and "--apply-now" not in runs  # the pull request is the change
    assert "gh pr create" in runs and "rollback" in runs
    [credentials] = _uses(workflow, "aws-actions/configure-aws-credentials")
    assert credentials["with"]["role-to-assume"] == "${{ vars.AWS_ROLLOUT_ROLE_ARN }}"
    [advance] = [step for step in job["steps"] if step.get("id") == "advance"]
    assert "exit" in advance["run"]  # exit 1 (rollback written) goes on to the pull request; 2 fails


def test_pools_follow_their_bought_capacity_every_15_minutes_with_a_narrow_role() -> None:
    workflow = _load(ROOT / ".github/workflows/capacity-sync.yml")
    assert workflow["permissions"] == {"contents": "read"}
    assert [len(entry["cron"].split()[0].split(",")) for entry in workflow["on"]["schedule"]] == [4]  # 4 an hour
    job = workflow["jobs"]["sync"]
    runs = " ".join(str(step.get("run", "")) for step in job["steps"])
    assert "accelplane capacity sync" in runs and "--apply" in runs and "pulumi" not in runs
    [credentials] = _uses(workflow, "aws-actions/configure-aws-credentials")
    assert credentials["with"]["role-to-assume"] == "${{ vars.AWS_CAPACITY_ROLE_ARN }}"
    # GKE stacks: a federated service account, no stored key; each cloud's step only where it is set up.
    [google] = _uses(workflow, "google-github-actions/auth")
    assert google["with"] == {"workload_identity_provider": "${{ vars.GCP_WORKLOAD_IDENTITY_PROVIDER }}",
                              "service_account": "${{ vars.GCP_CAPACITY_SERVICE_ACCOUNT }}"}
    assert credentials["if"] == "vars.AWS_CAPACITY_ROLE_ARN != ''"
    assert google["if"] == "vars.GCP_CAPACITY_SERVICE_ACCOUNT != ''"
