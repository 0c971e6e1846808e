"""JSON Schema of a stack file, generated from the pydantic models (never written by hand).

Stack files point at `schema/stack.schema.json` with a `yaml-language-server` comment, so editors
complete keys and flag mistakes as people type. A test fails when the committed file drifts.

`accelplane:platform` is one branch per installed cloud: `cloud:` (absent: the default cloud) picks
its model with if/then, so an editor completes only that cloud's keys.
"""

from __future__ import annotations

import json
from typing import Any, get_args

from accelplane.cloud_support import DEFAULT_CLOUD, cloud_support, known_clouds
from accelplane.config.keys import MIGRATION_KEY, PLATFORM_KEY
from accelplane.config.project import SOURCE_CHECKOUT
from accelplane.declaration import PROMETHEUS_METRICS, Platform
from accelplane.declaration.migration import Migration
from accelplane.matrix import accelerators

SCHEMA_PATH = SOURCE_CHECKOUT / "schema" / "stack.schema.json"


def _enum(field: dict[str, Any], values: list[str]) -> None:
    """Close a string field (or a nullable one) to `values`."""
    closed = {"type": "string", "enum": values}
    if "anyOf" in field:
        field["anyOf"] = [closed if option.get("type") == "string" else option for option in field["anyOf"]]
    else:
        field.update(closed)


def _pool_model(platform: type[Platform]) -> str:
    """The name of the pool model a cloud's platform declares its `node_pools` with."""
    (pool,) = get_args(platform.model_fields["node_pools"].annotation)  # list[<cloud's NodePool>]
    return str(pool.__name__)


def _vocabularies(definitions: dict[str, Any]) -> None:
    """Enums the models leave open because their values are data: the matrix's accelerators and each
    cloud's vocabularies (TPU topologies), on that cloud's pools."""
    accelerators_known = sorted(accelerators())
    _enum(definitions["HostGroup"]["properties"]["accelerator"], accelerators_known)
    # The rollout's metrics: Prometheus on every cloud, or a cloud's own load-balancer metrics (which a
    # stack may use on that cloud only: config/kubernetes_section_checks.py says so with the line).
    own = {name for cloud in known_clouds() if (name := cloud_support(cloud).load_balancer_metrics)}
    _enum(definitions["Rollout"]["properties"]["metrics"], sorted({PROMETHEUS_METRICS, *own}))
    for cloud in known_clouds():
        support = cloud_support(cloud)
        pool = definitions[_pool_model(support.platform_model)]["properties"]
        _enum(pool["accelerator"], accelerators_known)
        for name, values in support.vocabularies().items():
            _enum(pool[name], sorted(values))


def _cloud_branch(cloud: str) -> dict[str, Any]:
    """if `cloud:` names this cloud (or is absent, for the default cloud), then its model."""
    named = {"properties": {"cloud": {"const": cloud}}, "required": ["cloud"]}
    condition = {"anyOf": [named, {"not": {"required": ["cloud"]}}]} if cloud == DEFAULT_CLOUD else named
    model = cloud_support(cloud).platform_model.__name__
    return {"if": condition, "then": {"$ref": f"#/$defs/{model}"}}


def _platform_definitions() -> dict[str, Any]:
    """Every cloud's platform model with the models it uses, in one `$defs`; a model both clouds use
    (the neutral sections) is one definition."""
    definitions: dict[str, Any] = {}
    for cloud in known_clouds():
        model = cloud_support(cloud).platform_model
        schema = model.model_json_schema(ref_template="#/$defs/{model}")
        for name, definition in {**schema.pop("$defs", {}), model.__name__: schema}.items():
            if definitions.setdefault(name, definition) != definition:
                raise ValueError(f"two clouds define the schema model {name!r} differently: rename one")
    migration = Migration.model_json_schema(ref_template="#/$defs/{model}")
    for name, definition in {**migration.pop("$defs", {}), "Migration": migration}.items():
        if definitions.setdefault(name, definition) != definition:
            raise ValueError(f"the migration and a cloud define the schema model {name!r} differently: rename one")
    clouds = list(known_clouds())
    definitions["Platform"] = {
        "title": "Platform",
        "description": (Platform.__doc__ or "").strip(),
        "type": "object",
        "properties": {"cloud": {"enum": clouds, "default": DEFAULT_CLOUD, "title": "Cloud",
                                 "description": Platform.model_fields["cloud"].description}},
        "allOf": [_cloud_branch(cloud) for cloud in clouds],
    }
    return definitions


def stack_file_schema() -> dict[str, Any]:
    definitions = _platform_definitions()
    _vocabularies(definitions)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://accelplane.dev/schema/stack.schema.json",
        "title": "accelplane stack file (stacks/Pulumi.<stack>.yaml)",
        "type": "object",
        "properties": {
            "config": {
                "type": "object",
                "description": "Pulumi stack configuration; accelplane reads the `accelplane:platform` key (a "
                               "platform stack) or the `accelplane:migration` key (a migration stack).",
                "properties": {PLATFORM_KEY: {"$ref": "#/$defs/Platform"},
                               MIGRATION_KEY: {"$ref": "#/$defs/Migration"}},
                "oneOf": [{"required": [PLATFORM_KEY]}, {"required": [MIGRATION_KEY]}],
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
