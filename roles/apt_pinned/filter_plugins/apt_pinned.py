"""Filters of the apt_pinned role: read `apt-cache madison`, `dpkg-query` and pin files against
package sets. Version patterns are fnmatch patterns, as apt's `Pin: version` and Ansible's
`apt name=pkg=1.0*` understand them.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

DOCUMENTATION = """
name: apt_pinned
short_description: Compare apt-cache, dpkg-query and pin files with pinned package sets
"""


def _madison(lines):
    offered = {}
    for line in lines:
        parts = [part.strip() for part in line.split("|")]
        if len(parts) >= 3 and parts[0] and parts[1]:
            offered.setdefault(parts[0], []).append(parts[1])
    return offered


def apt_pinned_spec(pair):
    """(set, package) from `subelements('packages')` -> 'package=version' for apt."""
    pinned_set, package = pair
    return f"{package}={pinned_set['version']}"


def apt_pinned_missing(madison_lines, sets):
    """One message per set whose packages `apt-cache madison` does not offer at the set's version."""
    offered = _madison(madison_lines)
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


def apt_pinned_drift(lines, sets, hold=True, separator="--- pins"):
    """Messages for every package not installed at its set's version, not held, or not pinned.

    `lines`: `dpkg-query -W -f '${Package}\\t${Version}\\t${db:Status-Abbrev}'` output, the
    separator, then the `Package:` and `Pin:` lines of the caller's pin file, in order.
    """
    lines = list(lines)
    split = lines.index(separator) if separator in lines else len(lines)
    dpkg_lines, pin_lines = lines[:split], lines[split + 1 :]
    state = {}
    for line in dpkg_lines:
        fields = line.split("\t")
        if len(fields) >= 3:
            state[fields[0]] = (fields[1], fields[2])
    pins = {}
    packages = []
    for line in pin_lines:
        key, _, value = line.partition(":")
        if key.strip() == "Package":
            packages = value.split()
        elif key.strip() == "Pin" and value.strip().startswith("version "):
            for package in packages:
                pins[package] = value.strip()[len("version ") :]
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


class FilterModule:
    def filters(self):
        return {
            "apt_pinned_spec": apt_pinned_spec,
            "apt_pinned_missing": apt_pinned_missing,
            "apt_pinned_drift": apt_pinned_drift,
        }
