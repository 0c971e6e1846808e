"""Load a migration stack (`accelplane:migration`) and the two stacks it joins.

Every problem is reported at once, with file, line and field (exit 2): the declaration's shape first,
then what only the two ends can tell (`checks.py`). The ends are the stack files beside the migration's
own (`Pulumi.<stack>.yaml` in the same directory), loaded and validated like any stack.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from accelplane.config.keys import MIGRATION_KEY
from accelplane.config.loader import (
    MigrationStackError,
    StackConfig,
    dotted_path,
    explain_error,
    load_stack_file,
    yaml_path,
)
from accelplane.config.yaml_source import PathPart, YamlDocument
from accelplane.declaration.migration import Migration
from accelplane.errors import InputError, Problem
from accelplane.input_files import is_file
from accelplane.migration.stack import MigrationStack


def from_stack_file(found: MigrationStackError) -> MigrationStack:
    """The migration the platform loader found instead of a platform, from the file it already parsed."""
    assert found.document is not None
    return _load(Path(found.document.path), found.document, found.stack, found.project)


def load_migration(path: Path, stack: str | None = None) -> MigrationStack:
    """The migration stack file at `path` (a platform stack file is refused, exit 2, naming what it is)."""
    try:
        load_stack_file(path, stack=stack)
    except MigrationStackError as found:
        return from_stack_file(found)
    raise InputError.single(f"expected a migration stack (`{MIGRATION_KEY}`): this one declares a platform; for a "
                            "service inside one stack, `accelplane rollout` moves traffic between its backends",
                            file=str(path), field=f"config.{MIGRATION_KEY}")


def _load(path: Path, document: YamlDocument, name: str, project: str) -> MigrationStack:
    config = document.data["config"]
    migration = _validated(config[MIGRATION_KEY], document)

    def problem(parts: tuple[PathPart, ...], message: str) -> Problem:
        return Problem(file=document.path, line=document.line_of(["config", MIGRATION_KEY, *parts]),
                       field=dotted_path([MIGRATION_KEY, *parts]), message=message)

    ends: dict[str, StackConfig] = {}
    problems: list[Problem] = []
    for role in ("source", "target"):
        end = getattr(migration, role)
        end_path = path.parent / f"Pulumi.{end.stack}.yaml"
        if end.stack == name:
            problems.append(problem((role, "stack"), "an end is another stack, not the migration itself"))
        elif not is_file(end_path):
            problems.append(problem((role, "stack"), f"no stack {end.stack!r} beside this one (expected {end_path})"))
        else:
            ends[role] = load_stack_file(end_path, stack=end.stack, project=project)
    if problems:
        raise InputError(problems)
    loaded = MigrationStack(stack=name, path=path, project=project, migration=migration, source=ends["source"],
                            target=ends["target"], config=config, document=document)
    # Start-up time: the checks load the clouds' facets only once the shape is sound.
    from accelplane.migration.checks import problems as migration_problems

    found = [problem(parts, message) for parts, message in migration_problems(loaded)]
    if found:
        raise InputError(found)
    return loaded


def _validated(raw: Any, document: YamlDocument) -> Migration:
    prefix = ["config", MIGRATION_KEY]
    try:
        return Migration.model_validate(raw)
    except ValidationError as error:
        raise InputError([
            Problem(file=document.path, line=document.line_of([*prefix, *yaml_path(e["loc"])]),
                    field=dotted_path([MIGRATION_KEY, *yaml_path(e["loc"])]), message=explain_error(e, Migration))
            for e in error.errors()
        ]) from None
