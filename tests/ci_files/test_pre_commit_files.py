"""`.pre-commit-hooks.yaml` (hooks other repositories use) and `.pre-commit-config.yaml` (this
repository's hooks).

check-jsonschema vendors no schema for pre-commit's files, so the hook manifest is checked here
against pre-commit's own manifest definition (`pre_commit.clientlib.MANIFEST_HOOK_DICT` of 4.x:
keys, types, required keys, languages), and the hook's entry is run the way pre-commit runs it
(`shlex.split(entry) + args + filenames`) against a stand-in `accelplane`.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.ci_files.schema_check import check_jsonschema

ROOT = Path(__file__).resolve().parents[2]

# pre-commit 4.x's hook manifest: key -> accepted type(s); required keys; languages (4.4 renamed
# `system`/`script` to `unsupported`/`unsupported_script`, keeping the old names as deprecated aliases).
_HOOK_KEYS: dict[str, type | tuple[type, ...]] = {
    "id": str, "name": str, "entry": str, "language": str, "alias": str, "files": str, "exclude": str,
    "types": list, "types_or": list, "exclude_types": list, "additional_dependencies": list, "args": list,
    "always_run": bool, "fail_fast": bool, "pass_filenames": bool, "description": str,
    "language_version": str, "log_file": str, "minimum_pre_commit_version": str, "require_serial": bool,
    "stages": list, "verbose": bool,
}
_REQUIRED = {"id", "name", "entry", "language"}
_LANGUAGES = {
    "conda", "coursier", "dart", "docker", "docker_image", "dotnet", "fail", "golang", "haskell", "julia", "lua",
    "node", "perl", "pygrep", "python", "r", "ruby", "rust", "swift", "unsupported", "unsupported_script",
}


def _hooks() -> list[dict[str, Any]]:
    return yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())


def test_hook_manifest_follows_pre_commits_schema() -> None:
    hooks = _hooks()
    assert isinstance(hooks, list) and hooks
    ids = [hook["id"] for hook in hooks]
    assert len(ids) == len(set(ids))
    for hook in hooks:
        assert isinstance(hook, dict)
        assert set(hook) >= _REQUIRED, f"{hook.get('id')}: missing {_REQUIRED - set(hook)}"
        assert set(hook) <= set(_HOOK_KEYS), f"{hook['id']}: unknown keys {set(hook) - set(_HOOK_KEYS)}"
        for key, value in hook.items():
            assert isinstance(value, _HOOK_KEYS[key]), f"{hook['id']}.{key}: {type(value).__name__}"
        assert hook["language"] in _LANGUAGES
        re.compile(hook.get("files", ""))
        assert tuple(map(int, hook["minimum_pre_commit_version"].split("."))) >= (4, 4, 0)  # `unsupported`


def test_accelplane_check_hook_runs_for_changed_stack_files_only() -> None:
    [hook] = [h for h in _hooks() if h["id"] == "accelplane-check"]
    files = re.compile(hook["files"])
    for path in ("stacks/Pulumi.prod.yaml", "infra/stacks/Pulumi.dev.yaml"):
        assert files.search(path), path
    for path in ("stacks/README.md", "Pulumi.yaml", "stacks/old/Pulumi.dev.yaml.bak", "mystacks/Pulumi.dev.yaml"):
        assert not files.search(path), path
    assert hook["pass_filenames"] is True and hook["require_serial"] is True


def _run_hook(tmp_path: Path, args: list[str], filenames: list[str], failing: str = "") -> tuple[int, list[str]]:
    """Run the hook as pre-commit does, in a repository whose .venv holds a stand-in accelplane."""
    [hook] = [h for h in _hooks() if h["id"] == "accelplane-check"]
    log = tmp_path / "calls.log"
    fake = tmp_path / ".venv" / "bin" / "accelplane"
    fake.parent.mkdir(parents=True, exist_ok=True)
    fake.write_text(f'#!/bin/sh\necho "$@" >> {log}\ncase "$*" in *"--stack {failing}") exit 1;; esac\nexit 0\n'
                    if failing else f'#!/bin/sh\necho "$@" >> {log}\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    argv = shlex.split(hook["entry"]) + args + filenames
    # No accelplane on PATH: the repository's .venv must be the one used.
    result = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True,
                            env={**os.environ, "PATH": "/usr/bin:/bin"}, check=False)
    assert "Traceback" not in result.stderr and "syntax error" not in result.stderr, result.stderr
    return result.returncode, log.read_text().splitlines() if log.exists() else []


def test_hook_entry_checks_each_stack_and_forwards_options(tmp_path: Path) -> None:
    code, calls = _run_hook(tmp_path, ["--strict", "--as-of=2026-06-01"],
                            ["stacks/Pulumi.dev.yaml", "stacks/Pulumi.prod.yaml"])
    assert code == 0
    assert calls == [
        "check --strict --as-of=2026-06-01 --stack dev",
        "check --strict --as-of=2026-06-01 --stack prod",
    ]


def test_hook_entry_fails_when_one_stack_fails_but_checks_them_all(tmp_path: Path) -> None:
    files = ["stacks/Pulumi.dev.yaml", "stacks/Pulumi.prod.yaml", "stacks/Pulumi.lab.yaml"]
    code, calls = _run_hook(tmp_path, [], files, failing="prod")
    assert code == 1
    assert calls == ["check --stack dev", "check --stack prod", "check --stack lab"]


def _config() -> dict[str, Any]:
    return yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())


def _pin(package: str) -> str:
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        name, _, pinned = line.partition("==")
        if name.strip().lower().replace("_", "-") == package:
            return pinned.strip()
    try:
        return version(package)  # not pinned (yet): the installed one
    except PackageNotFoundError:
        pytest.fail(f"{package} is neither pinned in requirements.txt nor installed", pytrace=False)


def test_config_structure_and_revisions_match_the_pins() -> None:
    config = _config()
    repos = {repo["repo"]: repo for repo in config["repos"]}
    for repo in config["repos"]:
        assert set(repo) == {"repo", "rev", "hooks"}
        assert re.fullmatch(r"v?\d+\.\d+\.\d+", repo["rev"]), f"{repo['repo']}: rev {repo['rev']} floats"
        for hook in repo["hooks"]:
            assert set(hook) <= {"id", "name", "files", "exclude", "args", "types", "additional_dependencies"}
    ruff = repos["https://github.com/astral-sh/ruff-pre-commit"]
    assert ruff["rev"] == "v" + _pin("ruff") and [h["id"] for h in ruff["hooks"]] == ["ruff-check"]
    lint = repos["https://github.com/ansible/ansible-lint"]
    assert [h["id"] for h in lint["hooks"]] == ["ansible-lint"]
    # One ansible-lint: the pinned one, in the hook and in the pull-request workflow.
    assert lint["rev"] == "v" + _pin("ansible-lint")
    assert f"ansible-lint=={_pin('ansible-lint')}" in (ROOT / ".github/workflows/pull-request.yml").read_text()
    schema = repos["https://github.com/python-jsonschema/check-jsonschema"]
    assert schema["rev"] == _pin("check-jsonschema")
    assert {h["id"] for h in schema["hooks"]} == {"check-jsonschema", "check-github-workflows"}


def test_stack_schema_hook_passes_on_every_stack_file() -> None:
    [hook] = [h for repo in _config()["repos"] for h in repo["hooks"] if h["id"] == "check-jsonschema"]
    files = re.compile(hook["files"])
    stacks = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "stacks").glob("*.yaml"))
    assert stacks and all(files.search(s) for s in stacks)
    assert (ROOT / hook["args"][hook["args"].index("--schemafile") + 1]).exists()
    result = check_jsonschema(*hook["args"], *stacks)
    assert result.returncode == 0, result.stdout + result.stderr


def test_stack_schema_hook_rejects_an_unknown_key(tmp_path: Path) -> None:
    [hook] = [h for repo in _config()["repos"] for h in repo["hooks"] if h["id"] == "check-jsonschema"]
    bad = tmp_path / "Pulumi.dev.yaml"
    bad.write_text((ROOT / "stacks/Pulumi.dev.yaml").read_text().replace("    environment: dev",
                                                                           "    environment: dev\n    enviroment: dev"))
    args = [str(ROOT / a) if a.endswith(".json") else a for a in hook["args"]]
    result = check_jsonschema(*args, str(bad))
    assert result.returncode == 1 and "enviroment" in result.stdout + result.stderr
