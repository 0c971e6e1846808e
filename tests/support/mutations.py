"""Hypothesis strategies that break real input files the way people and tools break them.

Three layers, each drawn by one strategy:
- the data (`mutate_data`): delete, duplicate, rename or swap keys and items, replace a value with
  another YAML/JSON type (null, booleans, huge integers, NaN, long, date-looking, non-ASCII or
  control-character strings, lists, maps), nest deeply;
- the text (`mutate_text`): truncate, drop or repeat lines, paste YAML oddities (anchors and
  aliases, merge keys, tags, directives, several documents, tabs), swap a value for a raw scalar;
- the bytes (`mutate_bytes`): flip bytes, insert invalid UTF-8, NUL, a byte-order mark, re-encode.

`mutated_document` composes them for a parsed document: most draws mutate the data and write it
back as YAML or JSON (JSON is YAML 1.1 too, and a file a tool hands over may be either), some
mutate the text or bytes of that result. Every draw is reproducible from hypothesis' seed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import yaml
from hypothesis import strategies as st

PathPart = str | int
OPERATIONS = ("replace", "replace", "delete", "rename", "duplicate", "swap", "nest", "wrap", "sibling", "add_key")
# Changes that often leave a declaration valid, so what runs after validation meets them: a value of
# the right type from elsewhere in the file, an optional key or list item gone, a list item repeated.
GENTLE = ("same_key", "same_key", "same_key", "delete", "reorder")
# Half the operations near the top, where a stack file's structure is; the rest anywhere.
NEAR_TOP: tuple[int | None, ...] = (2, 3, 4, None, None, None)
# Mostly anywhere: in a state export or plan, that is the resource properties the rules read.
MOSTLY_LEAVES: tuple[int | None, ...] = (3, 5, None, None, None, None, None, None)


@dataclass(frozen=True)
class Raw:
    """A scalar written into the file verbatim: what no dumper writes (a 5,000-digit or hex
    integer, `.nan`, an impossible date, a YAML 1.1 `yes`)."""

    text: str


# Values a YAML 1.1 reader turns into something surprising, or that are valid only in one reading.
RAW_SCALARS = (
    "2026-02-30", "2026-13-01", "0000-00-00", "2026-06-31", "2026-01-01T25:61:00Z", "9999-12-31",
    "yes", "no", "on", "off", "~", "null", ".nan", ".inf", "-.inf", "0x1F", "0o17", "0b101",
    "1_000", "190:20:30", "1e400", "-0", "3.10", "12.10", "!!binary aGVsbG8=", "!!str 1", "!!int x",
    "!!float nan", "!custom value", "!!python/object:os.system ''", "!!set {a, b}", "!!omap [a: 1]",
    "*undefined", "&anchor value", "[unclosed", "{unclosed: 1", "'single", '"double', "|", ">-",
    "? complex", "- - -", "@reserved", "`backtick", "%directive", "{a: 1, a: 2}", "[*x]",
    "0x" + "f" * 5000, "0b" + "1" * 20000, "0o" + "7" * 6000, "9" * 5000, "-" + "9" * 4400,
    "1" + ":59" * 3000, "1." + "0" * 5000, "1e" + "9" * 400,
)
DATE_LIKE = ("2026-02-30", "2026-02-29", "2025-02-29", "2026-00-10", "1900-01-01", "0001-01-01", "99999-01-01",
             "2026-1-1", "20260101", "2026-01-01T00:00:00", "2026-01-01 00:00:00+25:00")
TRICKY_TEXT = ("", " ", "\t", "\n", "a\nb", "\x00", "\x7f", "\u200b", "\ufeff", "\u202e", "é", "日本語",
               "🙂", "../../etc/passwd", "/dev/zero", "C:\\x", "urn:pulumi:x::y::z::w", "*", "all", "-rf",
               "--stack", "accelplane:platform", "${HOME}", "{{ lookup('env', 'HOME') }}", "' OR 1=1 --")
# Snippets pasted as whole lines (at some indentation) into YAML text.
YAML_LINES = (
    "a: &a [*a]", "b: &b {x: *b}", "c: *nowhere", "<<: *nowhere", "<<: {merged: 1}", "--- ", "...",
    "%YAML 1.2", "%TAG ! tag:example.com,2000:", "\tkey: tab", "? [complex, key]\n: value", "key: value",
    "key: [1, 2", "- item", "!!python/name:os.system", "key: !!python/object/apply:os.system ['true']",
    "x: " + "[" * 200 + "]" * 200, "x: " + "{a: " * 100 + "1" + "}" * 100,
    "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\nl1: &l1 [*l0, *l0, *l0, *l0, *l0, *l0, *l0, *l0, *l0, *l0]\n"
    "l2: &l2 [*l1, *l1, *l1, *l1, *l1, *l1, *l1, *l1, *l1, *l1]\nl3: &l3 [*l2, *l2, *l2, *l2, *l2, *l2, *l2, *l2]\n"
    "l4: &l4 [*l3, *l3, *l3, *l3, *l3, *l3, *l3, *l3]\nl5: [*l4, *l4, *l4, *l4, *l4, *l4, *l4, *l4, *l4, *l4]",
    "name: x\nname: y", "config: {}", "'unterminated: x", "key: 'multi\n  line'", "\x00", "\x1b[31mred",
)
INVALID_UTF8 = (b"\xff", b"\xfe\xff", b"\xc3\x28", b"\xa0\xa1", b"\xe2\x28\xa1", b"\xf0\x28\x8c\xbc",
                b"\xed\xa0\x80", b"\xc0\xaf", b"\xf8\x88\x80\x80\x80", b"\x80")


def _is_container(value: Any) -> bool:
    return isinstance(value, (dict, list))


def paths(data: Any, limit: int = 20_000) -> list[tuple[PathPart, ...]]:
    """Every path into `data` (the root is `()`), breadth first, at most `limit` of them."""
    found: list[tuple[PathPart, ...]] = [()]
    index = 0
    while index < len(found) and len(found) < limit:
        value = get(data, found[index])
        if isinstance(value, dict):
            found.extend((*found[index], key) for key in value)
        elif isinstance(value, list):
            found.extend((*found[index], i) for i in range(len(value)))
        index += 1
    return found[:limit]


def get(data: Any, path: tuple[PathPart, ...]) -> Any:
    for part in path:
        data = data[part]
    return data


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _set(data: Any, path: tuple[PathPart, ...], value: Any) -> Any:
    if not path:
        return value
    get(data, path[:-1])[path[-1]] = value
    return data


def scalar_values() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.sampled_from([0, -1, 2**31, 2**63, -(2**63) - 1, 10**30, 10**4299]),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=40),
        st.text(st.characters(min_codepoint=0x80, exclude_categories=("Cs",)), min_size=1, max_size=20),
        st.text(st.characters(max_codepoint=0x1F), min_size=1, max_size=8),
        st.sampled_from(TRICKY_TEXT),
        st.sampled_from(DATE_LIKE),
        st.builds(lambda ch, n: ch * n, st.sampled_from("ax9é-"), st.sampled_from([64, 300, 5_000, 70_000])),
        st.sampled_from(RAW_SCALARS).map(Raw),
    )


def any_values() -> st.SearchStrategy[Any]:
    keys = st.one_of(st.text(max_size=12), st.integers(-5, 5), st.booleans(), st.none(), st.sampled_from(TRICKY_TEXT))
    return st.recursive(
        scalar_values(),
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
        max_leaves=8,
    )


def _nest(value: Any, depth: int, as_list: bool) -> Any:
    for _ in range(depth):
        value = [value] if as_list else {"n": value}
    return value


@st.composite
def mutate_data(
    draw: st.DrawFn, data: Any, *, max_ops: int = 3, depths: tuple[int | None, ...] = NEAR_TOP,
    ops: tuple[str, ...] = OPERATIONS,
) -> Any:
    """`data` (unchanged) copied and changed by 1..`max_ops` operations (drawn from `ops`) at drawn places.

    Each operation's place is drawn among the paths no deeper than a depth drawn from `depths`
    (None: anywhere), so a document's structure is hit as often as its leaves."""
    data = _copy(data)
    for _ in range(draw(st.integers(1, max_ops))):
        everywhere = paths(data)
        depth = draw(st.sampled_from(depths))
        near_top = [p for p in everywhere if depth is not None and len(p) <= depth]
        path = draw(st.sampled_from(near_top or everywhere))
        target = get(data, path)
        parent = get(data, path[:-1]) if path else None
        op = draw(st.sampled_from(ops))
        if op == "replace" or (op in ("delete", "rename", "duplicate", "sibling") and not path):
            data = _set(data, path, draw(any_values()))
        elif op == "delete":
            del parent[path[-1]]
        elif op == "rename" and isinstance(parent, dict):
            new_key = draw(st.one_of(
                st.sampled_from(TRICKY_TEXT),
                st.text(max_size=20),
                st.just(str(path[-1]).upper()),
                st.just(str(path[-1]) + "s"),
                st.just(str(path[-1])[:-1]),
                st.integers(-2, 2),
                st.none(),
            ))
            parent[new_key] = parent.pop(path[-1])
        elif op in ("duplicate", "rename") and isinstance(parent, list):
            parent.insert(path[-1], _copy(target))
        elif op == "duplicate" and isinstance(parent, dict):
            parent[f"{path[-1]}-copy"] = _copy(target)
        elif op == "swap":
            # A subtree from elsewhere in the same document: the right shape in the wrong place.
            other = draw(st.sampled_from(everywhere))
            data = _set(data, path, _copy(get(data, other)))
        elif op == "nest":
            depth = draw(st.sampled_from([1, 2, 10, 63, 64, 65, 127, 128, 129, 300]))
            data = _set(data, path, _nest(_copy(target), depth, draw(st.booleans())))
        elif op == "wrap":
            data = _set(data, path, [_copy(target)] if not isinstance(target, list) else {"items": target})
        elif op == "sibling" and isinstance(parent, (dict, list)):
            # A value of the right type from the same document, so validation passes and later code runs.
            scalars = [p for p in everywhere if not _is_container(get(data, p))]
            if scalars:
                data = _set(data, path, _copy(get(data, draw(st.sampled_from(scalars)))))
        elif op == "same_key" and path and isinstance(path[-1], str):
            # The value another entry gives the same key (one pool's instance type in another pool).
            others = [p for p in everywhere if p and p[-1] == path[-1] and p != path]
            if others:
                data = _set(data, path, _copy(get(data, draw(st.sampled_from(others)))))
        elif op == "reorder" and isinstance(target, list) and len(target) > 1:
            target.reverse()
        elif op == "add_key" and isinstance(target, dict):
            target[draw(st.one_of(st.text(max_size=16), st.sampled_from(TRICKY_TEXT)))] = draw(any_values())
        elif isinstance(target, list):
            target.append(draw(any_values()))
    return data


class _Dumper(yaml.SafeDumper):
    pass


def _represent_raw(dumper: yaml.SafeDumper, value: Raw) -> yaml.Node:
    # Plain style when the emitter allows it; the emitter quotes what would not read back as written.
    return dumper.represent_scalar("tag:yaml.org,2002:str", value.text, style=None)


_Dumper.add_representer(Raw, _represent_raw)
_RAW_MARK = "\x00raw{}\x00"


def dump_yaml(data: Any, *, flow: bool = False, unicode: bool = True) -> str:
    marks: list[str] = []

    def collect(value: Any) -> Any:
        if isinstance(value, Raw):
            marks.append(value.text)
            return _RAW_MARK.format(len(marks) - 1)
        if isinstance(value, dict):
            return {collect(k): collect(v) for k, v in value.items()}
        if isinstance(value, list):
            return [collect(v) for v in value]
        return value

    text = yaml.dump(collect(data), Dumper=_Dumper, sort_keys=False, allow_unicode=unicode,
                     default_flow_style=flow, width=10_000)
    # The dumper writes a mark as a double-quoted "\0raw<n>\0"; put the raw text there unquoted.
    for index, raw in enumerate(marks):
        text = text.replace(f'"\\0raw{index}\\0"', raw.replace("\n", " "))
    return text


def dump_json(data: Any, *, indent: int | None = 1) -> str:
    marks: list[str] = []

    def collect(value: Any) -> Any:
        if isinstance(value, Raw):
            marks.append(value.text)
            return _RAW_MARK.format(len(marks) - 1)
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**4000:
            marks.append(("-" if value < 0 else "") + "9" * 4400)
            return _RAW_MARK.format(len(marks) - 1)
        if isinstance(value, dict):
            return {str(k) if not isinstance(k, str) else k: collect(v) for k, v in value.items()}
        if isinstance(value, list):
            return [collect(v) for v in value]
        return value

    text = json.dumps(collect(data), indent=indent, ensure_ascii=False, allow_nan=True)
    for index, raw in enumerate(marks):
        # Numbers past what JSON readers take (NaN, 1e400, 5,000 digits) go in bare; YAML-only text as a string.
        bare = _JSON_NUMBER.fullmatch(raw) is not None
        text = text.replace(json.dumps(_RAW_MARK.format(index)), raw if bare else json.dumps(raw))
    return text


_JSON_NUMBER = re.compile(r"-?(NaN|Infinity|[0-9][0-9.eE+-]*)")
_VALUE = re.compile(r"(:[ \t]+)([^\s#][^\n]*)")


@st.composite
def mutate_text(draw: st.DrawFn, text: str) -> str:
    """`text` truncated, with lines dropped, repeated or pasted, or one value swapped for a raw scalar."""
    lines = text.split("\n")
    op = draw(st.sampled_from(["truncate", "drop_line", "repeat_line", "paste", "paste", "raw_value", "tabs"]))
    if op == "truncate":
        return text[: draw(st.integers(0, len(text)))]
    line = draw(st.integers(0, max(0, len(lines) - 1)))
    if op == "drop_line":
        del lines[line]
    elif op == "repeat_line":
        lines.insert(line, lines[line])
    elif op == "paste":
        indent = draw(st.sampled_from([0, 1, 2, 4, 6, 8]))
        snippet = draw(st.sampled_from(YAML_LINES))
        lines.insert(line, "\n".join(" " * indent + part for part in snippet.split("\n")))
    elif op == "raw_value":
        matches = [m for m in _VALUE.finditer(text)]
        if matches:
            match = draw(st.sampled_from(matches))
            raw = draw(st.one_of(st.sampled_from(RAW_SCALARS), st.sampled_from(YAML_LINES)))
            return text[: match.start(2)] + raw + text[match.end(2):]
    elif op == "tabs":
        lines[line] = lines[line].replace("  ", "\t")
    return "\n".join(lines)


@st.composite
def mutate_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    """`data` with bytes flipped or inserted (invalid UTF-8, NUL, a byte-order mark) or re-encoded."""
    op = draw(st.sampled_from(["flip", "flip", "insert", "invalid_utf8", "nul", "bom", "utf16", "cut_char"]))
    if not data:
        return draw(st.binary(max_size=16))
    position = draw(st.integers(0, len(data) - 1))
    if op == "flip":
        out = bytearray(data)
        for _ in range(draw(st.integers(1, 4))):
            at = draw(st.integers(0, len(out) - 1))
            out[at] ^= draw(st.integers(1, 255))
        return bytes(out)
    if op == "insert":
        return data[:position] + draw(st.binary(min_size=1, max_size=8)) + data[position:]
    if op == "invalid_utf8":
        return data[:position] + draw(st.sampled_from(INVALID_UTF8)) + data[position:]
    if op == "nul":
        return data[:position] + b"\x00" + data[position:]
    if op == "bom":
        return b"\xef\xbb\xbf" + data
    if op == "utf16":
        return data.decode("utf-8", errors="replace").encode(draw(st.sampled_from(["utf-16", "utf-32", "latin-1"])),
                                                            errors="replace")
    # cut a multi-byte character in half (a truncation inside UTF-8)
    multibyte = [i for i, b in enumerate(data) if b >= 0xC0]
    at = draw(st.sampled_from(multibyte)) if multibyte else position
    return data[: at + 1]


@st.composite
def mutated_document(
    draw: st.DrawFn, data: Any, *, yaml_output: bool = True, depths: tuple[int | None, ...] = NEAR_TOP
) -> bytes:
    """A broken version of the document `data`, as the bytes of a file.

    `yaml_output`: the file is read as YAML (stack files, matrix files), so it is written as YAML or,
    sometimes, as JSON; otherwise (state exports, plans, policy configs) as JSON.
    """
    changed = draw(mutate_data(data, depths=depths)) if draw(st.integers(0, 9)) < 8 else _copy(data)
    as_json = not yaml_output or draw(st.integers(0, 9)) == 0
    if as_json:
        text = dump_json(changed, indent=draw(st.sampled_from([None, 1])))
    else:
        text = dump_yaml(changed, flow=draw(st.integers(0, 9)) == 0, unicode=draw(st.booleans()))
    layer = draw(st.sampled_from(["data", "data", "data", "text", "bytes"]))
    if layer == "text":
        text = draw(mutate_text(text))
    encoded = text.encode("utf-8", errors="surrogatepass")
    if layer == "bytes":
        encoded = draw(mutate_bytes(encoded))
    return encoded
