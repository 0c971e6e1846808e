"""A request checked against the AWS service's own model (botocore's, pinned with boto3): members,
types, required fields, and enum values, which botocore's own validator does not check."""

from __future__ import annotations

from typing import Any

import botocore.session
from botocore.validate import ParamValidator


def _enum_errors(shape: Any, value: Any, path: str) -> list[str]:
    if shape.type_name == "structure" and isinstance(value, dict):
        return [error for name, item in value.items() if name in shape.members
                for error in _enum_errors(shape.members[name], item, f"{path}.{name}")]
    if shape.type_name == "list" and isinstance(value, list):
        return [error for item in value for error in _enum_errors(shape.member, item, path)]
    enum = getattr(shape, "enum", None)
    return [f"{path}: {value!r} is not one of {enum}"] if enum and value not in enum else []


def invalid(service: str, operation: str, params: dict[str, Any]) -> str:
    """What `service`'s model refuses in `operation`'s `params` ("" when nothing)."""
    model = botocore.session.get_session().get_service_model(service).operation_model(operation)
    report = ParamValidator().validate(params, model.input_shape).generate_report()
    return "\n".join(filter(None, [report, *_enum_errors(model.input_shape, params, operation)]))
