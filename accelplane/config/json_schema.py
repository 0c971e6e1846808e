"""JSON Schema of a stack file, generated from the pydantic models (never written by hand).

Stack files point at `schema/stack.schema.json` with a `yaml-language-server` comment, so editors
complete keys and flag mistakes as people type. A test fails when the committed file drifts.
"""

from __future__ import annotations

import json
from typing import Any

from accelplane.cloud_support import cloud_support, known_clouds
from accelplane.config.keys import PLATFORM_KEY
from accelplane.config.project import SOURCE_CHECKOUT
from accelplane.declaration import Platform
from accelplane.matrix import accelerators

SCHEMA_PATH = SOURCE_CHECKOUT / "schema" / "stack.schema.json"


def _enum(field: dict[str, Any], values: list[str]) -> None:
    """Close a string field (or a nullable one) to `values`."""
    closed = {"type": "string", "enum": values}
    if "anyOf" in field:
        field["anyOf"] = [closed if option.get("type") == "string" else option for option in field["anyOf"]]
    else:
        field.update(closed)


def _vocabularies(definitions: dict[str, Any]) -> None:
    """Enums the models leave open because their values are data: the matrix's accelerators and each
    cloud's vocabularies (TPU topologies)."""
    accelerators_known = sorted(accelerators())
    _enum(definitions["NodePool"]["properties"]["accelerator"], accelerators_known)
    _enum(definitions["HostGroup"]["properties"]["accelerator"], accelerators_known)
    fields: dict[str, set[str]] = {}
    for cloud in known_clouds():
        for name, values in cloud_support(cloud).vocabularies().items():
            fields.setdefault(name, set()).update(values)
    for name, values in fields.items():
        _enum(definitions["NodePool"]["properties"][name], sorted(values))


def stack_file_schema() -> dict[str, Any]:
    platform = Platform.model_json_schema(ref_template="#/$defs/{model}")
    definitions = platform.pop("$defs", {})
    definitions["Platform"] = platform
    _vocabularies(definitions)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://accelplane.dev/schema/stack.schema.json",
        "title": "accelplane stack file (stacks/Pulumi.<stack>.yaml)",
        "type": "object",
        "properties": {
            "config": {
                "type": "object",
                "description": "Pulumi stack configuration; accelplane reads the `accelplane:platform` key.",
                "properties": {PLATFORM_KEY: {"$ref": "#/$defs/Platform"}},
                "required": [PLATFORM_KEY],
            },
            "secretsprovider": {"type": "string"},
            "encryptedkey": {"type": "string"},
            "encryptionsalt": {"type": "string"},
            "environment": {"description": "Pulumi ESC environments imported by the stack."},
        },
        "required": ["config"],
        "$defs": definitions,
    }


def render() -> str:
    return json.dumps(stack_file_schema(), indent=2, sort_keys=True) + "\n"
