"""Filters of the ascend_npu role: which Huawei `.run` installer each component needs on a host,
from the profile's versions, the accelerator's chip and the host's architecture; and the versions
the installers recorded.

File names are Huawei's (confirmed from the community edition's download list, github.com/
zheliuyu/docs-dev `_static/package_info.js`, CANN 7.0.0 to 8.2.RC1, and the CANN installation guide,
hiascend.com/document/detail/en/canncommercial/800/softwareinst/instg/instg_0053.html):

  Ascend-hdk-910b-npu-driver_25.0.rc1.1_linux-aarch64.run   the driver names x86_64 "x86-64" and
  Ascend-hdk-910b-npu-driver_25.0.rc1.1_linux-x86-64.run    writes its version in lower case
  Ascend-hdk-910b-npu-firmware_7.7.0.1.231.run              one file for every architecture
  Ascend-cann-toolkit_8.2.RC1_linux-x86_64.run
  Ascend-cann-kernels-910b_8.2.RC1_linux-aarch64.run        (before CANN 8.0.RC3: ..._linux.run)

Not confirmed: the names of the first-generation 910's packages in current releases (older
releases used Ascend-ascend910-*), and the A3 (910C) kernels, which CANN 8.3's guide also names
Atlas-<type>-cann-kernels_<version>_linux-<arch>.run. The role's file name templates
(ascend_npu_*_file) are the place to change them.
"""

from __future__ import annotations

import re

DOCUMENTATION = """
name: ascend_installers
short_description: Choose the Ascend installers of a host, read the versions they recorded
"""

# Huawei's install order (first installation: driver, then firmware; CANN after both, kernels after
# the toolkit): hiascend.com/document/detail/en/CANNCommunityEdition/900/softwareinst/instg/instg_0005.html
# and .../canncommercial/800/softwareinst/instg/instg_0053.html.
COMPONENTS = ("driver", "firmware", "toolkit", "kernels")
# The architectures the installers are built for (ansible_facts['architecture']).
ARCHITECTURES = ("x86_64", "aarch64")


def _fill(template, values):
    text = str(template)
    for key, value in values.items():
        text = text.replace("{" + key + "}", str(value))
    return text


def ascend_installers(settings, architecture):
    """One dict per component, in install order: name, version, file, url, sha256 (None when not
    declared), args, version_file, version_key.

    `settings` holds the role's variables without their prefix: versions (component -> version),
    chip, files, urls (component -> URL template), base_url (a mirror: every file under it by its
    own name, replacing the URL templates), sha256 (file name -> digest), args, version_files,
    version_keys. Placeholders: {chip}, {version}, {version_upper}, {version_lower}, {arch}
    (x86_64, aarch64), {arch_dash} (x86-64, aarch64), {hdk} (the driver's version in capitals) and,
    in URLs, {file}."""
    if architecture not in ARCHITECTURES:
        raise ValueError(f"Ascend installers exist for {', '.join(ARCHITECTURES)}, not {architecture!r}")
    installers = []
    base = str(settings.get("base_url") or "").rstrip("/")
    for name in COMPONENTS:
        version = str(settings["versions"][name])
        values = {
            "chip": settings["chip"],
            "version": version,
            "version_upper": version.upper(),
            "version_lower": version.lower(),
            "arch": architecture,
            "arch_dash": architecture.replace("_", "-"),
            # Huawei's download directories are named by the HDK (driver) release, the firmware's too.
            "hdk": str(settings["versions"]["driver"]).upper(),
        }
        file = _fill(settings["files"][name], values)
        url = f"{base}/{file}" if base else _fill(settings["urls"][name], {**values, "file": file})
        installers.append(
            {
                "name": name,
                "version": version,
                "file": file,
                "url": url,
                "sha256": (settings.get("sha256") or {}).get(file),
                "args": list(settings["args"][name]),
                "version_file": _fill(settings["version_files"][name], values),
                "version_key": settings["version_keys"][name],
            }
        )
    return installers


def ascend_recorded_version(text, key):
    """The value of `key=` in an installer's version file (version.info, ascend_toolkit_install.info),
    or "" when the file or the key is missing."""
    for line in str(text or "").splitlines():
        match = re.match(rf"\s*{re.escape(key)}\s*=\s*(.*?)\s*$", line)
        if match:
            return match.group(1)
    return ""


def ascend_installed(text, installers, marker):
    """component -> the version its version file records ("" when none), from the version files'
    texts in the installers' order, each followed by a `marker` line."""
    parts = str(text or "").split(f"\n{marker}")
    return {
        installer["name"]: ascend_recorded_version(parts[index] if index < len(parts) else "", installer["version_key"])
        for index, installer in enumerate(installers)
    }


def ascend_due(installers, installed):
    """The installers whose component is not at its version, in the order Huawei documents: driver
    before firmware on a first installation, firmware before driver over an installed driver
    (an overwrite installation); then the toolkit, then the kernels."""
    due = [i for i in installers if installed.get(i["name"], "").lower() != i["version"].lower()]
    if installed.get("driver"):
        rank = {"firmware": 0, "driver": 1, "toolkit": 2, "kernels": 3}
        due.sort(key=lambda installer: rank[installer["name"]])
    return due


def ascend_mismatches(installers, installed):
    """What differs between the recorded versions and the profile, one line per component."""
    problems = []
    for installer in installers:
        found = installed.get(installer["name"], "")
        if found.lower() != installer["version"].lower():
            problems.append(
                f"ascend_npu: {installer['name']} "
                + (f"{found} is installed" if found else "is not installed")
                + f", expected {installer['version']} ({installer['version_file']})"
            )
    return problems


class FilterModule:
    def filters(self):
        return {
            "ascend_installers": ascend_installers,
            "ascend_installed": ascend_installed,
            "ascend_due": ascend_due,
            "ascend_mismatches": ascend_mismatches,
        }
