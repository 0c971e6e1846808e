"""check-jsonschema (pinned in requirements.txt) run offline: it vendors the GitHub workflow schema."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from tests.support.prerequisites import missing

ROOT = Path(__file__).resolve().parents[2]
# Proxies nobody listens on: a schema check that needed the network would fail, not hang.
_OFFLINE = {"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9", "NO_PROXY": "",
            "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9", "no_proxy": ""}


def check_jsonschema(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run the pinned check-jsonschema (requirements.txt), offline."""
    if importlib.util.find_spec("check_jsonschema") is None:
        missing("check-jsonschema is not installed (pinned in requirements.txt; run make)")
    return subprocess.run([sys.executable, "-m", "check_jsonschema", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **_OFFLINE}, timeout=120, check=False)
