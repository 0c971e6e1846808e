"""Filters of the framework_env role: read wheel listings (a find_links directory or a PEP 503
index page) and say which exact requirements no wheel for the node's Python and CPU satisfies.

The preflight runs them before anything is written, so a build that the index does not carry
(a version typo, a CUDA variant that was never published, a wheel for another Python) stops the
run on every node instead of leaving a half-made environment behind.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

# Wheel names are read by `packaging`, as pip and the bundle lock read them; it ships with ansible-core.
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

DOCUMENTATION = """
name: framework_env
short_description: Find the exact requirements no listed wheel satisfies
"""

_HREF = re.compile(r"""href\s*=\s*["']([^"'#]+\.whl)""", re.IGNORECASE)


def framework_env_index_name(requirement):
    """'Nvidia_NCCL_cu12==2.27.3' -> 'nvidia-nccl-cu12' (the project's page on a simple index)."""
    return canonicalize_name(requirement.split("==", 1)[0].strip())


def framework_env_wheel_names(page):
    """Wheel file names linked from a PEP 503 page or a pip find-links page, URL-decoded
    (PyTorch's index writes `torch-2.8.0%2Bcu128-...`)."""
    return [unquote(href.rsplit("/", 1)[-1]) for href in _HREF.findall(page or "")]


def _parse(filename):
    """(project, version, tags) of a wheel file name (PEP 427, read by `packaging`); None when it is none."""
    try:
        project, version, _build, tags = parse_wheel_filename(filename)
    except (InvalidWheelFilename, InvalidVersion):
        return None
    return project, version, tags


def _fits(tags, python, machine):
    """A wheel tag runs on CPython `python` ("3.11") on `machine` ("x86_64")."""
    major, minor = (int(part) for part in python.split(".")[:2])
    for tag in tags:
        if tag.platform != "any" and not tag.platform.endswith(f"_{machine}"):
            continue
        if tag.interpreter in (f"cp{major}{minor}", f"py{major}", f"py{major}{minor}"):
            return True
        # A stable-ABI wheel built for an older CPython 3 runs on this one.
        built_for = tag.interpreter[len(f"cp{major}"):]
        if tag.abi == "abi3" and tag.interpreter.startswith(f"cp{major}") and int(built_for or 0) <= minor:
            return True
    return False


def framework_env_missing_wheels(names, requirements, python, machine):
    """One message per `name==version` requirement with no wheel among `names` for CPython
    `python` ("3.11") on `machine` ("x86_64"); the message lists the versions that are there."""
    wheels = [parsed for parsed in map(_parse, names) if parsed]
    messages = []
    for requirement in requirements:
        name, _, version = requirement.partition("==")
        project = canonicalize_name(name.strip())
        version = version.strip()
        same_project = [wheel for wheel in wheels if wheel[0] == project]
        if any(_same_version(wheel[1], version) and _fits(wheel[2], python, machine) for wheel in same_project):
            continue
        offered = sorted({str(wheel[1]) for wheel in same_project})
        messages.append(
            f"framework: no wheel of {project} {version} for Python {python} on {machine} "
            f"(offered: {', '.join(offered) if offered else 'none'})"
        )
    return messages


def _same_version(offered, wanted):
    try:
        return offered == Version(wanted)
    except InvalidVersion:
        return False


class FilterModule:
    def filters(self):
        return {
            "framework_env_index_name": framework_env_index_name,
            "framework_env_wheel_names": framework_env_wheel_names,
            "framework_env_missing_wheels": framework_env_missing_wheels,
        }
