"""`preview --json FILE`: the offline resource graph as JSON, for a platform or a migration stack."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the engine loads when a preview runs
    from accelplane.engine.graph import OfflineGraph


def write_graph(graph: OfflineGraph, json_file: Path | None) -> None:
    """The graph as JSON to `json_file` (`-`: standard output, alone); nothing without one."""
    from accelplane.report.output import to_stdout, write_file  # start-up time: only when a preview writes

    if json_file is None:
        return
    text = json.dumps(graph.to_json(), indent=2, sort_keys=True) + "\n"
    if to_stdout(json_file):
        sys.stdout.write(text)
    else:
        write_file(text, json_file, "--json")
        print(f"\nwrote {json_file}", file=sys.stderr)
