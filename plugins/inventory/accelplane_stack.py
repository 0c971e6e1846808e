"""Ansible inventory plugin: the bare-metal hosts of an accelplane stack declaration.

`ansible-playbook -i stacks/Pulumi.<stack>.yaml playbooks/site.yml` reads the stack file itself,
so hosts and pinned versions are never typed a second time. The stack is loaded and validated by
accelplane (file, line and field in every error) and the version matrix's verdict on each host
group's profile is attached for the first play to assert.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from ansible.errors import AnsibleParserError
from ansible.plugins.inventory import BaseInventoryPlugin

DOCUMENTATION = r"""
name: accelplane_stack
short_description: Bare-metal accelerator hosts of an accelplane stack (stacks/Pulumi.<stack>.yaml)
description:
  - Reads the C(bare_metal) section of an accelplane stack declaration given as the inventory source.
  - One group per host group under C(accelerator_nodes), with the software profile's pinned versions
    (C(accelplane_profile)), the version matrix's verdict (C(accelplane_matrix)) and connection settings.
author: accelplane
options: {}
"""

_STACK_FILE = re.compile(r"^Pulumi\.[A-Za-z0-9_.-]+\.ya?ml$")
_PROJECT_ROOT = Path(__file__).resolve().parents[2]


def _accelplane():
    """Import accelplane: installed in the controller's environment, or from this checkout."""
    try:
        from accelplane.config.loader import load_stack_file
        from accelplane.nodes.inventory import build_inventory
    except ImportError:
        sys.path.insert(0, str(_PROJECT_ROOT))
        from accelplane.config.loader import load_stack_file
        from accelplane.nodes.inventory import build_inventory
    from accelplane.errors import InputError

    return load_stack_file, build_inventory, InputError


class InventoryModule(BaseInventoryPlugin):
    NAME = "accelplane_stack"

    def verify_file(self, path):
        return super().verify_file(path) and bool(_STACK_FILE.match(Path(path).name))

    def parse(self, inventory, loader, path, cache=True):
        super().parse(inventory, loader, path, cache)
        load_stack_file, build_inventory, input_error = _accelplane()
        try:
            data = build_inventory(load_stack_file(Path(path)))
        except input_error as error:
            raise AnsibleParserError(str(error)) from None
        for name, group in data.groups.items():
            inventory.add_group(name)
            for key, value in group.get("vars", {}).items():
                inventory.set_variable(name, key, value)
        for name, group in data.groups.items():
            for child in group.get("children", []):
                inventory.add_child(name, child)
            for host in group.get("hosts", []):
                inventory.add_host(host, group=name)
        for host, variables in data.hosts.items():
            for key, value in variables.items():
                inventory.set_variable(host, key, value)
