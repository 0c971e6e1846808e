"""Render an offline graph the way `pulumi preview` prints a plan: a tree and counts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from accelplane.engine.graph import OfflineGraph, RecordedResource

STACK_TYPE = "pulumi:pulumi:Stack"


def _children(graph: OfflineGraph) -> dict[str | None, list[RecordedResource]]:
    children: dict[str | None, list[RecordedResource]] = {}
    known = {r.urn for r in graph.resources}
    for resource in graph.resources:
        parent = resource.parent if resource.parent in known else None
        children.setdefault(parent, []).append(resource)
    return children


def _tree(
    children: dict[str | None, list[RecordedResource]], parent: str | None, prefix: str
) -> Iterator[tuple[str, RecordedResource]]:
    items = children.get(parent, [])
    for index, resource in enumerate(items):
        last = index == len(items) - 1
        yield f"{prefix}{'└─ ' if last else '├─ '}", resource
        yield from _tree(children, resource.urn, prefix + ("   " if last else "│  "))


def render_plan(graph: OfflineGraph, project: str) -> str:
    children = _children(graph)
    rows: list[tuple[str, str, str]] = [(f"{STACK_TYPE}", f"{project}-{graph.stack}", "")]
    for branch, resource in _tree(children, None, ""):
        rows.append((branch + resource.type, resource.name, " [protect]" if resource.protect else ""))
    type_width = max(len(r[0]) for r in rows) + 2
    name_width = max(len(r[1]) for r in rows) + 2
    lines = [
        f"Previewing update ({graph.stack}) offline: Pulumi mocks as the engine, no cloud calls",
        "",
        f"     {'Type':<{type_width}}{'Name':<{name_width}}Plan",
    ]
    lines += [f" +   {t:<{type_width}}{n:<{name_width}}create{flag}" for t, n, flag in rows]
    counts = graph.counts()
    lines += [
        "",
        "Resources:",
        f"    + {len(graph.resources) + 1} to create: {counts['resources']} resources ({counts['cloud']} cloud "
        f"resources, {counts['components']} components), {_plural(counts['providers'], 'provider')}, 1 stack",
        "",
        "By type:",
    ]
    custom = [r for r in graph.resources if r.custom]
    for type_token, count in sorted(Counter(r.type for r in custom).items()):
        lines.append(f"    {count:>4}  {type_token}")
    return "\n".join(lines)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
