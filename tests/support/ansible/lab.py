"""Stack files for lab nodes, derived from stacks/Pulumi.lab.yaml (its profiles and settings),
and playbook runs through accelplane's own runner."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from accelplane.nodes.runner import RunResult, run_playbook
from tests.support.ansible.catalog import ascend_group_vars, nccl_tests_group_vars

PROJECT_ROOT = Path(__file__).resolve().parents[3]
LAB_STACK = PROJECT_ROOT / "stacks" / "Pulumi.lab.yaml"
# The lab's hosts of the other vendors (Intel Gaudi, Huawei Ascend, AWS Neuron): a stack of their
# own, so that the NVIDIA and AMD tests' stacks stay as small as they were.
MIXED_LAB_STACK = PROJECT_ROOT / "stacks" / "Pulumi.lab-mixed.yaml"


def lab_document(stack: Path = LAB_STACK) -> dict[str, Any]:
    return yaml.safe_load(stack.read_text())


def platform_of(document: dict[str, Any]) -> dict[str, Any]:
    return document["config"]["accelplane:platform"]


def write_stack(
    directory: Path,
    groups: dict[str, list[tuple[str, Path]]],
    *,
    name: str = "labtest",
    profiles: dict[str, str] | None = None,
    extra_profiles: dict[str, dict[str, str]] | None = None,
    rollout: dict[str, Any] | None = None,
    group_settings: dict[str, dict[str, Any]] | None = None,
    base: Path = LAB_STACK,
) -> Path:
    """Pulumi.<name>.yaml with the `base` lab stack's groups limited to `groups` (group -> [(host, root)])."""
    document = copy.deepcopy(lab_document(base))
    platform = platform_of(document)
    platform["software_profiles"].update(extra_profiles or {})
    bare_metal = platform["bare_metal"]
    bare_metal["rollout"].update(rollout or {})
    kept = []
    for group in bare_metal["groups"]:
        if group["name"] not in groups:
            continue
        group["hosts"] = [{"name": host, "address": str(root)} for host, root in groups[group["name"]]]
        if profiles and group["name"] in profiles:
            group["software_profile"] = profiles[group["name"]]
        group.update((group_settings or {}).get(group["name"], {}))
        kept.append(group)
    bare_metal["groups"] = kept
    path = directory / f"Pulumi.{name}.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    # Ansible reads group_vars/ beside an inventory file: where an operator points a role at a
    # mirror. The lab's nccl-tests source is a stand-in tarball (catalog.nccl_tests_tarball), its
    # Ascend installers stand-in .run scripts (catalog.ascend_group_vars).
    (directory / "group_vars").mkdir(exist_ok=True)
    group_vars = {**nccl_tests_group_vars(), **ascend_group_vars()}
    (directory / "group_vars" / "all.yml").write_text(yaml.safe_dump(group_vars, sort_keys=False))
    return path


# What ansible-core prints for a feature it will remove (a third-party strategy plugin, a
# deprecated module option or keyword). ansible-core has no setting that turns it into an error,
# so every lab run is read for it instead: a user who sees one in a first run stops trusting the tool.
DEPRECATION_MARKER = "[DEPRECATION WARNING]"


def deprecations(stdout: str) -> list[str]:
    """The deprecation warnings in Ansible's output, each with the lines that continue it."""
    found: list[str] = []
    for line in stdout.splitlines():
        if DEPRECATION_MARKER in line:
            found.append(line.strip())
        elif found and line.startswith(" ") and not line.strip().startswith(("TASK", "PLAY")) and len(found[-1]) < 2000:
            found[-1] += " " + line.strip()
    return found


def run(playbook: str, stack: Path, work: Path, **options: Any) -> RunResult:
    """A playbook run with its own private data directory, reports and fact cache under `work`.
    Fails on any deprecation warning in Ansible's output, whatever the run's result."""
    from accelplane.nodes.runner import stdout_of

    index = len(list(work.glob("run-*")))
    private = work / f"run-{index:02d}-{playbook.removesuffix('.yml')}"
    result = run_playbook(playbook, stack, private_data_dir=private, fact_cache=work / "facts", **options)
    warned = deprecations(stdout_of(result))
    assert not warned, f"{playbook} printed deprecation warnings:\n" + "\n".join(warned)
    return result


def failure(result: RunResult) -> str:
    """A failed run's summary and the end of Ansible's output, for assertion messages."""
    from accelplane.nodes.runner import stdout_of

    return result.view.summary(result.reports()) + "\n" + "\n".join(stdout_of(result).splitlines()[-40:])
