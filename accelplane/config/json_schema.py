"""JSON Schema of a stack file, generated from the pydantic models (never written by hand).

Stack files point at `schema/stack.schema.json` with a `yaml-language-server` comment, so editors
complete keys and flag mistakes as people type. A test fails when the committed file drifts.
"""

from __future__ import annotations

import json
from typing import Any

from accelplane.config.loader import PLATFORM_KEY
from accelplane.config.project import SOURCE_CHECKOUT
from accelplane.declaration import Platform

SCHEMA_PATH = SOURCE_CHECKOUT / "schema" / "stack.schema.json"


def stack_file_schema() -> dict[str, Any]:
    platform = Platform.model_json_schema(ref_template="#/$defs/{model}")
    definitions = platform.pop("$defs", {})
    definitions["Platform"] = platform
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
