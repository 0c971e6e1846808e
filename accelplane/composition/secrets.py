"""Secret values from Pulumi's encrypted config, the same on both clouds.

`pulumi config set --secret accelplane:secret-<name> VALUE` gives a declared secret its first
value; without one the secret is created empty and an operator puts the value. A value is never
in a stack file.
"""

from __future__ import annotations

import pulumi

from accelplane.config.model import Platform

SECRET_CONFIG_PREFIX = "secret-"


def secret_values(platform: Platform) -> dict[str, pulumi.Output[str]]:
    config = pulumi.Config("accelplane")
    return {
        secret.name: value
        for secret in platform.secrets
        if (value := config.get_secret(f"{SECRET_CONFIG_PREFIX}{secret.name}")) is not None
    }
