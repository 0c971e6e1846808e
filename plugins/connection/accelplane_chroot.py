"""Ansible connection plugin: run tasks inside a node's root directory with chroot(8).

ansible-core has no chroot connection (community.general has one); accelplane needs one for image
builds and lab nodes, so it carries this small one. The host's `ansible_host` is the root
directory. Modules are piped to the node's Python over stdin (pipelining), files are streamed
through the chroot rather than written through host paths (an absolute symlink inside the root
must resolve inside it, never on the controller).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from typing import IO

from ansible.errors import AnsibleConnectionFailure, AnsibleError
from ansible.plugins.connection import ConnectionBase
from ansible.utils.display import Display

DOCUMENTATION = r"""
name: accelplane_chroot
short_description: Run tasks inside a root directory with chroot(8)
description:
  - Runs commands and modules inside a node's root file system with chroot(8), as root on the controller.
  - Supports pipelining; files are streamed through the chroot.
author: accelplane
options:
  remote_addr:
    description: The node's root directory.
    default: inventory_hostname
    vars:
      - name: inventory_hostname
      - name: ansible_host
  executable:
    description: Shell inside the root that runs commands.
    default: /bin/sh
    vars:
      - name: ansible_executable
  chroot_exe:
    description: The chroot binary on the controller.
    default: chroot
    vars:
      - name: ansible_chroot_exe
  pipelining:
    description: Pipe modules over stdin instead of copying them.
    type: boolean
    default: true
    vars:
      - name: ansible_pipelining
"""

display = Display()

# The environment commands see inside the root: the node's, not the controller's (whose PATH
# points at a virtual environment that does not exist there).
_ENVIRONMENT = {
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "LANG": "C.UTF-8",
    "HOME": "/root",
    "TERM": "dumb",
}


class Connection(ConnectionBase):
    has_pipelining = True
    default_user = "root"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.root: str | None = None
        self.chroot_cmd: str | None = None

    @property
    def transport(self) -> str:
        # ConnectionBase declares `transport` an abstract property; a plain class attribute works at
        # run time but is not a property to a type checker.
        return "accelplane_chroot"

    def _connect(self):
        if self._connected:
            return self
        root = self.get_option("remote_addr")
        if os.geteuid() != 0:
            raise AnsibleConnectionFailure("the accelplane_chroot connection needs root on the controller")
        if not os.path.isdir(root):
            raise AnsibleConnectionFailure(f"{root} is not a directory (the node's root file system)")
        shell = self.get_option("executable")
        if not os.path.exists(os.path.join(root, shell.lstrip("/"))) and not os.path.islink(
            os.path.join(root, shell.lstrip("/"))
        ):
            raise AnsibleConnectionFailure(f"{root} has no {shell}: not a root file system")
        chroot_exe = shutil.which(self.get_option("chroot_exe"))
        if chroot_exe is None:
            raise AnsibleConnectionFailure(f"{self.get_option('chroot_exe')} not found on the controller")
        self.root = root
        self.chroot_cmd = chroot_exe
        self._connected = True
        display.vvv(f"ESTABLISH CHROOT CONNECTION FOR USER: root ({root})", host=root)
        return self

    def _run(self, argv: list[str], in_data: bytes | None = None, stdout: int | IO[bytes] = subprocess.PIPE):
        if self.chroot_cmd is None or self.root is None:
            raise AnsibleConnectionFailure("the accelplane_chroot connection is not established")
        process = subprocess.Popen(
            [self.chroot_cmd, self.root, *argv],
            stdin=subprocess.PIPE,
            stdout=stdout,
            stderr=subprocess.PIPE,
            env=_ENVIRONMENT,
        )
        out, err = process.communicate(in_data)
        return process.returncode, out, err

    def exec_command(self, cmd, in_data=None, sudoable=False):
        super().exec_command(cmd, in_data=in_data, sudoable=sudoable)
        display.vvv(f"EXEC {cmd}", host=self.root)
        return self._run([self.get_option("executable"), "-c", cmd], in_data=in_data)

    def put_file(self, in_path, out_path):
        super().put_file(in_path, out_path)
        display.vvv(f"PUT {in_path} TO {out_path}", host=self.root)
        try:
            with open(in_path, "rb") as source:
                data = source.read()
        except OSError as error:
            raise AnsibleError(f"cannot read {in_path}: {error}") from error
        rc, _, err = self._run(["/bin/sh", "-c", f"cat > {shlex.quote(out_path)}"], in_data=data)
        if rc != 0:
            raise AnsibleError(f"cannot write {out_path} in {self.root}: {err.decode(errors='replace').strip()}")

    def fetch_file(self, in_path, out_path):
        super().fetch_file(in_path, out_path)
        display.vvv(f"FETCH {in_path} TO {out_path}", host=self.root)
        with open(out_path, "wb") as target:
            rc, _, err = self._run(["/bin/cat", in_path], stdout=target)
        if rc != 0:
            raise AnsibleError(f"cannot read {in_path} in {self.root}: {err.decode(errors='replace').strip()}")

    def close(self):
        self._connected = False
