"""YAML documents that remember where each value was written.

Pydantic reports a field path (`node_pools.0.scaling`); users need the line of their file. We
compose the YAML once to a node tree, construct plain data from that tree, and keep the tree to
turn a path back into a line. Reading is bounded like every input (`accelplane.input_files`), and
a document is checked before any data is built from it:

- duplicate keys are rejected: YAML silently keeps the last one, which hides typos in a long file;
- dates stay strings: YAML 1.1 turns `2026-06-31` into a date and raises on an impossible one, and
  would make a date-looking description a date; the models parse dates themselves, per field;
- nesting deeper than `MAX_DEPTH`, recursive aliases and aliases that expand past `MAX_VALUES`
  values ("billion laughs") are refused: each would hang or exhaust memory in what reads the data;
- integers longer than `MAX_INT_DIGITS` decimal digits are refused, however written: Python refuses
  to build such a number from decimal text but not from hex, octal, binary or base-60 (`0x` + 5,000
  `f`s), and every message that shows the value (`got ...`) would then raise instead of print.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from accelplane.errors import InputError
from accelplane.input_files import DECLARATION_LIMIT, read_text

PathPart = str | int
MAX_DEPTH = 64
MAX_VALUES = 1_000_000
# Python's default limit for int <-> decimal text (sys.get_int_max_str_digits), which JSON input is
# held to as well; fixed here so PYTHONINTMAXSTRDIGITS=0 cannot let a 4 MiB number through.
MAX_INT_DIGITS = 4300
_INT_BOUND = 10**MAX_INT_DIGITS
_INT = "tag:yaml.org,2002:int"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
# libyaml's parser when the wheel carries it (about ten times faster); the same classes otherwise.
_Base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_Base):  # type: ignore[misc, valid-type]
    """Safe loading that refuses duplicate keys, keeps dates as strings and turns a value Python
    cannot build (an integer past the 4,300-digit limit) into a marked error."""

    yaml_implicit_resolvers = {
        first: [(tag, pattern) for tag, pattern in resolvers if tag != _TIMESTAMP]
        for first, resolvers in _Base.yaml_implicit_resolvers.items()
    }

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, OverflowError) as error:
            raise yaml.constructor.ConstructorError(None, None, str(error), node.start_mark) from None


def _construct_mapping(loader: _Loader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)  # type: ignore[arg-type]
        if not isinstance(key, Hashable):
            raise yaml.constructor.ConstructorError(
                None, None, "a list or mapping cannot be a mapping key", key_node.start_mark
            )
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first on line {seen[key] + 1})", key_node.start_mark
            )
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


def _construct_int(loader: _Loader, node: yaml.ScalarNode) -> int:
    too_long = ValueError(f"an integer longer than {MAX_INT_DIGITS} digits")
    try:
        value = loader.construct_yaml_int(node)
    except ValueError:
        if len(node.value) > MAX_INT_DIGITS:  # decimal text past Python's conversion limit
            raise too_long from None
        raise  # no digits at all (`0x_`): construct_object marks int()'s own message
    if abs(value) >= _INT_BOUND:  # hex, octal, binary or base 60: built without the decimal limit
        raise too_long
    return value


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor(_INT, _construct_int)


@dataclass(frozen=True)
class YamlDocument:
    """Plain data of one YAML file plus its node tree for line look-ups."""

    path: str
    data: Any
    root: yaml.Node | None

    def line_of(self, parts: Sequence[PathPart]) -> int | None:
        """1-based line of the deepest node found along `parts` (the parent when a key is missing)."""
        node = self.root
        line = node.start_mark.line + 1 if node is not None else None
        for part in parts:
            child = _child(node, part)
            if child is None:
                break
            node = child
            line = child.start_mark.line + 1
        return line


def _child(node: yaml.Node | None, part: PathPart) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if key_node.value == str(part):
                return value_node
    if isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
        return node.value[part]
    return None


def parse_yaml(text: str, path: str) -> YamlDocument:
    """Parse YAML text; malformed or unsafe YAML becomes an InputError naming file and line."""
    loader = _Loader(text)
    try:
        root = loader.get_single_node()
        if root is not None:
            _check_shape(root, path)
        data = loader.construct_document(root) if root is not None else None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = " ".join(p for p in (error.context, error.problem) if p)
        raise InputError.single(f"malformed YAML: {problem}", file=path, line=line) from None
    except yaml.YAMLError as error:
        raise InputError.single(f"malformed YAML: {error}", file=path) from None
    finally:
        loader.dispose()
    return YamlDocument(path=path, data=data, root=root)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _check_shape(root: yaml.Node, path: str) -> None:
    """Depth, recursion and expanded size of the node tree, aliases followed; iterative (no recursion)."""

    def refuse(node: yaml.Node, message: str) -> InputError:
        return InputError.single(message, file=path, line=node.start_mark.line + 1)

    size: dict[int, int] = {}
    height: dict[int, int] = {}
    ancestors: set[int] = set()
    pending: list[tuple[yaml.Node, bool]] = [(root, False)]
    while pending:
        node, finished = pending.pop()
        key = id(node)
        if finished:
            ancestors.discard(key)
            children = _children(node)
            size[key] = 1 + sum(size[id(child)] for child in children)
            height[key] = 1 + max((height[id(child)] for child in children), default=0)
            if height[key] > MAX_DEPTH:
                raise refuse(node, f"nested deeper than {MAX_DEPTH} levels")
            if size[key] > MAX_VALUES:
                raise refuse(node, f"aliases expand to more than {MAX_VALUES:,} values")
            continue
        if key in size:
            continue  # an alias of a node already measured
        if key in ancestors:
            raise refuse(node, "an alias refers to a node that contains it (a recursive structure)")
        ancestors.add(key)
        pending.append((node, True))
        pending.extend((child, False) for child in _children(node) if id(child) not in size)


def read_yaml(path: Path, *, limit: int = DECLARATION_LIMIT, option: str | None = None) -> YamlDocument:
    return parse_yaml(read_text(path, limit=limit, option=option), str(path))
