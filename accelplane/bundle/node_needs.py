"""What a bare-metal host group's roles fetch, read from the roles themselves.

The roles are the one place that maps a software profile to packages, pins, wheels and download
URLs (roles/node_software/tasks/components.yml, the vendor's phase files, each role's defaults).
Rather than copy that mapping, this walks the same task files Ansible runs for `site.yml`, with the
same variables (role defaults, the inventory's group variables, `group_vars/` beside the stack file,
and the facts a node of the profile's OS would report), and templates them with ansible-core's own
templar. It collects the arguments of the tasks that fetch: `pinned_packages` sets, `apt` names, `pip`
requirements and index, `get_url` URLs and checksums. A task whose condition is false for the
group is skipped as Ansible would skip it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from accelplane.config.loader import StackConfig
from accelplane.errors import InputError
from accelplane.nodes.inventory import ansible_group_name, build_inventory

ROLES = Path(__file__).resolve().parents[2] / "roles"
# glibc of each OS's release, for the manylinux tags a wheel may carry on it (PEP 600).
OS_GLIBC = {
    "debian-11": "2.31",
    "debian-12": "2.36",
    "ubuntu-20.04": "2.31",
    "ubuntu-22.04": "2.35",
    "ubuntu-24.04": "2.39",
}


@dataclass(frozen=True)
class PinnedSet:
    role: str
    set: str
    packages: tuple[str, ...]
    pattern: str


@dataclass(frozen=True)
class Download:
    role: str
    url: str
    sha256: str | None


@dataclass
class GroupNeeds:
    """Everything one host group's roles fetch."""

    group: str
    profile: str
    architecture: str
    python: str | None
    glibc: str | None
    pinned: list[PinnedSet] = field(default_factory=list)
    apt: list[tuple[str, str]] = field(default_factory=list)  # (package, role), unversioned: apt's candidate
    pip: list[tuple[str, str]] = field(default_factory=list)  # (exact requirement, role)
    pip_index: str | None = None
    pip_find_links: str | None = None
    downloads: list[Download] = field(default_factory=list)
    unknown: list[tuple[str, str]] = field(default_factory=list)  # (what, why) that could not be worked out


def _trust(value: Any) -> Any:
    # Start-up time: ansible-core loads only when a bare-metal group is locked.
    from ansible.template import trust_as_template

    if isinstance(value, str):
        return trust_as_template(value)
    if isinstance(value, dict):
        return {key: _trust(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_trust(item) for item in value]
    return value


def _load(path: Path) -> Any:
    # Start-up time: ansible-core loads only when a bare-metal group is locked.
    from ansible.parsing.dataloader import DataLoader

    # Role files are the project's own, trusted like Ansible trusts a role's files.
    return _trust(DataLoader().load_from_file(str(path)))


def _facts(stack: StackConfig, profile_name: str, architecture: str) -> dict[str, Any]:
    profile = stack.platform.software_profiles[profile_name]
    facts: dict[str, Any] = {"architecture": {"amd64": "x86_64", "arm64": "aarch64"}.get(architecture, architecture)}
    if profile.os:
        distribution, _, release = profile.os.partition("-")
        facts.update(
            distribution=distribution.capitalize() if distribution != "ubuntu" else "Ubuntu",
            distribution_version=release,
            distribution_major_version=release.split(".")[0],
        )
    if profile.python:
        major, _, minor = profile.python.partition(".")
        facts["python"] = {"version": {"major": int(major), "minor": int(minor or 0)}}
    if profile.kernel:
        facts["kernel"] = profile.kernel
    return facts


def _group_vars_files(stack: StackConfig, ansible_group: str) -> dict[str, Any]:
    """`group_vars/all.yml` and `group_vars/<group>.yml` beside the stack file, as Ansible reads them."""
    merged: dict[str, Any] = {}
    for name in ("all", "accelerator_nodes", ansible_group):
        for suffix in (".yml", ".yaml"):
            path = Path(stack.path).parent / "group_vars" / f"{name}{suffix}"
            if path.is_file():
                data = _load(path)
                if isinstance(data, dict):
                    merged.update(data)
    return merged


class _Walker:
    def __init__(self, needs: GroupNeeds, base: dict[str, Any]):
        # Start-up time: ansible-core loads only when a bare-metal group is locked.
        from ansible.parsing.dataloader import DataLoader

        self.needs = needs
        self.base = base
        self.loader = DataLoader()

    def templar(self, variables: dict[str, Any]) -> Any:
        # Start-up time: ansible-core loads only when a bare-metal group is locked.
        from ansible.template import Templar

        return Templar(loader=self.loader, variables=variables)

    def condition(self, task: dict[str, Any], variables: dict[str, Any]) -> bool:
        when = task.get("when")
        if when is None:
            return True
        templar = self.templar(variables)
        conditions = when if isinstance(when, list) else [when]
        return all(templar.evaluate_conditional(_trust(condition)) for condition in conditions)

    def walk(self, tasks: list[dict[str, Any]], variables: dict[str, Any], role: str, role_dir: Path) -> None:
        for task in tasks or []:
            local = {**variables, **(task.get("vars") or {})}
            try:
                if not self.condition(task, local):
                    continue
            except Exception:
                # A condition on what an earlier task registered (is it installed yet?) cannot be
                # known before a run: a fresh node runs the task, so its artifacts are locked.
                pass
            if "block" in task:
                self.walk(task["block"], local, role, role_dir)
                continue
            if "ansible.builtin.set_fact" in task:
                # A fact later tasks read (ascend_npu's installers still due): host-wide, as in Ansible.
                self.set_fact(task["ansible.builtin.set_fact"], templating=local, into=variables)
                continue
            try:
                self.task(task, local, role, role_dir)
            except InputError:
                raise
            except Exception as error:
                self.needs.unknown.append((f"{role}: {task.get('name', '?')}", str(error).splitlines()[0]))

    def task(self, task: dict[str, Any], variables: dict[str, Any], role: str, role_dir: Path) -> None:
        templar = self.templar(variables)
        for module in ("ansible.builtin.include_tasks", "ansible.builtin.import_tasks", "include_tasks"):
            if module in task:
                argument = task[module]
                name = templar.template(argument["file"] if isinstance(argument, dict) else argument)
                self.walk(_load(role_dir / "tasks" / name), variables, role, role_dir)
                return
        for module in ("ansible.builtin.include_role", "ansible.builtin.import_role"):
            if module in task:
                self.include_role(task[module], variables)
                return
        if "pinned_packages" in task:
            for entry in templar.template(task["pinned_packages"]["sets"]):
                self.needs.pinned.append(PinnedSet(role, entry["set"], tuple(entry["packages"]), entry["version"]))
        for module in ("ansible.builtin.apt", "apt"):
            if module in task and task[module].get("state", "present") == "present" and "name" in task[module]:
                names = templar.template(task[module]["name"])
                for name in [names] if isinstance(names, str) else names:
                    self.needs.apt.append((name, role))
        if "ansible.builtin.get_url" in task:
            arguments = task["ansible.builtin.get_url"]
            # A looped download (ascend_npu's installers) is one artifact per item.
            items = templar.template(task["loop"]) if "loop" in task else [None]
            for item in items:
                item_templar = templar if item is None else self.templar({**variables, "item": item})
                url = item_templar.template(arguments["url"])
                checksum = item_templar.template(arguments["checksum"]) if "checksum" in arguments else None
                sha256 = checksum.removeprefix("sha256:") if checksum and checksum.startswith("sha256:") else None
                self.needs.downloads.append(Download(role, url, sha256 or None))
        if "ansible.builtin.pip" in task:
            names = templar.template(task["ansible.builtin.pip"]["name"])
            self.needs.pip += [(name, role) for name in ([names] if isinstance(names, str) else names)]
            environment = templar.template(task.get("environment") or {})
            self.needs.pip_index = environment.get("PIP_INDEX_URL") or None
            self.needs.pip_find_links = environment.get("PIP_FIND_LINKS") or None

    def set_fact(self, facts: dict[str, Any], *, templating: dict[str, Any], into: dict[str, Any]) -> None:
        """Set in `into` (the walk's variables, read by later tasks) what can be worked out before a
        run. A fact made of what an earlier task registered (a version file read from the node)
        stays unset: a fresh node has none, and the role's templates say what that means (e.g.
        `_ascend_npu_installed | default({})`)."""
        templar = self.templar(templating)
        for name, value in facts.items():
            try:
                into[name] = templar.template(value)
            except Exception:
                continue

    def include_role(self, arguments: dict[str, Any], variables: dict[str, Any]) -> None:
        # Start-up time: ansible-core loads only when a bare-metal group is locked.
        from ansible.plugins.loader import add_all_plugin_dirs

        templar = self.templar(variables)
        name = templar.template(arguments["name"])
        tasks_from = templar.template(arguments.get("tasks_from", "main"))
        role_dir = ROLES / name
        # The role's own filters (ascend_npu's installer choice), as Ansible loads them with the role.
        add_all_plugin_dirs(str(role_dir))
        defaults_file = role_dir / "defaults" / "main.yml"
        defaults = _load(defaults_file) if defaults_file.is_file() else {}
        # Role defaults sit under the inventory and group_vars; the include's own vars win.
        scoped = {**(defaults or {}), **variables}
        tasks_file = role_dir / "tasks" / f"{tasks_from}.yml"
        self.walk(_load(tasks_file), scoped, name, role_dir)


def group_needs(stack: StackConfig, group_index: int, architecture: str) -> GroupNeeds:
    """What `site.yml` fetches for the host group `bare_metal.groups[group_index]`."""

    bare_metal = stack.platform.bare_metal
    assert bare_metal is not None
    group = bare_metal.groups[group_index]
    # The lock reads the declared upstream sources: an air-gapped stack's inventory would hand the
    # roles the mirror, which does not exist until `bundle fetch` builds it from this lock.
    upstream = replace(stack, platform=stack.platform.model_copy(update={"air_gap": None}))
    inventory = build_inventory(upstream)
    ansible_group = ansible_group_name(group.name)
    profile = stack.platform.software_profiles[group.software_profile]
    needs = GroupNeeds(
        group.name,
        group.software_profile,
        architecture,
        profile.python,
        profile.glibc or OS_GLIBC.get(profile.os or ""),
    )
    variables: dict[str, Any] = {
        **_load(ROLES / "node_software" / "defaults" / "main.yml"),
        **inventory.groups["all"]["vars"],
        **_trust(inventory.groups[ansible_group]["vars"]),
        **_group_vars_files(stack, ansible_group),
        "ansible_facts": _facts(stack, group.software_profile, architecture),
        "ansible_check_mode": False,
        "_node_software_phase": "install",
        "_node_software_apt_options": [],
    }
    walker = _Walker(needs, variables)
    walker.walk(
        _load(ROLES / "node_software" / "tasks" / "components.yml"), variables, "node_software", ROLES / "node_software"
    )
    return needs
