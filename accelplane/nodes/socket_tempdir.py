"""A temporary directory short enough for the Unix socket ansible-core's controller opens at start.

ansible-core 2.21 starts an in-process RPC server (a multiprocessing manager) whenever a playbook
runs. Python binds it to `$TMPDIR/pymp-XXXXXXXX/listener-XXXXXXXX`, and a Unix socket path holds at
most 107 bytes on Linux (`sun_path` is 108 with its NUL). With a longer TMPDIR the bind fails in a
thread whose error ansible-core swallows, and every run ends 5 s later with "Local RPC server did
not start" (ansible/ansible#87031). CPython 3.14 falls back to the system temporary directory in
this case (python/cpython#132124); the Pythons we support do not all have that, so the runner does
the same for the Ansible process it starts: the user's TMPDIR when the socket fits under it, else
the first system temporary directory where it does.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from accelplane.errors import InputError

# Linux `struct sockaddr_un.sun_path` is 108 bytes, one of them the terminating NUL.
SUN_PATH_MAX = 107
# What multiprocessing appends to the temporary directory: "/pymp-" + 8 random characters
# (tempfile.mkdtemp) and "/listener-" + 8 (tempfile.mktemp); both name lengths are fixed by tempfile.
SOCKET_SUFFIX_LENGTH = len("/pymp-XXXXXXXX/listener-XXXXXXXX")
# Where the Pythons' own tempfile looks when TMPDIR is unset, in its order (POSIX).
SYSTEM_TEMP_DIRS = ("/tmp", "/var/tmp", "/usr/tmp")


def fits(directory: str) -> bool:
    """Whether multiprocessing's listener socket under `directory` fits a Unix socket path."""
    return len(os.fsencode(directory)) + SOCKET_SUFFIX_LENGTH <= SUN_PATH_MAX


def controller_tempdir(current: str | None = None, candidates: tuple[str, ...] | None = None) -> str | None:
    """The TMPDIR to give the Ansible controller, or None to leave its environment as it is.

    `current` is the temporary directory the controller would use (default: this process's).
    Refused (InputError) when neither it nor any system temporary directory is short enough."""
    current = current or tempfile.gettempdir()
    candidates = SYSTEM_TEMP_DIRS if candidates is None else candidates
    if fits(current):
        return None
    for candidate in candidates:
        path = Path(candidate)
        if fits(candidate) and path.is_dir() and os.access(path, os.W_OK | os.X_OK):
            return candidate
    longest = SUN_PATH_MAX - SOCKET_SUFFIX_LENGTH
    raise InputError.single(
        f"the temporary directory {current} is {len(os.fsencode(current))} bytes long; Ansible's controller opens a "
        f"Unix socket under it, whose path allows at most {longest} bytes for the directory, and none of "
        f"{', '.join(candidates)} is writable: set TMPDIR to a shorter writable directory", field="TMPDIR")
