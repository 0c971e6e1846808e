"""The repository stands alone: no file points outside it (the design notes and conventions it
relies on are in docs/), and every docs/ file the code or README names exists."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_OUTSIDE = re.compile(r"\.\./shared|shared/reference|(?<![\w/])(?:DESIGN|STYLE)\.md")
_DOCS = re.compile(r"docs/[\w.-]+\.md")


def _tracked_text_files() -> list[Path]:
    names = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split()
    out = []
    for name in names:
        path = ROOT / name
        if path.is_file() and path.suffix in {".py", ".md", ".yaml", ".yml", ".json", ".cfg", ".toml", ".txt", ""}:
            out.append(path)
    return out


def test_no_file_points_outside_the_repository() -> None:
    this = Path(__file__).resolve()
    offenders = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
                 for path in _tracked_text_files() if path.resolve() != this
                 for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
                 if _OUTSIDE.search(line)]
    assert offenders == []


def test_every_docs_file_named_exists() -> None:
    named = {match for path in _tracked_text_files()
             for match in _DOCS.findall(path.read_text(errors="replace"))}
    assert named and sorted(name for name in named if not (ROOT / name).is_file()) == []
