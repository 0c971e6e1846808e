"""Read the stack's Pulumi config when the engine runs the program (`pulumi up`/`preview`).

- The declaration: Pulumi hands config over as JSON (`require_object`); we validate it with the same
  model and point problems at the stack file's lines when the file is where `stackConfigDir` puts it.
- Secret values, the same on every cloud: `pulumi config set --secret accelplane:secret-<name> VALUE`
  gives a declared secret its first value; without one the secret is created empty and an operator
  puts the value. A value is never in a stack file.
"""

from __future__ import annotations

import pulumi

from accelplane.config.loader import PLATFORM_KEY, validate_platform
from accelplane.config.project import find_project
from accelplane.config.yaml_source import read_yaml
from accelplane.declaration import Platform
from accelplane.errors import InputError

SUPPORTED_SCHEMA_VERSION = 1
SECRET_CONFIG_PREFIX = "secret-"


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


def secret_values(platform: Platform) -> dict[str, pulumi.Output[str]]:
    config = pulumi.Config("accelplane")
    return {
        secret.name: value
        for secret in platform.secrets
        if (value := config.get_secret(f"{SECRET_CONFIG_PREFIX}{secret.name}")) is not None
    }
