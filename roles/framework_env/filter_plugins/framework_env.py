"""Filters of the framework_env role: read wheel listings (a find_links directory or a PEP 503
index page) and say which exact requirements no wheel for the node's Python and CPU satisfies.

The preflight runs them before anything is written, so a build that the index does not carry
(a version typo, a CUDA variant that was never published, a wheel for another Python) stops the
run on every node instead of leaving a half-made environment behind.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

DOCUMENTATION = """
name: framework_env
short_description: Find the exact requirements no listed wheel satisfies
"""

_HREF = re.compile(r"""href\s*=\s*["']([^"'#]+\.whl)""", re.IGNORECASE)


def _normalized(name):
    # PEP 503 name normalisation: runs of -, _ and . are one -, case does not matter.
    return re.sub(r"[-_.]+", "-", name).lower()


def framework_env_index_name(requirement):
    """'Nvidia_NCCL_cu12==2.27.3' -> 'nvidia-nccl-cu12' (the project's page on a simple index)."""
    return _normalized(requirement.split("==", 1)[0].strip())


def framework_env_wheel_names(page):
    """Wheel file names linked from a PEP 503 page or a pip find-links page, URL-decoded
    (PyTorch's index writes `torch-2.8.0%2Bcu128-...`)."""
    return [unquote(href.rsplit("/", 1)[-1]) for href in _HREF.findall(page or "")]


def _parse(filename):
    # {distribution}-{version}(-{build})?-{python}-{abi}-{platform}.whl (PEP 427)
    parts = filename.removesuffix(".whl").split("-")
    if len(parts) not in (5, 6):
        return None
    return _normalized(parts[0]), unquote(parts[1]), parts[-3], parts[-2], parts[-1]


def _fits(wheel, python, machine):
    python_tags, abi_tags, platform_tags = (tags.split(".") for tags in wheel[2:])
    major, minor = python.split(".")[:2]
    cpython = f"cp{major}{minor}"
    ok_python = any(
        tag in (cpython, f"py{major}", f"py{major}{minor}")
        # A stable-ABI wheel built for an older CPython 3 runs on this one.
        or ("abi3" in abi_tags and tag.startswith(f"cp{major}") and int(tag[3:] or 0) <= int(minor))
        for tag in python_tags
    )
    ok_platform = any(tag == "any" or tag.endswith(f"_{machine}") for tag in platform_tags)
    return ok_python and ok_platform


def framework_env_missing_wheels(names, requirements, python, machine):
    """One message per `name==version` requirement with no wheel among `names` for CPython
    `python` ("3.11") on `machine` ("x86_64"); the message lists the versions that are there."""
    wheels = [parsed for parsed in map(_parse, names) if parsed]
    messages = []
    for requirement in requirements:
        name, _, version = requirement.partition("==")
        project = _normalized(name.strip())
        version = version.strip()
        same_project = [wheel for wheel in wheels if wheel[0] == project]
        if any(wheel[1] == version and _fits(wheel, python, machine) for wheel in same_project):
            continue
        offered = sorted({wheel[1] for wheel in same_project})
        messages.append(
            f"framework: no wheel of {project} {version} for Python {python} on {machine} "
            f"(offered: {', '.join(offered) if offered else 'none'})"
        )
    return messages


class FilterModule:
    def filters(self):
        return {
            "framework_env_index_name": framework_env_index_name,
            "framework_env_wheel_names": framework_env_wheel_names,
            "framework_env_missing_wheels": framework_env_missing_wheels,
        }
