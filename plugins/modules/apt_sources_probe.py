#!/usr/bin/python
"""Ansible module: the node's read-only preflight in one step. Checks the tools the roles call, then
reads the node's apt sources plus the stack's into scratch package lists, leaving the node's own
apt state alone.

One module run replaces a chain of tasks (look for the tools, stop unless found, create a scratch
directory, tell the callers where it is, run apt-get update there, stop unless it read every
source): Ansible runs each task for each host in a worker of its own, so a fleet run's controller
CPU grows with the number of task runs per host (bench/bench_nodes.py).
"""

from __future__ import annotations

import os
import shutil
import tempfile

from ansible.module_utils.basic import AnsibleModule

DOCUMENTATION = r"""
module: apt_sources_probe
short_description: Check the node's tools and read the stack's apt sources into scratch package lists
description:
  - Fails, before anything else, naming each missing tool and the package that provides it.
  - Copies the node's C(/etc/apt/sources.list.d), adds the stack's sources file, and runs
    C(apt-get update) with every list in a scratch directory (suffix C(.accelplane-probe)); no
    package cache is written and nothing under C(/etc) or C(/var) changes.
  - Writes an apt configuration file there that makes any apt run read the scratch lists
    (C(APT_CONFIG)); check mode reports from them what would be installed.
  - On failure the scratch directory is removed and the message carries apt's own errors.
  - Read-only for the node: runs the same in check mode.
options:
  sources:
    description: Content of the stack's deb822 sources file.
    type: str
    required: true
  file_name:
    description: The name the sources file has under C(sources.list.d).
    type: str
    default: accelplane.sources
  required_tools:
    description: Files or commands the roles call; C(text) names one in messages, C(package) provides it.
    type: list
    elements: dict
    default: []
    suboptions:
      path: {description: A path that must exist or a command on PATH., type: str, required: true}
      text: {description: How messages name it., type: str, required: true}
      package: {description: The Debian package that provides it., type: str, required: true}
"""

RETURN = r"""
dir:
  description: The scratch directory; remove it when done (probe_cleanup).
  type: str
apt_options:
  description: apt-get/apt-cache options that read the scratch lists.
  type: list
apt_config:
  description: An apt configuration file with the same settings, for C(APT_CONFIG).
  type: str
"""


def _missing_tools(required: list[dict[str, str]]) -> list[dict[str, str]]:
    return [tool for tool in required if not os.path.exists(tool["path"]) and shutil.which(tool["path"]) is None]


def _apt_errors(text: str) -> list[str]:
    """apt's own words (Failed to fetch file:/srv/... File not found), not "non-zero return code"."""
    errors = []
    for line in text.splitlines():
        for prefix in ("E:", "Err:"):
            if line.startswith(prefix):
                errors.append(line[len(prefix) :].strip())
    return errors


def _scratch(sources: str, file_name: str) -> tuple[str, list[str], str]:
    scratch = tempfile.mkdtemp(suffix=".accelplane-probe")
    os.makedirs(os.path.join(scratch, "sources"))
    os.makedirs(os.path.join(scratch, "lists", "partial"))
    if os.path.isdir("/etc/apt/sources.list.d"):
        shutil.copytree("/etc/apt/sources.list.d", os.path.join(scratch, "sources"), dirs_exist_ok=True, symlinks=True)
    with open(os.path.join(scratch, "sources", file_name), "w") as handle:
        handle.write(sources.rstrip("\n") + "\n")
    settings = {
        "Dir::Etc::SourceParts": os.path.join(scratch, "sources"),
        "Dir::State::Lists": os.path.join(scratch, "lists"),
        "Dir::Cache::pkgcache": "",
        "Dir::Cache::srcpkgcache": "",
    }
    options = [part for key, value in settings.items() for part in ("-o", f"{key}={value}")]
    config = os.path.join(scratch, "apt.conf")
    with open(config, "w") as handle:
        handle.writelines(f'{key} "{value}";\n' for key, value in settings.items())
    return scratch, options, config


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "sources": {"type": "str", "required": True},
            "file_name": {"type": "str", "default": "accelplane.sources"},
            "required_tools": {
                "type": "list",
                "elements": "dict",
                "default": [],
                "options": {
                    "path": {"type": "str", "required": True},
                    "text": {"type": "str", "required": True},
                    "package": {"type": "str", "required": True},
                },
            },
        },
        supports_check_mode=True,
    )
    missing = _missing_tools(module.params["required_tools"])
    if missing:
        packages = " ".join(dict.fromkeys(tool["package"] for tool in missing))
        module.fail_json(
            msg=f"the node lacks {', '.join(tool['text'] for tool in missing)}: install them with the OS image "
            f"(apt-get install {packages}); nothing was changed",
            missing=[tool["path"] for tool in missing],
        )
    scratch, options, config = _scratch(module.params["sources"], module.params["file_name"])
    rc, out, err = module.run_command(["apt-get", "-qq", *options, "update"], environ_update={"LC_ALL": "C"})
    if rc != 0:
        shutil.rmtree(scratch, ignore_errors=True)
        errors = _apt_errors(err) or [err.strip() or out.strip() or f"rc {rc}"]
        module.fail_json(
            msg="repositories: apt-get update could not read the stack's repositories: "
            f"{'; '.join(errors)}; nothing was changed",
            rc=rc,
        )
    module.exit_json(changed=False, dir=scratch, apt_options=options, apt_config=config)


if __name__ == "__main__":
    main()
