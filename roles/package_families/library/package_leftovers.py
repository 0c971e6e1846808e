#!/usr/bin/python
"""Ansible module: installed packages of a managed family that no pinned set declares.

A package leaves a pinned set when the profile moves (nvidia-fabricmanager-570 after the move to
580, the 580 packages after a rollback to 570, the other kernel module flavour): pinned_packages
releases its hold so apt can replace it, but when nothing replaces it, it stays installed,
unpinned and unheld, and the next `apt-get dist-upgrade` moves it under the pinned stack. This
module finds those packages (state=reported) and removes them (state=absent).
"""

from __future__ import annotations

import glob
import os
from fnmatch import fnmatchcase

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.debian_packages import dpkg_records, is_installed, parse_relations, pin_patterns, satisfies

DOCUMENTATION = r"""
module: package_leftovers
short_description: Find or remove installed packages of managed families that no pinned set declares
description:
  - Declared packages are those of the pin files (C(<preferences_dir>/accelplane-*.pref)) that
    pinned_packages writes, one per component, rewritten by every apply, and the held ones
    (pinned_packages holds every package of its sets and releases those that leave them).
  - A leftover is an installed package whose name matches a family's pattern, that is neither
    pinned nor held (apt moves it freely) and that no declared package needs at its installed
    version (directly or through other installed packages).
  - Check mode reports what would be removed and changes nothing.
options:
  families:
    description: Component -> fnmatch patterns of package names (roles/package_families/defaults).
    type: dict
    required: true
  state:
    description: C(reported) only lists the leftovers; C(absent) removes them.
    type: str
    choices: [reported, absent]
    default: reported
  preferences_dir:
    description: Directory of the pin files.
    type: path
    default: /etc/apt/preferences.d
"""

RETURN = r"""
leftovers:
  description: One entry per leftover, with its package, version and family.
  type: list
  returned: always
mismatches:
  description: One message per leftover.
  type: list
  returned: always
removed:
  description: The packages removed (or that would be, in check mode).
  type: list
  returned: state=absent
"""

_FIELDS = ("Package", "Version", "db:Status-Abbrev", "Depends", "Pre-Depends", "Provides")


def declared_packages(pin_texts):
    """Every package named on a `Package:` line of the pin files."""
    return {package for text in pin_texts for package in pin_patterns(text)}


def installed_packages(dpkg_lines):
    """dpkg-query lines (the _FIELDS, tab-separated) -> {package: record} of installed packages."""
    return {
        record["Package"]: record
        for record in dpkg_records(dpkg_lines, _FIELDS)
        if is_installed(record["db:Status-Abbrev"])
    }


def _relations(field):
    return parse_relations(field, strict=False)


def needed_by(roots, installed):
    """The installed packages `roots` need, transitively (roots included when installed).

    Versions count: after a rollback to 570, a driver that needs `nvidia-kernel-open-dkms (= 570...)
    | nvidia-kernel-dkms (= 570...)` does not need the 580 nvidia-kernel-dkms the failed upgrade left."""
    providers = {}
    for name, record in installed.items():
        providers.setdefault(name, []).append((name, record["Version"]))
        for group in _relations(record["Provides"]):
            for provided in group:
                providers.setdefault(provided.name, []).append((name, provided.version))
    needed = set()
    todo = [name for name in roots if name in installed]
    while todo:
        name = todo.pop()
        if name in needed:
            continue
        needed.add(name)
        record = installed[name]
        for group in _relations(record["Depends"]) + _relations(record["Pre-Depends"]):
            # Any installed alternative that satisfies the dependency may be the one apt relies on.
            for wanted in group:
                todo.extend(
                    package
                    for package, offered in providers.get(wanted.name, ())
                    if satisfies(offered, wanted.operator, wanted.version)
                )
    return needed


def family_of(name, families):
    for family, patterns in families.items():
        if any(fnmatchcase(name, pattern) for pattern in patterns):
            return family
    return None


def find_leftovers(installed, declared, families):
    """[{package, version, family}] sorted by package: the installed family members nothing declares."""
    needed = needed_by(declared, installed)
    leftovers = []
    for name in sorted(installed):
        family = family_of(name, families)
        if family is None or name in needed:
            continue
        leftovers.append({"package": name, "version": installed[name]["Version"], "family": family})
    return leftovers


def leftover_messages(leftovers):
    return [
        f"{item['family']}: {item['package']} {item['version']} is installed, unpinned and unheld: no pinned set "
        "declares it (apt upgrades would move it; apply removes it)"
        for item in leftovers
    ]


def removed_by(simulation_lines):
    """`apt-get -s remove` output -> the packages it would remove."""
    return [line.split()[1] for line in simulation_lines if line.startswith("Remv ")]


def _run(module, argv, what):
    rc, out, err = module.run_command(argv, environ_update={"DEBIAN_FRONTEND": "noninteractive", "LC_ALL": "C"})
    if rc != 0:
        module.fail_json(msg=f"{what} failed ({' '.join(argv[:2])}, rc {rc}): {err.strip() or out.strip()}")
    return out


def main():
    module = AnsibleModule(
        argument_spec={
            "families": {"type": "dict", "required": True},
            "state": {"type": "str", "choices": ["reported", "absent"], "default": "reported"},
            "preferences_dir": {"type": "path", "default": "/etc/apt/preferences.d"},
        },
        supports_check_mode=True,
    )
    params = module.params
    families = {str(family): [str(p) for p in patterns] for family, patterns in params["families"].items()}
    pin_texts = []
    for path in sorted(glob.glob(os.path.join(params["preferences_dir"], "accelplane-*.pref"))):
        with open(path, encoding="utf-8") as handle:
            pin_texts.append(handle.read())
    out = _run(module, ["dpkg-query", "-W", "-f=" + "\t".join(f"${{{f}}}" for f in _FIELDS) + "\n"], "dpkg-query")
    installed = installed_packages(out.splitlines())
    # Held counts as declared: a deleted pin file or a released hold alone is the component
    # roles' drift to report, not a reason to remove their packages.
    held = {name for name, record in installed.items() if record["db:Status-Abbrev"].startswith("h")}
    declared = declared_packages(pin_texts) | held
    leftovers = find_leftovers(installed, declared, families)
    result = {"changed": False, "leftovers": leftovers, "mismatches": leftover_messages(leftovers)}
    if params["state"] == "reported" or not leftovers:
        module.exit_json(**result, removed=[])
    names = [item["package"] for item in leftovers]
    # apt also removes what depends on a package it removes: refuse when that reaches a declared one.
    simulation = _run(module, ["apt-get", "-s", "remove", "--allow-change-held-packages", *names], "apt-get -s remove")
    removed = removed_by(simulation.splitlines())
    hit = sorted(set(removed) & declared)
    if hit:
        module.fail_json(
            msg=f"removing the leftovers {', '.join(names)} would also remove declared packages {', '.join(hit)}; "
            "nothing was removed",
            **result,
        )
    result.update(changed=True, removed=removed)
    if module.check_mode:
        module.exit_json(**result)
    # A leftover may still be held (pinned_packages releases only what its own pin file listed).
    _run(module, ["apt-mark", "unhold", *names], "apt-mark unhold")
    _run(
        module,
        ["apt-get", "remove", "-y", "-q", "--allow-change-held-packages", *names],
        "apt-get remove",
    )
    module.exit_json(**result)


if __name__ == "__main__":
    main()
