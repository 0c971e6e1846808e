"""Reading a user's input file, bounded: the one way every command opens a file it is given.

A CI gate reads whatever a pull request puts in front of it, so reading must never hang, eat the
machine's memory or end in a traceback:

- only regular files are read (a symlink is followed first): a FIFO would block forever and
  `/dev/zero` never ends, so both are refused before any byte is read;
- sizes are bounded (`limit` bytes, checked on the open descriptor, so a file that grows while it is
  read is still cut off): declarations at `DECLARATION_LIMIT`, engine documents (state exports,
  plans) at `DOCUMENT_LIMIT`; the message names the limit;
- text is strict UTF-8 (a byte-order mark is accepted): anything else names the line and byte;
- JSON nesting is bounded (`MAX_DEPTH`), so neither the parser nor the code walking the data can
  exhaust Python's stack; numbers beyond Python's integer-conversion limit are refused, not raised.

Every problem is an `InputError` naming the file (exit 2), in the words of the option it came from
when the caller gives one.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from accelplane.errors import InputError

MIB = 1024 * 1024
# Stack files, matrix files, policy configs: hand-written; the largest real ones are tens of KiB.
DECLARATION_LIMIT = 4 * MIB
# `pulumi stack export` / `pulumi preview --json` documents: a 5,000-resource stack is ~20 MiB.
DOCUMENT_LIMIT = 256 * MIB
# Deeper than any stack file or Kubernetes manifest in a state export; far below Python's stack.
MAX_DEPTH = 128

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def format_size(size: int) -> str:
    return f"{size / MIB:g} MiB" if size >= MIB else f"{size} bytes"


def read_bytes(path: Path, *, limit: int = DECLARATION_LIMIT, option: str | None = None) -> bytes:
    """The bytes of a regular file of at most `limit` bytes, or an `InputError`."""
    where = str(path)

    def refuse(message: str) -> InputError:
        return InputError.single(message, file=where, field=option)

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise refuse("file not found") from None
    except OSError as error:
        raise refuse(f"cannot read: {error.strerror or error}") from None
    if not stat.S_ISREG(mode):
        raise refuse(f"is {_kind(mode)}: expected a regular file")
    try:
        # O_NONBLOCK: if the path was swapped for a FIFO since the stat, opening must not block.
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise refuse(f"cannot read: {error.strerror or error}") from None
    with os.fdopen(descriptor, "rb") as handle:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise refuse(f"is {_kind(mode)}: expected a regular file")
        try:
            data = handle.read(limit + 1)
        except OSError as error:
            raise refuse(f"cannot read: {error.strerror or error}") from None
    if len(data) > limit:
        raise refuse(f"file is larger than the {format_size(limit)} limit for this input")
    return data


def is_file(path: Path) -> bool:
    """Whether `path` names a regular file (a symlink followed). False, not an exception, for a path
    the system cannot look up at all: `Path.is_file()` raises for a name longer than the file
    system allows or a directory that may not be searched."""
    try:
        return path.is_file()
    except OSError:
        return False


def is_dir(path: Path) -> bool:
    """Whether `path` names a directory; False, as `is_file`, where it cannot be looked up."""
    try:
        return path.is_dir()
    except OSError:
        return False


def decode(data: bytes, where: str, option: str | None = None) -> str:
    """Strict UTF-8 (a leading byte-order mark is dropped); the problem names line and byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError.single(
            f"not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start}): expected a UTF-8 text file",
            file=where, line=line, field=option,
        ) from None


def read_text(path: Path, *, limit: int = DECLARATION_LIMIT, option: str | None = None) -> str:
    return decode(read_bytes(path, limit=limit, option=option), str(path), option)


def parse_json(text: str, where: str, *, option: str | None = None, max_depth: int = MAX_DEPTH) -> Any:
    """JSON text to data; malformed, too deep or out-of-range input is an `InputError`."""
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        raise InputError.single(f"not valid JSON: {error.msg} (column {error.colno})", file=where,
                                line=error.lineno, field=option) from None
    except RecursionError:
        raise InputError.single(f"JSON nested deeper than {max_depth} levels", file=where, field=option) from None
    except ValueError as error:  # e.g. an integer past Python's 4,300-digit conversion limit
        raise InputError.single(f"not valid JSON: {error}", file=where, field=option) from None
    if nesting_depth(data, max_depth) > max_depth:
        raise InputError.single(f"JSON nested deeper than {max_depth} levels", file=where, field=option)
    return data


def _refuse_constant(name: str) -> Any:
    # Python's json accepts NaN and Infinity; JSON (RFC 8259) and the Pulumi engine do not.
    raise ValueError(f"{name} is not a JSON value")


def read_json(path: Path, *, limit: int = DOCUMENT_LIMIT, option: str | None = None) -> Any:
    return parse_json(read_text(path, limit=limit, option=option), str(path), option=option)


def nesting_depth(data: Any, stop_after: int = MAX_DEPTH) -> int:
    """Depth of nested lists/dicts (a scalar is 0), counted without recursion; stops past `stop_after`."""
    deepest = 0
    pending: list[tuple[Any, int]] = [(data, 0)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        depth += 1
        if depth > deepest:
            deepest = depth
            if deepest > stop_after:
                return deepest
        pending.extend((child, depth) for child in children if isinstance(child, (dict, list)))
    return deepest
