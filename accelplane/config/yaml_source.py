"""YAML documents that remember where each value was written.

Pydantic reports a field path (`node_pools.0.scaling`); users need the line of their file. We
compose the YAML once to a node tree, construct plain data from it, and keep the tree to turn a
path back into a line. Duplicate keys are rejected: YAML silently keeps the last one, which
hides typos in a long stack file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from accelplane.errors import InputError

PathPart = str | int


class _Loader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate mapping keys."""


def _construct_mapping(loader: _Loader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)  # type: ignore[arg-type]
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first on line {seen[key] + 1})", key_node.start_mark
            )
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


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
    """Parse YAML text; malformed YAML becomes an InputError naming file and line."""
    try:
        root = yaml.compose(text, Loader=_Loader)
        data = _Loader(text).get_single_data() if root is not None else None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = " ".join(p for p in (error.context, error.problem) if p)
        raise InputError.single(f"malformed YAML: {problem}", file=path, line=line) from None
    except yaml.YAMLError as error:
        raise InputError.single(f"malformed YAML: {error}", file=path) from None
    return YamlDocument(path=path, data=data, root=root)


def read_yaml(path: Path) -> YamlDocument:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError.single("file not found", file=str(path)) from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError.single(f"cannot read file: {error}", file=str(path)) from None
    return parse_yaml(text, str(path))
