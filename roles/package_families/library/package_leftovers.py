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
import re
from fnmatch import fnmatchcase

from ansible.module_utils.basic import AnsibleModule

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

# "(>= 1.2)": the operator (the obsolete "<" and ">" are "<=" and ">=") and the version.
_CONSTRAINT = re.compile(r"^(<<|<=|>=|>>|=|<|>)\s*(\S+)$")
_FIELDS = ("Package", "Version", "db:Status-Abbrev", "Depends", "Pre-Depends", "Provides")


def declared_packages(pin_texts):
    """Every package named on a `Package:` line of the pin files."""
    declared = set()
    for text in pin_texts:
        for line in text.splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "Package":
                declared.update(value.split())
    return declared


def installed_packages(dpkg_lines):
    """dpkg-query lines (the _FIELDS, tab-separated) -> {package: record} of installed packages.

    The status abbreviation's second letter is the state; "n" (not installed) and "c" (config
    files only) are not installed."""
    packages = {}
    for line in dpkg_lines:
        fields = line.split("\t")
        if len(fields) < len(_FIELDS):
            continue
        record = dict(zip(_FIELDS, fields[: len(_FIELDS)], strict=True))
        if record["db:Status-Abbrev"][1:2] in ("n", "c", ""):
            continue
        packages[record["Package"]] = record
    return packages


def _relations(field):
    """A Depends-style field -> alternative groups of (name, operator, version); arch qualifiers dropped."""
    groups = []
    for group in field.split(","):
        alternatives = []
        for alternative in group.split("|"):
            name, _, rest = alternative.strip().partition("(")
            name = name.strip().split(":")[0].split("[")[0].strip()
            match = _CONSTRAINT.match(rest.split(")")[0].strip()) if rest else None
            operator, version = (match.group(1), match.group(2)) if match else ("", "")
            if name:
                alternatives.append((name, operator, version))
        if alternatives:
            groups.append(alternatives)
    return groups


def _satisfies(version, operator, wanted, compare):
    if not operator:
        return True
    if not version:
        return False  # an unversioned Provides never satisfies a versioned dependency (Debian policy 7.5)
    order = compare(version, wanted)
    return {
        "<<": order < 0,
        "<=": order <= 0,
        "<": order <= 0,
        "=": order == 0,
        ">=": order >= 0,
        ">": order >= 0,
        ">>": order > 0,
    }[operator]


def needed_by(roots, installed, compare):
    """The installed packages `roots` need, transitively (roots included when installed).

    Versions count: after a rollback to 570, a driver that needs `nvidia-kernel-open-dkms (= 570...)
    | nvidia-kernel-dkms (= 570...)` does not need the 580 nvidia-kernel-dkms the failed upgrade left."""
    providers = {}
    for name, record in installed.items():
        providers.setdefault(name, []).append((name, record["Version"]))
        for group in _relations(record["Provides"]):
            for virtual, _, provided in group:
                providers.setdefault(virtual, []).append((name, provided))
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
            for wanted, operator, version in group:
                todo.extend(
                    package
                    for package, offered in providers.get(wanted, ())
                    if _satisfies(offered, operator, version, compare)
                )
    return needed


def family_of(name, families):
    for family, patterns in families.items():
        if any(fnmatchcase(name, pattern) for pattern in patterns):
            return family
    return None


def find_leftovers(installed, declared, families, compare):
    """[{package, version, family}] sorted by package: the installed family members nothing declares."""
    needed = needed_by(declared, installed, compare)
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


def _version_compare():
    """Debian version order: python3-apt's (ansible.builtin.apt needs it too), else dpkg's."""
    try:
        import apt_pkg

        apt_pkg.init_system()
        return apt_pkg.version_compare
    except ImportError:
        import subprocess

        def compare(left, right):
            if left == right:
                return 0
            less = subprocess.run(["dpkg", "--compare-versions", left, "lt", right], check=False).returncode == 0
            return -1 if less else 1

        return compare


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
    leftovers = find_leftovers(installed, declared, families, _version_compare())
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
