"""The published JSON Schema is generated from the model and accepts the real stack files."""

from __future__ import annotations

import json

import jsonschema
import pytest
import yaml

from accelplane.cli import main
from accelplane.config.json_schema import SCHEMA_PATH, render
from tests.support.stack_files import STACKS_DIR


def test_committed_schema_is_current() -> None:
    assert SCHEMA_PATH.read_text() == render(), "run `make schema` after changing the model"


@pytest.mark.parametrize("stack", ["dev", "prod", "tpu-dev", "tpu-prod", "ironwood-dev", "lab", "lab-mixed"])
def test_stack_files_validate_and_reference_the_schema(stack: str) -> None:
    path = STACKS_DIR / f"Pulumi.{stack}.yaml"
    text = path.read_text()
    assert text.splitlines()[0] == "# yaml-language-server: $schema=../schema/stack.schema.json"
    jsonschema.validate(yaml.safe_load(text), json.loads(SCHEMA_PATH.read_text()))


def test_schema_rejects_an_unknown_key_as_editors_would() -> None:
    document = yaml.safe_load((STACKS_DIR / "Pulumi.dev.yaml").read_text())
    document["config"]["accelplane:platform"]["node_pools"][0]["gpu_count"] = 8
    with pytest.raises(jsonschema.ValidationError, match="gpu_count"):
        jsonschema.validate(document, json.loads(SCHEMA_PATH.read_text()))


def test_every_field_is_described() -> None:
    schema = json.loads(render())
    for name, definition in schema["$defs"].items():
        for field, spec in definition.get("properties", {}).items():
            assert spec.get("description"), f"{name}.{field} has no description"


def test_schema_command_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    definitions = json.loads(capsys.readouterr().out)["$defs"]
    assert definitions["Platform"]["properties"]["cloud"]["enum"] == ["aws", "gcp"]
    assert definitions["AwsPlatform"]["additionalProperties"] is False


@pytest.mark.parametrize(("stack", "other_cloud_key"), [
    ("dev", ("network", "vpc")),  # Google Cloud's VPC ranges on an AWS stack (no cloud: key: the default aws)
    ("tpu-prod", ("network", "new_vpc")),  # an AWS VPC on a Google Cloud stack
])
def test_schema_branch_on_cloud_offers_only_that_clouds_keys(stack: str, other_cloud_key: tuple[str, str]) -> None:
    document = yaml.safe_load((STACKS_DIR / f"Pulumi.{stack}.yaml").read_text())
    section, key = other_cloud_key
    document["config"]["accelplane:platform"][section][key] = {"cidr": "10.0.0.0/16"}
    with pytest.raises(jsonschema.ValidationError, match=key):
        jsonschema.validate(document, json.loads(SCHEMA_PATH.read_text()))
