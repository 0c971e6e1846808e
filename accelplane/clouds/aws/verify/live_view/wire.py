"""API responses in the declared (wire) shape: camelCase keys as `pulumi up` sends them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from accelplane.clouds.aws.verify.live_inventory import tags_of
from accelplane.clouds.aws.verify.routing import live_forward


def camel(key: str) -> str:
    """AWS API member name to Pulumi wire name: `SSEAlgorithm` -> `sseAlgorithm`, `ID` -> `id`."""
    if not key or key[0].islower():
        return key
    run = 0
    while run < len(key) and key[run].isupper():
        run += 1
    if run == len(key):
        return key.lower()
    if run > 1:
        run -= 1
    return key[:run].lower() + key[run:]

def _template_key(template: Any, key: str) -> str | None:
    if isinstance(template, Mapping):
        lowered = key.lower()
        for candidate in template:
            if candidate.lower() == lowered:
                return candidate
    return None

def _element_template(template: Any) -> Any:
    if not isinstance(template, list):
        return None
    merged: dict[str, Any] = {}
    for item in template:
        if isinstance(item, Mapping):
            for key, value in item.items():
                merged.setdefault(key, value)
    return merged or None

def wire(value: Any, template: Any = None, renames: Mapping[str, str] | None = None) -> Any:
    """An API response value in the wire format, spelling keys as the declared inputs do."""
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key == "ResponseMetadata":
                continue
            if key == "Tags" and isinstance(item, list):
                out["tags"] = tags_of(item)
                continue
            name = (renames or {}).get(key) or _template_key(template, key) or camel(key)
            sub = template.get(name) if isinstance(template, Mapping) else None
            out[name] = wire(item, sub, renames)
        return out
    if isinstance(value, list):
        element = _element_template(template)
        return [wire(item, element, renames) for item in value]
    return value

def json_text(document: Any) -> Any:
    if isinstance(document, (dict, list)):
        return json.dumps(document, sort_keys=True)
    return document

def as_int(value: Any) -> Any:
    try:
        return int(value)
    except (TypeError, ValueError):
        return value

def bool_attr(value: Any) -> Any:
    return value == "true" if isinstance(value, str) else value

_ACTION_RENAMES = {
    "RedirectConfig": "redirect",
    "FixedResponseConfig": "fixedResponse",
    "ForwardConfig": "forward",
    "JwtValidationConfig": "jwtValidation",  # client_auth.id_tokens: the token check before the forward
    "AuthenticateCognitoConfig": "authenticateCognito",  # client_auth.people: sign-in before the forward
}

def wire_actions(actions: Any, template: Any) -> list[Any]:
    """Listener or rule actions in the wire format, forwards as `{targetGroups: [{arn, weight}], ...}`."""
    out = []
    for action in actions or []:
        converted = wire(action, _element_template(template), renames=_ACTION_RENAMES)
        if action.get("Type") == "forward":
            converted["forward"] = live_forward(action)
        out.append(converted)
    return out

def created_seconds(value: Any) -> float | None:
    """An API timestamp (a datetime from boto3, or ISO text) as epoch seconds."""
    if isinstance(value, datetime):
        return value.timestamp()
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value).timestamp()
        except ValueError:
            return None
    return None
