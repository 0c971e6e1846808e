"""Where the code outside `accelplane/clouds/` still names a cloud: identifiers (variables, functions,
classes, attributes, arguments, modules) with a cloud's word as one of their `_`-separated parts, and
string literals that are a cloud's word or start with one and a colon (a type token, `aws:ec2/...`,
a provider key, `gcp:project`, a branch `cloud == "aws"`). Prose (docstrings, comments, messages)
is not counted: a cloud may be named where it is explained.

`python -m tests.architecture.cloud_names` prints every place; `--write` records the counts per module
in `cloud_names_outside_clouds.json`, which `test_cloud_boundary.py` holds the code to."""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "accelplane"
BUDGET = Path(__file__).with_name("cloud_names_outside_clouds.json")
# A cloud's words: the clouds, their Kubernetes services, their services a stack declares.
WORDS = ("aws", "gcp", "eks", "gke", "ec2", "s3", "gcs", "cloudwatch", "elbv2", "wafv2")
_IN_NAME = re.compile(r"(?:^|_)(" + "|".join(WORDS) + r")(?:_|$)", re.IGNORECASE)
_STRING = re.compile(r"^(" + "|".join(WORDS) + r")(?::\S|$)")  # "aws", "aws:ec2/...", not "AWS: prose"
# The registry of clouds is the one neutral place that may name them (it does so only as data).
EXEMPT = {"accelplane/cloud_support.py"}


def _docstring_lines(tree: ast.AST) -> set[int]:
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                lines.add(first.lineno)
    return lines


def places(path: Path) -> list[tuple[int, str]]:
    """(line, what) for each place the module names a cloud."""
    tree = ast.parse(path.read_text())
    docs = _docstring_lines(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        named: list[str] = []
        if isinstance(node, ast.Name):
            named = [node.id]
        elif isinstance(node, ast.Attribute):
            named = [node.attr]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            named = [node.name]
        elif isinstance(node, ast.arg):
            named = [node.arg]
        elif isinstance(node, ast.ImportFrom) and node.module:
            named = node.module.split(".")
        elif isinstance(node, ast.alias):
            named = node.name.split(".")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.lineno not in docs \
                and _STRING.search(node.value):
            found.append((node.lineno, repr(node.value[:60])))
        found.extend((getattr(node, "lineno", 0), name) for name in named if _IN_NAME.search(name))
    return sorted(set(found))


def counts() -> dict[str, int]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = str(path.relative_to(ROOT))
        if relative.startswith("accelplane/clouds/") or relative in EXEMPT:
            continue
        found = places(path)
        if found:
            out[relative] = len(found)
    return out


def main(argv: list[str]) -> int:
    if "--write" in argv:
        BUDGET.write_text(json.dumps(counts(), indent=1, sort_keys=True) + "\n")
        return 0
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = str(path.relative_to(ROOT))
        if not relative.startswith("accelplane/clouds/") and relative not in EXEMPT:
            for line, what in places(path):
                print(f"{relative}:{line}: {what}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
