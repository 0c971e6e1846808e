"""Read the declaration when the real Pulumi engine runs the program (`pulumi up`/`preview`).

Pulumi hands config over as JSON (`require_object`); we validate it with the same model and
point problems at the stack file's lines when the file is where `stackConfigDir` puts it.
"""

from __future__ import annotations

import pulumi

from accelplane.config.loader import PLATFORM_KEY, validate_platform
from accelplane.config.model import Platform
from accelplane.config.project import find_project
from accelplane.config.yaml_source import read_yaml
from accelplane.errors import InputError

SUPPORTED_SCHEMA_VERSION = 1


def platform_from_pulumi() -> Platform:
    config = pulumi.Config("accelplane")
    version = config.get_int("schemaVersion") or SUPPORTED_SCHEMA_VERSION
    if version != SUPPORTED_SCHEMA_VERSION:
        raise InputError.single(
            f"schema version {version} is not supported; expected {SUPPORTED_SCHEMA_VERSION}",
            field="accelplane:schemaVersion",
        )
    raw = config.require_object("platform")
    path = find_project().stack_file(pulumi.get_stack())  # the engine runs the program in the project
    document = read_yaml(path) if path.is_file() else None
    return validate_platform(raw, document, ("config", PLATFORM_KEY) if document else ())
