"""One source for a training job's size: the launcher's node count cannot disagree with the JobSet's.

Raising a pool's maximum resized the JobSet (parallelism, ACCELPLANE_NODES) while the command still
said `torchrun --nnodes=4`; a literal that disagrees is now refused at its line, and the shipped
stacks read the count from the JobSet's env.
"""

from __future__ import annotations

import pytest
import yaml

from accelplane.config.loader import load_stack_text
from accelplane.config.training_launcher import node_count_problems
from accelplane.errors import InputError
from accelplane.program import offline_graph
from tests.support.stack_files import stack_text

PROD_BEFORE = stack_text("prod").replace(
    '"--nnodes=$(ACCELPLANE_NODES)", "--nproc-per-node=$(ACCELPLANE_ACCELERATORS_PER_NODE)", pretrain.py]',
    "--nnodes=4, --nproc-per-node=8, pretrain.py]", 1,
).replace("          nodes: 3\n", "", 1)


def _problems(text: str, stack: str = "prod") -> list[str]:
    with pytest.raises(InputError) as raised:
        load_stack_text(text, path=f"Pulumi.{stack}.yaml", stack=stack)
    return [str(problem) for problem in raised.value.problems]


@pytest.mark.parametrize(
    ("command", "nodes"),
    [
        (["torchrun", "--nnodes=$(ACCELPLANE_NODES)", "train.py"], 8),
        (["torchrun", "--nnodes=4", "train.py"], 4),
        (["torchrun", "--nnodes", "4", "train.py"], 4),
        (["torchrun", "--nnodes=2:8", "train.py"], 4),  # elastic: the job's size within the range
        (["bash", "-c", "torchrun --nnodes 4 train.py"], 4),
        (["deepspeed", "--num_nodes=2", "train.py"], 2),
        (["python3", "-m", "MaxText.train"], 16),  # no launcher flag: nothing to agree with
    ],
)
def test_a_launcher_count_that_agrees_passes(command: list[str], nodes: int) -> None:
    assert list(node_count_problems(command, nodes, "its nodes")) == []


@pytest.mark.parametrize(
    ("command", "flag"),
    [
        (["torchrun", "--nnodes=4", "train.py"], "--nnodes=4"),
        (["torchrun", "--nnodes", "4", "train.py"], "--nnodes=4"),
        (["torchrun", "--nnodes=1:4", "train.py"], "--nnodes=1:4"),
        (["sh", "-c", "exec torchrun --nnodes=4 train.py"], "--nnodes=4"),
        (["accelerate", "launch", "--num_machines=4", "train.py"], "--num_machines=4"),
        (["torchrun", "--nnodes=$(OTHER)", "train.py"], "--nnodes=$(OTHER)"),
    ],
)
def test_a_launcher_count_that_disagrees_is_named(command: list[str], flag: str) -> None:
    [message] = node_count_problems(command, 8, "its nodes")
    assert message.startswith(f"{flag} disagrees with the job's 8 nodes (its nodes)")
    assert "--nnodes=$(ACCELPLANE_NODES)" in message or "=$(ACCELPLANE_NODES)" in message


def test_raising_the_pool_maximum_under_a_literal_nnodes_is_refused_at_the_command() -> None:
    text = PROD_BEFORE.replace("scaling: {min: 0, desired: 2, max: 4}", "scaling: {min: 0, desired: 2, max: 8}", 1)
    problems = [p for p in _problems(text) if "disagrees" in p]
    assert len(problems) == 1
    assert "training_templates[0].command: --nnodes=4 disagrees with the job's 8 nodes (pool train-h100's maximum)" \
        in problems[0]


def test_a_declared_node_count_is_the_one_the_launcher_must_name() -> None:
    derived = '"--nnodes=$(ACCELPLANE_NODES)", "--nproc-per-node=$(ACCELPLANE_ACCELERATORS_PER_NODE)"'
    text = stack_text("prod").replace(derived, '"--nnodes=4", "--nproc-per-node=8"', 1)
    [problem] = [p for p in _problems(text) if "disagrees" in p]
    assert "--nnodes=4 disagrees with the job's 3 nodes (its nodes)" in problem


def test_on_a_tpu_pool_the_default_is_the_pools_vms() -> None:
    """tpu-prod's v5p pool scales to 2 slices of 4 VMs: a job of the whole pool is 8 nodes."""
    text = stack_text("tpu-prod").replace("command: [python3, -m, MaxText.train, MaxText/configs/base.yml]",
                                          "command: [torchrun, --nnodes=2, train.py]", 1)
    [problem] = [p for p in _problems(text, "tpu-prod") if "disagrees" in p]
    assert "--nnodes=2 disagrees with the job's 8 nodes (pool train-v5p's maximum)" in problem


def test_the_jobset_carries_the_count_its_launcher_reads() -> None:
    graph = offline_graph(load_stack_text(stack_text("prod"), path="Pulumi.prod.yaml", stack="prod"))
    [config_map] = [r for r in graph.resources if r.type == "kubernetes:core/v1:ConfigMap" and "h100" in r.name]
    jobset = yaml.safe_load(config_map.inputs["data"]["jobset.yaml"])
    job = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]
    trainer = job["template"]["spec"]["containers"][0]
    env = {item["name"]: item.get("value") for item in trainer["env"]}
    assert job["parallelism"] == 3 and env["ACCELPLANE_NODES"] == "3" and env["ACCELPLANE_ACCELERATORS_PER_NODE"] == "8"
    assert trainer["command"][1] == "--nnodes=$(ACCELPLANE_NODES)"


def test_without_nodes_the_job_takes_the_pools_maximum() -> None:
    graph = offline_graph(load_stack_text(stack_text("dev"), path="Pulumi.dev.yaml", stack="dev"))
    [config_map] = [r for r in graph.resources if r.type == "kubernetes:core/v1:ConfigMap" and "train-l4" in r.name]
    job = yaml.safe_load(config_map.inputs["data"]["jobset.yaml"])["spec"]["replicatedJobs"][0]["template"]["spec"]
    assert job["parallelism"] == 2  # train-l4 scales to 2 nodes
