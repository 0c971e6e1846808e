#!/usr/bin/python
"""Ansible module: versioned sets of Debian packages, checked, pinned, installed and held in one step.

Every component role (driver, fabric manager, runtime, collective library) installs its packages
through this module. One module run on the node does what would otherwise be a chain of tasks
(look up what apt offers, release holds a set no longer has, write the pin file, install, hold),
so a fleet run costs the controller one task per component and host instead of eight, and there
is no moment where the pin file says one thing and the installed packages another.
"""

from __future__ import annotations

import os
import tempfile
from fnmatch import fnmatchcase

from ansible.module_utils.basic import AnsibleModule

# ansible.cfg's module_utils (accelplane/ansible_module_utils); Ansible resolves it when it builds the payload.
from ansible.module_utils.debian_packages import dpkg_records, pin_patterns  # pyright: ignore[reportMissingImports]

DOCUMENTATION = r"""
module: pinned_packages
short_description: Check, pin, install and hold versioned sets of Debian packages
description:
  - Every package of a set is installed at a version matching the set's pattern (fnmatch, as apt's
    C(Pin: version) reads it), pinned at priority 1000 in one preferences file per caller and held.
  - Fails before writing anything when a package is not offered at its version.
  - Packages a set no longer lists (a new driver branch renames them) are released from their hold
    so apt can replace them.
  - Check mode reports what would change and writes nothing.
options:
  name:
    description: The caller's name; the pin file is C(<preferences_dir>/accelplane-<name>.pref).
    type: str
    required: true
  sets:
    description: Package sets, each with one version pattern. Pin every package of a versioned set,
      or apt resolves an C(=version) dependency to the newest version and the install fails.
    type: list
    elements: dict
    required: true
    suboptions:
      set: {description: Name of the set., type: str, required: true}
      packages: {description: Every package of the set., type: list, elements: str, required: true}
      version: {description: Debian version pattern (fnmatch)., type: str, required: true}
      owner:
        description:
          - The caller whose pin file pins the set (C(<preferences_dir>/accelplane-<owner>.pref)); default C(name).
          - Lets one read-only run (C(available), C(verified)) judge the sets of several callers, as node_software
            does for every component of a host: one module run on the node instead of one per component.
        type: str
  state:
    description:
      - C(present) installs, pins and holds.
      - C(available) only checks every package is offered at its version (read-only).
      - C(verified) only compares installed versions, holds and pins with the sets (read-only) and
        returns the differences in C(mismatches).
    type: str
    choices: [present, available, verified]
    default: present
  apt_options:
    description: Extra apt-cache options, e.g. the preflight's scratch package lists.
    type: list
    elements: str
    default: []
  hold:
    description: Hold the packages so an unattended C(apt upgrade) cannot move them.
    type: bool
    default: true
  preferences_dir:
    description: Directory of apt preferences files.
    type: path
    default: /etc/apt/preferences.d
  reboot_marker:
    description:
      - A file created (mode 0644) when a package was installed, moved or released, for a driver whose
        new kernel module loads at the next boot; the node_reboot role reboots when it exists.
      - Not written in check mode (C(packages_changed) says a reboot would be asked for).
    type: path
"""

RETURN = r"""
packages_changed:
  description: A package was installed, moved or released (a driver change needs a reboot).
  type: bool
  returned: state=present
installed:
  description: The C(package=version) specs installed (or that would be, in check mode).
  type: list
  returned: state=present
released:
  description: Packages released from their hold because no set lists them any more.
  type: list
  returned: state=present
mismatches:
  description: One message per difference between the node and the sets.
  type: list
  returned: state=verified
"""

_HEADER = "# Managed by accelplane (module pinned_packages for {name})."


def offered_versions(madison_lines):
    """`apt-cache madison` lines -> {package: [versions, highest first as apt lists them]}."""
    offered = {}
    for line in madison_lines:
        parts = [part.strip() for part in line.split("|")]
        if len(parts) >= 3 and parts[0] and parts[1]:
            versions = offered.setdefault(parts[0], [])
            if parts[1] not in versions:
                versions.append(parts[1])
    return offered


def missing_messages(offered, sets):
    """One message per set whose packages are not offered at the set's version."""
    messages = []
    for pinned_set in sets:
        pattern = pinned_set["version"]
        missing = [p for p in pinned_set["packages"] if not any(fnmatchcase(v, pattern) for v in offered.get(p, []))]
        if missing:
            there = "; ".join(f"{p}: {', '.join(offered[p]) if p in offered else 'none'}" for p in missing)
            messages.append(
                f"{pinned_set['set']}: {', '.join(missing)} not offered at version {pattern} "
                f"by the configured repositories (offered: {there})"
            )
    return messages


def pin_file_text(name, sets):
    blocks = [
        f"# {pinned_set['set']}\nPackage: {' '.join(pinned_set['packages'])}\nPin: version {pinned_set['version']}\n"
        "Pin-Priority: 1000\n"
        for pinned_set in sets
    ]
    return _HEADER.format(name=name) + "\n" + "\n".join(blocks)


def pinned_in(text):
    """Pin file text -> {package: version pattern}."""
    return {package: pattern for package, pattern in pin_patterns(text).items() if pattern}


def installed_state(dpkg_lines):
    """`dpkg-query -W -f '${Package}\\t${Version}\\t${db:Status-Abbrev}\\n'` -> {package: (version, status)}.

    The status abbreviation's first letter is the selection (h: hold), the second the state (i: installed).
    """
    records = dpkg_records(dpkg_lines, ("Package", "Version", "Status"))
    return {record["Package"]: (record["Version"], record["Status"]) for record in records}


def drift_messages(state, pins, sets, hold=True):
    """Messages for every package not installed at its set's version, not held, or not pinned."""
    messages = []
    for pinned_set in sets:
        pattern = pinned_set["version"]
        for name in pinned_set["packages"]:
            where = f"{pinned_set['set']}: {name}"
            version, status = state.get(name, ("", ""))
            if status[1:2] != "i":
                messages.append(f"{where} is not installed (expected {pattern})")
                continue
            if not fnmatchcase(version, pattern):
                messages.append(f"{where} is {version}, expected {pattern}")
            if hold and not status.startswith("h"):
                messages.append(f"{where} is not held")
            if pins.get(name) != pattern:
                messages.append(f"{where} is not pinned to {pattern} (pin: {pins.get(name, 'none')})")
    return messages


def install_specs(state, offered, sets):
    """`package=version` for every package not installed at its pattern: the highest offered match."""
    specs = []
    for pinned_set in sets:
        pattern = pinned_set["version"]
        for name in pinned_set["packages"]:
            version, status = state.get(name, ("", ""))
            if status[1:2] == "i" and fnmatchcase(version, pattern):
                continue
            specs.append(f"{name}={next(v for v in offered[name] if fnmatchcase(v, pattern))}")
    return specs


class _Node:
    """The apt and dpkg commands this module runs on the node."""

    def __init__(self, module):
        self.module = module

    def run(self, argv, what):
        rc, out, err = self.module.run_command(
            argv, environ_update={"DEBIAN_FRONTEND": "noninteractive", "LC_ALL": "C"}
        )
        if rc != 0:
            self.module.fail_json(msg=f"{what} failed ({' '.join(argv[:2])}, rc {rc}): {err.strip() or out.strip()}")
        return out

    def offered(self, packages, apt_options):
        return offered_versions(self.run(["apt-cache", *apt_options, "madison", *packages], "apt-cache").splitlines())

    def state(self, packages):
        # dpkg-query exits 1 when a package is unknown; its output still lists the others.
        _, out, _ = self.module.run_command(
            ["dpkg-query", "-W", "-f=${Package}\t${Version}\t${db:Status-Abbrev}\n", *packages],
            environ_update={"LC_ALL": "C"},
        )
        return installed_state(out.splitlines())


def _read(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def _write(module, path, text):
    directory = os.path.dirname(path)
    os.makedirs(directory, mode=0o755, exist_ok=True)
    descriptor, scratch = tempfile.mkstemp(dir=directory, prefix=".accelplane-")
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(scratch, 0o644)
    module.atomic_move(scratch, path)


def _by_owner(name, sets):
    """[(owner, its sets)] in the order the owners first appear; a set without an owner is `name`'s."""
    grouped = {}
    for pinned_set in sets:
        grouped.setdefault(pinned_set.get("owner") or name, []).append(pinned_set)
    return list(grouped.items())


def main():
    module = AnsibleModule(
        argument_spec={
            "name": {"type": "str", "required": True},
            "sets": {
                "type": "list",
                "elements": "dict",
                "required": True,
                "options": {
                    "set": {"type": "str", "required": True},
                    "packages": {"type": "list", "elements": "str", "required": True},
                    "version": {"type": "str", "required": True},
                    "owner": {"type": "str"},
                },
            },
            "state": {"type": "str", "choices": ["present", "available", "verified"], "default": "present"},
            "apt_options": {"type": "list", "elements": "str", "default": []},
            "hold": {"type": "bool", "default": True},
            "preferences_dir": {"type": "path", "default": "/etc/apt/preferences.d"},
            "reboot_marker": {"type": "path"},
        },
        supports_check_mode=True,
    )
    params = module.params
    sets = params["sets"]
    packages = [package for pinned_set in sets for package in pinned_set["packages"]]
    pin_file = os.path.join(params["preferences_dir"], f"accelplane-{params['name']}.pref")
    node = _Node(module)

    if params["state"] == "present" and any(s.get("owner") not in (None, params["name"]) for s in sets):
        # An install writes `name`'s pin file: another caller's sets would be pinned in the wrong file.
        module.fail_json(msg="owner is for the read-only states (available, verified); present pins `name`'s sets")
    if params["state"] == "verified":
        state = node.state(packages)
        mismatches = []
        # Each set against its own caller's pin file, in the order the sets were given.
        for owner, owned in _by_owner(params["name"], sets):
            pins = pinned_in(_read(os.path.join(params["preferences_dir"], f"accelplane-{owner}.pref")) or "")
            mismatches += drift_messages(state, pins, owned, params["hold"])
        module.exit_json(changed=False, mismatches=mismatches)

    offered = node.offered(packages, params["apt_options"])
    missing = missing_messages(offered, sets)
    if missing:
        module.fail_json(msg="; ".join(missing) + "; nothing was changed", missing=missing)
    if params["state"] == "available":
        module.exit_json(changed=False, offered=offered)

    old_text = _read(pin_file)
    new_text = pin_file_text(params["name"], sets)
    # Packages the old pin file listed that no set lists now (nvidia-fabricmanager-570 after a move
    # to 580): released from their hold first, or apt refuses to replace them.
    leaving = [name for name in pinned_in(old_text or "") if name not in packages]
    state = node.state(packages + leaving)
    held = {name for name, (_, status) in state.items() if status.startswith("h")}
    released = [name for name in leaving if name in held]
    specs = install_specs(state, offered, sets)
    # apt drops the hold of a held package it moves to another version: hold those again too.
    moving = {spec.split("=", 1)[0] for spec in specs}
    to_hold = [name for name in packages if name not in held or name in moving] if params["hold"] else []
    changed = bool(released or specs or to_hold or old_text != new_text)
    result = {
        "changed": changed,
        "packages_changed": bool(released or specs),
        "installed": specs,
        "released": released,
        "held": to_hold,
        "pin_file": pin_file,
    }
    if module._diff and old_text != new_text:
        result["diff"] = {"before": old_text or "", "after": new_text, "before_header": pin_file}
    if module.check_mode:
        module.exit_json(**result)

    if released:
        node.run(["apt-mark", "unhold", *released], "apt-mark unhold")
    if old_text != new_text:
        _write(module, pin_file, new_text)
    if specs:
        node.run(
            [
                "apt-get", "install", "-y", "-q", "--no-install-recommends", "--allow-downgrades",
                "--allow-change-held-packages", "-o", "Dpkg::Options::=--force-confdef",
                "-o", "Dpkg::Options::=--force-confold", *specs,
            ],
            "apt-get install",
        )  # fmt: skip
    if to_hold:
        node.run(["apt-mark", "hold", *to_hold], "apt-mark hold")
    if result["packages_changed"] and params["reboot_marker"]:
        _write(module, params["reboot_marker"], "")
    module.exit_json(**result)


if __name__ == "__main__":
    main()
