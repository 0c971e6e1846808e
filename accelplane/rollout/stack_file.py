"""Write new weights (and `since`, and the decision into `history`) into a stack file, changing nothing else.

The file is a reviewed, hand-written declaration: its comments, key order, quoting and layout are
kept byte for byte. ruamel.yaml's round-trip loader is used only to find where each scalar is
written (`.lc`: line and column); the new values are spliced into the original text there, and
`since` is inserted with the rollout mapping's own indentation when it is absent. `history` is the
tool's own block (one flow mapping per decision, newest last, the oldest dropped past
`ROLLOUT_HISTORY_LIMIT`): it is rewritten whole, right after `since` when it is new. The result is
then read back with the project's loader: its data must equal the old data with exactly the
intended values changed, and it must validate as a stack. Only then is it written, atomically
(a temporary file beside it, `os.replace`), with the original file's mode; otherwise nothing is
written and the problem is an `InputError` (exit 2).
"""

from __future__ import annotations

import copy
import json
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
from accelplane.declaration import ROLLOUT_HISTORY_LIMIT
from accelplane.errors import InputError, Problem
from accelplane.input_files import read_bytes

_BOM = b"\xef\xbb\xbf"
# A plain scalar in block or flow context ends at a space, a flow indicator or a comment.
_PLAIN = re.compile(r"[^\s,\[\]{}#]+")


def refusal(stack: StackConfig, message: str) -> InputError:
    """The error an in-place edit of the stack file stops with (the parity pin uses it too)."""
    return InputError.single(f"{message}; nothing written", file=str(stack.path))


def scalar_end(text: str, start: int) -> int:
    """Offset just past the scalar written at `start` (plain, 'single' or "double" quoted): where an
    in-place edit of one value ends (the weights here, the golden set's SHA-256 in `parity.pin`)."""
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


def rewrite(stack: StackConfig, service_name: str, weights: dict[str, int], since: str,
            record: dict[str, Any] | None = None) -> Rewrite:
    """The file with `weights` (backend -> %) of `service_name`, `rollout.since` and `record` appended to
    `rollout.history` written, checked.

    Only the weights that differ from the file's are touched."""
    raw = read_bytes(stack.path, option="--stack-file")
    bom = _BOM if raw.startswith(_BOM) else b""
    try:
        text = raw[len(bom):].decode("utf-8")
    except UnicodeDecodeError as error:
        raise refusal(stack, f"not UTF-8: {error}") from None
    old = parse_yaml(text, str(stack.path)).data
    if not isinstance(old, dict) or old.get("config") != stack.config:
        raise refusal(stack, "the file changed while the rollout was judged; run the command again")
    services = stack.config[PLATFORM_KEY]["kubernetes"]["inference_services"]
    index = next(i for i, service in enumerate(services) if service.get("name") == service_name)

    try:
        tree: Any = YAML(typ="rt").load(text)
        node = tree["config"][PLATFORM_KEY]["kubernetes"]["inference_services"][index]
        backend_nodes = node["backends"]
        rollout_node = node["rollout"]
    except (YAMLError, KeyError, IndexError, TypeError) as error:
        raise refusal(stack, f"cannot locate the weights in the file ({type(error).__name__}: {error})") from None

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
        edits.append((start, scalar_end(text, start), str(new)))
        backend["weight"] = new
    history = _history(service["rollout"], record)
    edits += _since_edits(text, starts, rollout_node, f'"{since}"', history)
    service["rollout"]["since"] = since
    if history is not None:
        service["rollout"]["history"] = [_plain(entry) for entry in history]

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
        raise refusal(stack, "the new weights could not be written in place (an alias, a tag or an unusual "
                             "scalar at the weight?); change them by hand")
    try:
        load_stack_text(new_text, path=str(stack.path), stack=stack.stack)
    except InputError as error:
        problems = [Problem(p.file, p.line, p.field, p.message) for p in error.problems]
        problems.append(Problem(str(stack.path), None, None,
                                "the new weights would make the stack invalid; nothing written"))
        raise InputError(problems) from None
    return Rewrite(stack.path, bom + new_text.encode("utf-8"), changed)


def _since_edits(text: str, starts: list[int], rollout_node: Any, quoted: str,
                 history: list[str] | None) -> list[tuple[int, int, str]]:
    """`since` written over its old value or inserted before the first key; `history` after it."""
    edits: list[tuple[int, int, str]] = []
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
            edits.append((start, scalar_end(text, start), quoted))
        after_since = starts[line + 1] if line + 1 < len(starts) else len(text)
    else:
        after_since = None
        first = next(iter(rollout_node))
        line, column = rollout_node.lc.key(first)
        if rollout_node.fa.flow_style():
            new_history = history is not None and "history" not in rollout_node
            block = f"history: [{', '.join(history or [])}], " if new_history else ""
            edits.append((starts[line] + column, starts[line] + column, f"since: {quoted}, {block}"))
        else:
            # A new line before the first key, at its column: the mapping's indentation.
            ending = "\r\n" if text[starts[line]:].split("\n", 1)[0].endswith("\r") else "\n"
            block = (_history_block(history, column, ending)
                     if history is not None and "history" not in rollout_node else "")
            edits.append((starts[line], starts[line], " " * column + f"since: {quoted}{ending}{block}"))
    if history is not None:
        edits.extend(_history_edits(text, starts, rollout_node, history, after_since))
    return edits


def _history(rollout: dict[str, Any], record: dict[str, Any] | None) -> list[str] | None:
    """The history entries to write (flow mappings, newest last), or None when nothing is recorded."""
    if record is None:
        return None
    kept = [*list(rollout.get("history") or []), record][-ROLLOUT_HISTORY_LIMIT:]
    return [_flow(entry) for entry in kept]


def _flow(value: Any) -> str:
    """A YAML flow scalar or mapping on one line (strings JSON-quoted: valid YAML double-quoted)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float):
        return repr(round(value, 6))
    if isinstance(value, int):
        return str(value)
    return _key(value) if _plain_word(str(value)) else json.dumps(str(value), ensure_ascii=False)


def _plain_word(text: str) -> bool:
    return bool(re.fullmatch(r"[a-z][a-z0-9_]*(-[a-z0-9_]+)*", text)) and text not in _YAML_WORDS


def _key(key: Any) -> str:
    text = str(key)
    return text if _plain_word(text) else json.dumps(text)


_YAML_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})


def _plain(flow: str) -> Any:
    return parse_yaml(flow, "history").data


def _history_block(history: list[str], column: int, ending: str) -> str:
    lines = [" " * column + "history:"] + [" " * (column + 2) + f"- {entry}" for entry in history]
    return ending.join(lines) + ending


def _history_edits(text: str, starts: list[int], rollout_node: Any, history: list[str],
                   after_since: int | None) -> list[tuple[int, int, str]]:
    """Replace the existing `history` (block or one-line flow) whole; or put a new one after `since`."""
    if "history" not in rollout_node:
        if after_since is None:
            return []  # written with the new `since` line
        line, column = rollout_node.lc.key("since")
        ending = "\r\n" if text[starts[line]:].split("\n", 1)[0].endswith("\r") else "\n"
        return [(after_since, after_since, _history_block(history, column, ending))]
    line, column = rollout_node.lc.key("history")
    start = starts[line]
    if rollout_node.fa.flow_style():
        return []  # inside a one-line flow rollout: left to the read-back check, which refuses it
    node = rollout_node["history"]
    if node is None or (hasattr(node, "fa") and node.fa.flow_style()):
        colon = text.index(":", start + column)
        end = text.find("\n", colon)
        end = len(text) if end < 0 else end
        value_end = end - 1 if text[end - 1 : end] == "\r" else end
        return [(colon + 1, value_end, f" [{', '.join(history)}]")]
    end_line = line + 1
    while end_line < len(starts) - 1:
        body = text[starts[end_line]:starts[end_line + 1]]
        indent = len(body) - len(body.lstrip(" "))
        stripped = body.strip()
        if not stripped or indent > column or (indent == column and stripped.startswith("- ")):
            end_line += 1
            continue
        break
    end = starts[end_line] if end_line < len(starts) else len(text)
    ending = "\r\n" if text[start:].split("\n", 1)[0].endswith("\r") else "\n"
    return [(start, end, _history_block(history, column, ending))]


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
