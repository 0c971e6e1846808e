"""One source for a training job's size: the launcher's node count is the template's, never a second literal.

A training template declares `nodes` once (or takes its pool's maximum); the JobSet's parallelism and
its `ACCELPLANE_NODES` env come from it. A launcher in the command names the count again, so it
either reads it from the env — `--nnodes=$(ACCELPLANE_NODES)`: Kubernetes expands `$(VAR)` in a
container's command from its env (https://kubernetes.io/docs/tasks/inject-data-application/
define-command-argument-container/#use-environment-variables-to-define-arguments) — or writes a literal
that has to agree. A disagreeing literal is refused: raising a pool's maximum would otherwise resize
the JobSet while `torchrun --nnodes=4` still waits for four nodes, or starts a quarter of the world.
"""

from __future__ import annotations

import itertools
import re
import shlex
from collections.abc import Iterator, Sequence

NODES_ENV = "ACCELPLANE_NODES"
ACCELERATORS_PER_NODE_ENV = "ACCELPLANE_ACCELERATORS_PER_NODE"
NODES_REFERENCE = f"$({NODES_ENV})"

# Node-count flags of the launchers the field uses: torchrun
# (https://pytorch.org/docs/stable/elastic/run.html, `--nnodes=N` or elastic `MIN:MAX`), DeepSpeed
# (`--num_nodes`) and Hugging Face Accelerate (`--num_machines`).
NODE_FLAGS = ("--nnodes", "--num_nodes", "--num-nodes", "--num_machines", "--num-machines")
_RANGE = re.compile(r"^(\d+):(\d+)$")


def _flag_values(command: Sequence[str]) -> Iterator[tuple[str, str]]:
    """(flag, value) for each node-count flag, in list elements and inside shell strings (`bash -c "…"`)."""
    for element in command:
        try:
            words = shlex.split(element) if " " in element else [element]
        except ValueError:
            words = element.split()
        for position, word in enumerate(words):
            flag, equals, value = word.partition("=")
            if flag not in NODE_FLAGS:
                continue
            if equals:
                yield flag, value
            elif position + 1 < len(words):
                yield flag, words[position + 1]
    # A flag and its value in two list elements (`[torchrun, --nnodes, "4"]`).
    for flag, value in itertools.pairwise(command):
        if flag in NODE_FLAGS:
            yield flag, value


def _agrees(value: str, nodes: int) -> bool:
    if value == NODES_REFERENCE or value == str(nodes):
        return True
    elastic = _RANGE.match(value)
    return bool(elastic) and int(elastic[1]) <= nodes <= int(elastic[2])


def node_count_problems(command: Sequence[str], nodes: int, source: str) -> Iterator[str]:
    """What in `command` names a node count other than `nodes` (which `source` explains)."""
    seen: set[tuple[str, str]] = set()
    for flag, value in _flag_values(command):
        if (flag, value) in seen or _agrees(value, nodes):
            continue
        seen.add((flag, value))
        yield (f"{flag}={value} disagrees with the job's {nodes} nodes ({source}): write "
               f"{flag}={NODES_REFERENCE} so the launcher reads the count the JobSet runs")
