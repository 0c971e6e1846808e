"""Write new weights (and `since`) into a stack file, changing nothing else in it.

The file is a reviewed, hand-written declaration: its comments, key order, quoting and layout are
kept byte for byte. ruamel.yaml's round-trip loader is used only to find where each scalar is
written (`.lc`: line and column); the new values are spliced into the original text there, and
`since` is inserted with the rollout mapping's own indentation when it is absent. The result is
then read back with the project's loader: its data must equal the old data with exactly the
intended values changed, and it must validate as a stack. Only then is it written, atomically
(a temporary file beside it, `os.replace`), with the original file's mode; otherwise nothing is
written and the problem is an `InputError` (exit 2).
"""

from __future__ import annotations

import copy
import os
import re
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from accelplane.config.loader import PLATFORM_KEY, StackConfig, load_stack_text
from accelplane.config.yaml_source import parse_yaml
from accelplane.errors import InputError, Problem
from accelplane.input_files import read_bytes

_BOM = b"\xef\xbb\xbf"
# A plain scalar in block or flow context ends at a space, a flow indicator or a comment.
_PLAIN = re.compile(r"[^\s,\[\]{}#]+")


def _refuse(stack: StackConfig, message: str) -> InputError:
    return InputError.single(f"{message}; nothing written", file=str(stack.path))


def _scalar_end(text: str, start: int) -> int:
    """Offset just past the scalar written at `start` (plain, 'single' or "double" quoted)."""
    quote = text[start : start + 1]
    if quote == "'":
        at = start + 1
        while True:
            at = text.index("'", at)
            if text[at + 1 : at + 2] != "'":
                return at + 1
            at += 2
    if quote == '"':
        at = start + 1
        while text[at] != '"':
            at += 2 if text[at] == "\\" else 1
        return at + 1
    match = _PLAIN.match(text, start)
    return match.end() if match else start


@dataclass(frozen=True)
class Rewrite:
    """A checked new content of the stack file, written by `commit()`."""

    path: Path
    content: bytes
    changed_lines: list[int]  # 1-based, in the new file

    def commit(self) -> None:
        _replace(self.path, self.content)


def rewrite(stack: StackConfig, service_name: str, weights: dict[str, int], since: str) -> Rewrite:
    """The file with `weights` (backend -> %) of `service_name` and `rollout.since` written, checked.

    Only the weights that differ from the file's are touched."""
    raw = read_bytes(stack.path, option="--stack-file")
    bom = _BOM if raw.startswith(_BOM) else b""
    try:
        text = raw[len(bom):].decode("utf-8")
    except UnicodeDecodeError as error:
        raise _refuse(stack, f"not UTF-8: {error}") from None
    old = parse_yaml(text, str(stack.path)).data
    if not isinstance(old, dict) or old.get("config") != stack.config:
        raise _refuse(stack, "the file changed while the rollout was judged; run the command again")
    services = stack.config[PLATFORM_KEY]["kubernetes"]["inference_services"]
    index = next(i for i, service in enumerate(services) if service.get("name") == service_name)

    try:
        tree: Any = YAML(typ="rt").load(text)
        node = tree["config"][PLATFORM_KEY]["kubernetes"]["inference_services"][index]
        backend_nodes = node["backends"]
        rollout_node = node["rollout"]
    except (YAMLError, KeyError, IndexError, TypeError) as error:
        raise _refuse(stack, f"cannot locate the weights in the file ({type(error).__name__}: {error})") from None

    starts = [0] + [match.end() for match in re.finditer("\n", text)]
    edits: list[tuple[int, int, str]] = []  # (start, end, new text)
    expected = copy.deepcopy(old)
    service = expected["config"][PLATFORM_KEY]["kubernetes"]["inference_services"][index]
    for position, backend in enumerate(service["backends"]):
        new = weights.get(backend["name"])
        if new is None or new == backend["weight"]:
            continue
        line, column = backend_nodes[position].lc.value("weight")
        start = starts[line] + column
        edits.append((start, _scalar_end(text, start), str(new)))
        backend["weight"] = new
    quoted = f'"{since}"'
    if "since" in rollout_node:
        # From the key, not `.lc.value`: an empty `since:` has no value token to point at.
        line, column = rollout_node.lc.key("since")
        colon = text.index(":", starts[line] + column)
        start = colon + 1
        while text[start : start + 1] in (" ", "\t"):
            start += 1
        if text[start : start + 1] in ("", "\n", "\r", "#"):
            edits.append((colon + 1, colon + 1, f" {quoted}"))  # any comment keeps its own spacing
        else:
            edits.append((start, _scalar_end(text, start), quoted))
    else:
        first = next(iter(rollout_node))
        line, column = rollout_node.lc.key(first)
        if rollout_node.fa.flow_style():
            edits.append((starts[line] + column, starts[line] + column, f"since: {quoted}, "))
        else:
            # A new line before the first key, at its column: the mapping's indentation.
            ending = "\r\n" if text[starts[line]:].split("\n", 1)[0].endswith("\r") else "\n"
            edits.append((starts[line], starts[line], " " * column + f"since: {quoted}{ending}"))
    service["rollout"]["since"] = since

    new_text = text
    for start, end, value in sorted(edits, reverse=True):
        new_text = new_text[:start] + value + new_text[end:]
    changed = sorted({new_text.count("\n", 0, start) + 1 for start, _, _ in edits})

    # What was written must read back as exactly the intended change, and as a valid stack.
    try:
        written = parse_yaml(new_text, str(stack.path)).data
    except InputError:
        written = None
    if written != expected:
        raise _refuse(stack, "the new weights could not be written in place (an alias, a tag or an unusual "
                             "scalar at the weight?); change them by hand")
    try:
        load_stack_text(new_text, path=str(stack.path), stack=stack.stack)
    except InputError as error:
        problems = [Problem(p.file, p.line, p.field, p.message) for p in error.problems]
        problems.append(Problem(str(stack.path), None, None,
                                "the new weights would make the stack invalid; nothing written"))
        raise InputError(problems) from None
    return Rewrite(stack.path, bom + new_text.encode("utf-8"), changed)


def _replace(path: Path, content: bytes) -> None:
    target = path.resolve()  # a symlinked stack file: replace the file it points to, keep the link
    mode = stat.S_IMODE(target.stat().st_mode)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(content)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise InputError.single(f"cannot write: {error.strerror or error}; nothing written", file=str(path)) from None
