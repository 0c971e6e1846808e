"""Bare-metal host groups as rule resources.

Ansible, not Pulumi, configures bare-metal hosts, so their groups appear in no preview, plan or
state export. `check` (whenever a stack is named) and `diff` add one resource per declared group,
built from the declaration's plain data, so the version-matrix rules judge a group's software
profile exactly as they judge a node pool's, with the same waivers and the same exit code — the
verdict `accelplane nodes` enforces before it touches a host.

Plain data in, not the validated model: `diff` reads the base revision's declaration without
validating it (its model may be older than today's), and both sides must be built alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelplane.rules import types as t
from accelplane.rules.view import Resource


def group_urn(stack: str, project: str, name: str) -> str:
    return f"urn:pulumi:{stack}::{project}::{t.BARE_METAL_GROUP}::{name}"


def host_group_resources(platform: Mapping[str, Any], *, stack: str, project: str) -> list[Resource]:
    """One resource per `bare_metal.groups[]` entry: accelerator, profile name and its versions."""
    bare_metal = platform.get("bare_metal")
    if not isinstance(bare_metal, Mapping):
        return []
    profiles = platform.get("software_profiles")
    profiles = profiles if isinstance(profiles, Mapping) else {}
    strict = bare_metal.get("strict_matrix") is True
    out = []
    for group in bare_metal.get("groups") or []:
        if not isinstance(group, Mapping) or not isinstance(group.get("name"), str):
            continue
        profile_name = group.get("software_profile")
        profile = profiles.get(profile_name) if isinstance(profile_name, str) else None
        versions = {
            str(key): str(value) for key, value in (profile or {}).items()
            if key != "description" and value is not None and value != ""
        } if isinstance(profile, Mapping) else {}
        hosts = [h.get("name") for h in group.get("hosts") or [] if isinstance(h, Mapping)]
        out.append(Resource(
            urn=group_urn(stack, project, group["name"]),
            type=t.BARE_METAL_GROUP,
            name=group["name"],
            props={
                "accelerator": group.get("accelerator"),
                "softwareProfile": profile_name,
                "versions": versions,
                "strictMatrix": strict,
                "hosts": [h for h in hosts if isinstance(h, str)],
            },
        ))
    return out
