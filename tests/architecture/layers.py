"""The package's import structure held against its layers (docs/design.md, "Layers").

Reads every module of `accelplane/` with `ast` (nothing is imported) and reports:

- import cycles between modules, and between units (a top-level package, or a cloud's folder);
- upward imports: a module importing a unit on a higher layer;
- a cloud imported by name from outside its own folder (only the registry names them, as data);
- function-level imports without a comment saying why (start-up time is the only reason).

Imports under `if TYPE_CHECKING:` count like any other: an annotation is a dependency too, and a
cycle through one is a cycle a reader has to untangle. Run it as `python -m tests.architecture.layers`
for the report; the test suite fails on any finding.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "accelplane"

# Lowest first. A unit may import its own layer's units (without a cycle) and any lower layer.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("accelplane", "accelplane.ansible_module_utils", "accelplane.errors", "accelplane.input_files", "accelplane.urls",
     "accelplane.accelerator_vendors", "accelplane.oci_reference", "accelplane.tool",
     "accelplane.suggest", "accelplane.option_types"),
    ("accelplane.matrix",),
    ("accelplane.declaration",),
    ("accelplane.cloud_support", "accelplane.cloud_connection", "accelplane.cloud_commands"),
    ("accelplane.config", "accelplane.node_labels", "accelplane.cost", "accelplane.prometheus_api"),
    ("accelplane.rules", "accelplane.report"),
    ("accelplane.engine", "accelplane.k8s", "accelplane.nodes"),
    ("accelplane.bundle", "accelplane.verify", "accelplane.rollout", "accelplane.preflight", "accelplane.migration",
     "accelplane.capacity"),
    ("accelplane.clouds", "accelplane.clouds.aws", "accelplane.clouds.gcp"),
    ("accelplane.program", "accelplane.diff"),
    ("accelplane.cli", "accelplane.__main__"),
)
CLOUDS = ("accelplane.clouds.aws", "accelplane.clouds.gcp")


@dataclass(frozen=True)
class Import:
    source: str  # importing module
    target: str  # imported module
    line: int
    function_level: bool
    reason: str  # the comment on or above a function-level import


@dataclass
class Findings:
    module_cycles: list[list[str]] = field(default_factory=list)
    unit_cycles: list[list[str]] = field(default_factory=list)
    upward: list[str] = field(default_factory=list)
    cloud_by_name: list[str] = field(default_factory=list)
    unexplained_function_imports: list[str] = field(default_factory=list)
    unplaced: list[str] = field(default_factory=list)

    def total(self) -> int:
        return sum(len(v) for v in vars(self).values())


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports_of(path: Path, known: set[str]) -> list[Import]:
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    tree = ast.parse(source)
    module = module_name(path)
    found: list[Import] = []

    def comment_near(line: int) -> str:
        """The comment on the import's line, or above the block of imports it stands in."""
        here = lines[line - 1]
        if "#" in here:
            return here.split("#", 1)[1].strip()
        above = line - 2
        while above >= 0 and lines[above].strip().startswith(("from ", "import ")):
            above -= 1
        text = lines[above].strip() if above >= 0 else ""
        return text[1:].strip() if text.startswith("#") else ""

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            targets: list[str] = []
            if isinstance(child, ast.Import):
                targets = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = _resolve(module, child, path.name == "__init__.py")
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in child.names]
            for target in targets:
                # Outside accelplane only imports inside functions matter (each must say why).
                if target.startswith("accelplane") or (in_function and target != "__future__"):
                    found.append(Import(module, target, child.lineno, in_function, comment_near(child.lineno)))
            visit(child, nested)

    visit(tree, False)
    return found


def unit_of(module: str) -> str:
    """The unit a module belongs to: a cloud's folder, a top-level package, or a top-level module."""
    for cloud in CLOUDS:
        if module == cloud or module.startswith(cloud + "."):
            return cloud
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else module


def layer_of(unit: str) -> int | None:
    for index, layer in enumerate(LAYERS):
        if unit in layer:
            return index
    return None


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(10000)

    def strong(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                strong(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            strong(node)
    return out


def check() -> tuple[Findings, list[Import]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    known = {module_name(p) for p in paths}
    every: list[Import] = []
    outside: list[Import] = []
    for path in paths:
        for imp in imports_of(path, known):
            (every if imp.target in known or imp.target == "accelplane" else outside).append(imp)
    findings = Findings()
    for imp in outside:
        if not imp.reason:
            findings.unexplained_function_imports.append(
                f"accelplane/{imp.source.removeprefix('accelplane.').replace('.', '/')}.py:{imp.line}: {imp.target} "
                "imported inside a function without a comment saying why")
    module_edges: dict[str, set[str]] = defaultdict(set)
    unit_edges: dict[str, set[str]] = defaultdict(set)
    for imp in every:
        if imp.target != imp.source and not imp.source.startswith(imp.target + "."):  # a package's own parent
            module_edges[imp.source].add(imp.target)
        source_unit, target_unit = unit_of(imp.source), unit_of(imp.target)
        where = f"accelplane/{imp.source.removeprefix('accelplane.').replace('.', '/')}.py:{imp.line}"
        for unit in (source_unit, target_unit):
            if layer_of(unit) is None and f"{unit} (no layer)" not in findings.unplaced:
                findings.unplaced.append(f"{unit} (no layer)")
        if source_unit != target_unit:
            unit_edges[source_unit].add(target_unit)
            source_layer, target_layer = layer_of(source_unit), layer_of(target_unit)
            if source_layer is not None and target_layer is not None and target_layer > source_layer:
                findings.upward.append(f"{where}: {imp.source} imports {imp.target} (layer {target_layer} above "
                                       f"{source_layer})")
            if target_unit in CLOUDS and source_unit != target_unit and source_unit != "accelplane.clouds":
                findings.cloud_by_name.append(f"{where}: {imp.source} imports the cloud module {imp.target}")
        if imp.function_level and not imp.reason:
            findings.unexplained_function_imports.append(f"{where}: {imp.target} imported inside a function "
                                                         "without a comment saying why")
    findings.module_cycles = _cycles(module_edges)
    findings.unit_cycles = _cycles(unit_edges)
    return findings, every


def main() -> int:
    findings, every = check()
    function_level = sum(1 for i in every if i.function_level)
    print(f"{len(every)} imports between accelplane modules ({function_level} inside functions)")
    for name, items in vars(findings).items():
        print(f"{name.replace('_', ' ')}: {len(items)}")
        for item in items:
            print(f"  {' -> '.join(item) if isinstance(item, list) else item}")
    return 1 if findings.total() else 0


if __name__ == "__main__":
    raise SystemExit(main())
