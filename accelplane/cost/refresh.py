"""`accelplane prices refresh`: new prices from price lists a user downloaded, written as tables to review.

Each cloud reads its own price lists (its `accelplane.price_lists` facet: `accelplane.cost.price_lists`);
this module reads and writes the tables. Only rows a table already knows are refreshed (a new instance
type is added by hand with its source first); every change is listed. A file that is not in the
expected format is an InputError, and no table is written unless every one could be built.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path

import yaml

from accelplane.config.yaml_source import read_yaml
from accelplane.cost.cloud_pricing import table_path
from accelplane.cost.price_lists import installed_price_lists
from accelplane.cost.prices import TABLE_LIMIT, parse_table


def refresh_tables(
    files: Mapping[str, Mapping[str, Sequence[Path]]], *, output_dir: Path | None = None,
    retrieved: str | None = None,
) -> list[str]:
    """Refresh the table of each cloud given files (cloud -> option -> files: its shipped table, or the
    copy in `output_dir`); returns the lines to print (each change, then each file written)."""
    day = date.fromisoformat(retrieved) if retrieved else date.today()
    lines: list[str] = []
    writes: list[tuple[Path, str, int]] = []  # every table is built before any is written
    for facet in installed_price_lists():
        given = files.get(facet.cloud) or {}
        if not any(given.values()):
            continue
        cloud = facet.cloud
        shipped = table_path(cloud)
        out = output_dir / f"{cloud}.yaml" if output_dir else shipped
        source = out if out.is_file() else shipped
        document = read_yaml(source, limit=TABLE_LIMIT, option="price table")
        table = parse_table(document)
        data = copy.deepcopy(document.data)  # shared YAML anchors become independent regions
        data["regions"] = {name: copy.deepcopy(value) for name, value in data["regions"].items()}
        changed = facet.refresh(data, table, given, day)
        lines.extend(changed)
        data["retrieved"] = day.isoformat()
        parse_table(type(document)(path=str(source), data=data, root=None))  # still a valid table
        header = "".join(line + "\n" for line in document_header(source))
        writes.append((out, header + yaml.safe_dump(data, sort_keys=False, width=120),
                       len(changed)))
    for out, text, count in writes:
        out.write_text(text, encoding="utf-8")
        lines.append(f"wrote {out} ({count} price(s) changed)")
    return lines


def document_header(path: Path) -> list[str]:
    """The table's leading comment block, kept across refreshes."""
    header = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        header.append(line)
    return header
