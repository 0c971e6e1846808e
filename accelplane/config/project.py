"""Where the project and its stack files are, the way the Pulumi CLI finds them.

`--stack NAME` means `<stackConfigDir>/Pulumi.<NAME>.yaml` of the project: the directory holding
`Pulumi.yaml`, searched from the current directory upwards (so any sub-directory of the project
works), then the source checkout this package runs from (an editable install used from elsewhere).
An installed, non-editable package has no checkout: the current directory decides alone.
`--stack-file PATH` takes a stack file from anywhere instead.

The project's `name` is what Pulumi writes into every URN (`urn:pulumi:<stack>::<project>::…`),
which is how a state export or a plan is matched to the stack it claims to be.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from accelplane.config.yaml_source import read_yaml
from accelplane.errors import InputError
from accelplane.input_files import is_file

PROJECT_FILE = "Pulumi.yaml"
DEFAULT_PROJECT = "accelplane"  # a stack file outside any project: the name this project's Pulumi.yaml gives
# The checkout this package was imported from, when it is one (editable install, tests, CI).
SOURCE_CHECKOUT = Path(__file__).resolve().parents[2]
# Pulumi stack names: letters, digits, `-`, `_`, `.`; `org/project/name` selects `name`'s file.
_STACK_NAME = re.compile(r"^(?:[A-Za-z0-9_.-]+/){0,2}(?P<name>[A-Za-z0-9_.-]+)\Z")  # \Z: "dev\n" is no name
_STACK_NAME_PART = re.compile(r"[A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class Project:
    root: Path
    name: str
    stacks_dir: Path

    def stack_file(self, stack: str) -> Path:
        return self.stacks_dir / f"Pulumi.{short_stack_name(stack)}.yaml"

    def stacks(self) -> list[str]:
        return sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in self.stacks_dir.glob("Pulumi.*.yaml"))


def short_stack_name(stack: str, option: str = "--stack") -> str:
    """`prod`, `org/prod` or `org/project/prod` → `prod`; anything else (a path, `..`) is refused."""
    match = _STACK_NAME.match(stack)
    if match is None or any(part in (".", "..") for part in stack.split("/")):
        raise InputError.single(
            f"{stack!r} is not a stack name (letters, digits, '-', '_', '.'; optionally org/[project/]name); "
            "give a stack file with --stack-file PATH", field=option, file="accelplane",
        )
    return match["name"]


def stack_name_of_file(path: Path) -> str:
    """The stack a file declares by its name: `Pulumi.<stack>.yaml` → stack, else the file's stem.

    The name goes into every URN, so it must be one `--stack` takes: a file named `Pulumi.a::b.yaml`
    or with bytes that are not UTF-8 in its name is refused (exit 2), not run as a stack Pulumi
    would never have."""
    name = path.name
    if name.startswith("Pulumi.") and name.endswith((".yaml", ".yml")) and name.count(".") >= 2:
        stack = name[len("Pulumi.") : name.rindex(".")]
    else:
        stack = path.stem
    if _STACK_NAME_PART.fullmatch(stack) is None or stack in (".", ".."):
        raise InputError.single(
            f"the file's name gives the stack name {stack!r}, which is not a stack name (letters, digits, '-', "
            "'_', '.'): name the file Pulumi.<stack>.yaml", file=str(path), field="--stack-file",
        )
    return stack


def _project_at(directory: Path) -> Project | None:
    marker = directory / PROJECT_FILE
    if not is_file(marker):
        return None

    data = read_yaml(marker).data
    if not isinstance(data, dict) or not isinstance(data.get("name"), str) or not data["name"]:
        raise InputError.single("expected a Pulumi project file with a `name`", file=str(marker), field="name")
    config_dir = data.get("stackConfigDir")
    if config_dir is not None and not isinstance(config_dir, str):
        raise InputError.single("expected a directory path", file=str(marker), field="stackConfigDir")
    return Project(root=directory, name=data["name"], stacks_dir=directory / (config_dir or "."))


def project_around(directory: Path) -> Project | None:
    """The nearest project at or above `directory` (the directory holding `Pulumi.yaml`), if any."""
    here = directory.resolve()
    return next((p for p in map(_project_at, (here, *here.parents)) if p is not None), None)


def find_project(start: Path | None = None, *, fallback: bool = True) -> Project:
    """The project around `start` (default: the current directory), else (with `fallback`) this
    package's checkout."""
    here = (start or Path.cwd()).resolve()
    project = project_around(here) or (_project_at(SOURCE_CHECKOUT) if fallback else None)
    if project is not None:
        return project
    raise InputError.single(
        f"no {PROJECT_FILE} in {here} or any directory above it: run accelplane inside the project, "
        "or give the stack file with --stack-file PATH", file=str(here), field="--stack",
    )
