"""Bare-metal accelerator nodes: the Ansible inventory of a stack, and running the playbooks.

- `inventory.build_inventory(stack)` turns a stack's `bare_metal` section into Ansible groups and
  variables (hosts, connection, the profile's pinned versions, the matrix verdict). The inventory
  plugin `plugins/inventory/accelplane_stack.py` serves it to plain `ansible-playbook -i`.
- `runner.run_playbook(...)` runs `playbooks/<name>.yml` through ansible-runner and reports
  progress per host (`progress.ProgressView`) and a summary.
"""
