"""Load a stack declaration (`stacks/Pulumi.<stack>.yaml`) into a validated `Platform`.

Every problem is reported at once, each with file, line and field path, as an `InputError`
(exit code 2). Nothing is built from a declaration that has a problem.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from accelplane.cloud_support import DEFAULT_CLOUD, cloud_images, cloud_support, known_clouds
from accelplane.config.cross_field_checks import problems as cross_field_problems
from accelplane.config.keys import MIGRATION_KEY, PLATFORM_KEY
from accelplane.config.project import (
    DEFAULT_PROJECT,
    Project,
    find_project,
    project_around,
    short_stack_name,
    stack_name_of_file,
)
from accelplane.config.yaml_source import PathPart, YamlDocument, parse_yaml, read_yaml
from accelplane.declaration import Platform
from accelplane.errors import InputError, Problem
from accelplane.input_files import is_file
from accelplane.suggest import did_you_mean


@dataclass(frozen=True)
class StackConfig:
    """A validated stack: its name, file and declaration."""

    stack: str
    path: Path
    platform: Platform
    config: dict[str, Any]  # the file's whole `config:` block, for engines that need other keys
    project: str = DEFAULT_PROJECT  # the Pulumi project name: the second part of every URN
    # The parsed file, to point a finding at the line that declares it (None: not from a file).
    document: YamlDocument | None = field(default=None, compare=False, repr=False)

    def line_of(self, *parts: PathPart) -> int | None:
        """Line of `accelplane:platform.<parts>` in the stack file (the nearest declared parent)."""
        return self.document.line_of(["config", PLATFORM_KEY, *parts]) if self.document else None


@dataclass
class MigrationStackError(InputError):
    """The stack file declares a migration, not a platform: the commands that read one catch this and load
    it from the already parsed `document` (`accelplane.migration.loader`); the others exit 2 with its words."""

    document: YamlDocument | None = None
    stack: str = ""
    project: str = DEFAULT_PROJECT


def load_stack(stack: str, project: Project | None = None) -> StackConfig:
    """`--stack NAME`: the stack file of the project around the current directory (`find_project`)."""
    project = project or find_project()
    path = project.stack_file(stack)
    if not is_file(path):  # a name too long to look up is "no such stack" too
        known = ", ".join(project.stacks()) or "none"
        raise InputError.single(f"no stack {stack!r} (expected {path}; stacks here: {known})", file=str(path),
                                field="--stack")
    return load_stack_file(path, stack=short_stack_name(stack), project=project.name)


def load_stack_file(path: Path, stack: str | None = None, project: str | None = None) -> StackConfig:
    """`--stack-file PATH`: a stack file anywhere; the stack's name comes from the file name, the
    project's from the `Pulumi.yaml` above it (default: accelplane)."""
    document = read_yaml(path, option="--stack-file")
    return _from_document(document, stack or stack_name_of_file(path), path,
                          project or project_name_around(path))


def project_name_around(path: Path) -> str:
    """The project of the `Pulumi.yaml` above a stack file (default: accelplane)."""
    around = project_around(path.parent)
    return around.name if around is not None else DEFAULT_PROJECT


def load_stack_text(text: str, path: str = "<stack>", stack: str = "test") -> StackConfig:
    return _from_document(parse_yaml(text, path), stack, Path(path), DEFAULT_PROJECT)


def _from_document(document: YamlDocument, stack: str, path: Path, project: str) -> StackConfig:
    data = document.data
    if not isinstance(data, dict) or not isinstance(data.get("config"), dict):
        raise InputError.single(
            "expected a Pulumi stack file with a top-level `config:` mapping",
            file=document.path,
            line=document.line_of([]),
        )
    config = data["config"]
    if PLATFORM_KEY not in config and MIGRATION_KEY in config:
        message = (f"stack {stack!r} is a migration stack (`{MIGRATION_KEY}`): `preview`, `check` and `migrate` "
                   "read it; this command reads a stack that declares a platform (`accelplane:platform`)")
        raise MigrationStackError([Problem(file=document.path, line=document.line_of(["config", MIGRATION_KEY]),
                                          field=f"config.{MIGRATION_KEY}", message=message)],
                                 document=document, stack=stack, project=project)
    if PLATFORM_KEY not in config:
        raise InputError.single(
            f"missing `{PLATFORM_KEY}` under `config:`",
            file=document.path,
            line=document.line_of(["config"]),
            field=f"config.{PLATFORM_KEY}",
        )
    platform = validate_platform(config[PLATFORM_KEY], document, ("config", PLATFORM_KEY))
    _provider_config_agrees(config, platform, document)
    return StackConfig(stack=stack, path=path, platform=platform, config=config, project=project, document=document)


def _provider_config_agrees(config: dict[str, Any], platform: Platform, document: YamlDocument) -> None:
    """The program deploys through its cloud's provider for the declared region (and project); a
    different ambient provider setting in the same file (`aws:region`, `gcp:project`) would make `pulumi`
    commands and people reading the file disagree with the declaration, so it is refused."""
    declared = cloud_support(platform.cloud).provider_config(platform)
    problems = [
        Problem(file=document.path, line=document.line_of(["config", key]), field=f"config.{key}",
                message=f"{config[key]!r} differs from the declaration's {want!r}: remove `{key}` or make the two "
                        "agree")
        for key, want in declared.items()
        if key in config and config[key] != want
    ]
    if problems:
        raise InputError(problems)


def validate_platform(raw: Any, document: YamlDocument | None, prefix: Sequence[PathPart] = ()) -> Platform:
    """Validate one `accelplane:platform` value; map every problem to the file's lines."""
    source = document.path if document else f"<{PLATFORM_KEY}>"

    def problem(parts: Sequence[PathPart], message: str) -> Problem:
        line = document.line_of([*prefix, *parts]) if document else None
        return Problem(file=source, line=line, field=dotted_path([PLATFORM_KEY, *parts]), message=message)

    model = _platform_model(raw)
    if model is None:
        raise InputError([problem(["cloud"], _unknown_cloud(raw["cloud"]))])
    try:
        platform = model.model_validate(raw)
    except ValidationError as error:
        errors = error.errors()
        shape = [problem(yaml_path(e["loc"]), _explain(e, model)) for e in errors]
        # Every independent mistake in one run: without the fields that failed (they fall back to
        # their defaults), the rest may validate, and its cross-field problems are reported too.
        repaired = _without_failed_fields(model, raw, errors)
        if repaired is not None:
            failed = [yaml_path(e["loc"]) for e in errors]
            # A problem only because a failed field is gone ("no inference_endpoint is declared") is a
            # consequence, not a second mistake: left out, as is one inside a failed field.
            dropped = {str(f[-1]) for f in failed if f and isinstance(f[-1], str)}
            shape += [problem(parts, message) for parts, message in cross_field_problems(repaired)
                      if not any(list(parts[: len(f)]) == f for f in failed)
                      and not any(re.search(rf"\b{re.escape(name)}\b", message) for name in dropped)]
        raise InputError(shape) from None
    found = cross_field_problems(platform)
    if found:
        raise InputError([problem(parts, message) for parts, message in found])
    # What the nodes' machine images decide (the EKS AMI's driver) is derived, never typed twice.
    images = cloud_images(platform.cloud)
    return images.with_image_software(platform) if images else platform


def _platform_model(raw: Any) -> type[Platform] | None:
    """The model of the stack's cloud (`cloud:`, default aws), or None for a cloud not installed."""
    cloud = raw.get("cloud", DEFAULT_CLOUD) if isinstance(raw, dict) else DEFAULT_CLOUD
    if not isinstance(cloud, str) or cloud not in known_clouds():
        return None
    return cloud_support(cloud).platform_model


def _unknown_cloud(cloud: Any) -> str:
    installed = list(known_clouds())
    hint = did_you_mean(cloud, installed) if isinstance(cloud, str) else ""
    return f"no cloud {cloud!r}{hint} (installed clouds: {', '.join(installed)})"


def _without_failed_fields(model: type[Platform], raw: Any, errors: Sequence[ErrorDetails]) -> Platform | None:
    """The declaration validated without the fields that failed, or None when that is not enough (a
    required field is missing or failed: nothing sound to check the rest against)."""
    if any(e["type"] == "missing" for e in errors):
        return None
    data = copy.deepcopy(raw)
    for error in errors:
        path = yaml_path(error["loc"])
        parent: Any = data
        for part in path[:-1]:
            try:
                parent = parent[part]
            except (KeyError, IndexError, TypeError):
                return None
        if not isinstance(parent, dict) or not path or path[-1] not in parent:
            return None
        del parent[path[-1]]
    try:
        return model.model_validate(data)
    except ValidationError:
        return None


def yaml_path(loc: Sequence[Any]) -> list[PathPart]:
    # pydantic adds "[key]" for dict-key errors and model names inside unions; neither is in the file.
    return [part for part in loc if part != "[key]" and not (isinstance(part, str) and part[:1].isupper())]


def dotted_path(parts: Sequence[PathPart]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _explain(error: ErrorDetails, model: type[Platform]) -> str:
    if error["type"] == "extra_forbidden":
        key = str(error["loc"][-1]) if error["loc"] else ""
        owners = [cloud for cloud in known_clouds() if cloud_support(cloud).platform_model is not model
                  and key in _allowed_keys(cloud_support(cloud).platform_model, error["loc"])]
        if owners:
            hint = " or ".join(f"cloud: {cloud}" for cloud in owners)
            return f"{key} is for {hint} stacks; remove it (or set {hint})"
    return explain_error(error, model)


def explain_error(error: ErrorDetails, model: type[BaseModel]) -> str:
    """One validation error of `model` in words: what was expected, and the nearest word for a typo."""
    kind = error["type"]
    if kind == "extra_forbidden":
        key = str(error["loc"][-1]) if error["loc"] else ""
        allowed = _allowed_keys(model, error["loc"])
        return f"unknown key{did_you_mean(key, allowed)} (expected one of: {', '.join(allowed)})"
    if kind == "missing":
        return "required field is missing"
    message = error["msg"]
    message = message.removeprefix("Value error, ")
    got = error.get("input")
    if kind == "string_type" and isinstance(got, (int, float)) and not isinstance(got, bool):
        return (f"{message} (got the number {got!r}: YAML reads an unquoted version as a number, 3.10 as 3.1; "
                'quote it, e.g. "3.10")')
    if kind == "enum" and isinstance(got, str):
        # Every closed vocabulary names its nearest words, not just the list.
        allowed = re.findall(r"'([^']*)'", str((error.get("ctx") or {}).get("expected", "")))
        return f"{message} (got {got!r}{did_you_mean(got, allowed)})"
    if kind not in ("value_error",) and not isinstance(got, (dict, list)):
        message = f"{message} (got {got!r})"
    return message


def _allowed_keys(root: type[BaseModel], loc: Sequence[Any]) -> list[str]:
    """Field names of the model that holds the unknown key, to help with typos."""
    model: type[BaseModel] | None = root
    for part in loc[:-1]:
        field = model.model_fields.get(str(part)) if model else None
        if field is not None:
            model = _model_in(field.annotation)
        # list indices and dict keys (profile names) keep the model reached so far
    return sorted(model.model_fields) if model else []


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _model_in(arg)
        if found:
            return found
    return None
