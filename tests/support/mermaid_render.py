"""Render a Mermaid block with the real mermaid (the pinned release `fetch_mermaid.sh` fetched) in
Debian's headless Chromium, and return the rendered page: what GitHub and GitLab do with a
```mermaid block, without a browser download. A syntax error makes mermaid refuse; that is reported
as `RenderError` with mermaid's own message."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

from tests.support.prerequisites import missing

MERMAID_VERSION = "12.4.0"
MERMAID_JS = Path(__file__).resolve().parents[1] / ".cache" / "mermaid" / MERMAID_VERSION / "mermaid.min.js"

_PAGE = """<!doctype html><html><head><meta charset="utf-8"></head><body>
<pre class="mermaid" id="picture">{source}</pre>
<script src="{script}"></script>
<script>
mermaid.initialize({{startOnLoad: false, securityLevel: "strict"}});
mermaid.run({{querySelector: "#picture"}})
  .then(() => {{ document.body.dataset.state = "rendered"; }})
  .catch((e) => {{
    document.body.dataset.state = "error";
    document.body.dataset.error = String(e && e.message || e);
  }});
</script></body></html>
"""


class RenderError(Exception):
    pass


def chromium() -> str:
    found = shutil.which("chromium")
    if found is None:
        missing("chromium is not installed (apt-get install chromium)")
    if not MERMAID_JS.is_file():
        missing(f"mermaid {MERMAID_VERSION} is not fetched (bash tests/support/fetch_mermaid.sh)")
    return found  # type: ignore[return-value]


def render(source: str, workdir: Path) -> str:
    """The rendered page's DOM (the SVG inside); RenderError when mermaid refuses the source."""
    browser = chromium()
    page = workdir / "picture.html"
    page.write_text(_PAGE.format(source=html.escape(source), script=MERMAID_JS.as_uri()), encoding="utf-8")
    result = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
         f"--user-data-dir={workdir / 'profile'}", "--virtual-time-budget=20000", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120, check=False)
    dom = result.stdout
    state = re.search(r'data-state="([a-z]+)"', dom)
    if state is None:
        raise RenderError(f"chromium did not finish rendering (exit {result.returncode}): {result.stderr[-500:]}")
    if state.group(1) != "rendered":
        error = re.search(r'data-error="([^"]*)"', dom)
        raise RenderError(html.unescape(error.group(1)) if error else "mermaid refused the picture")
    return dom


def svg_text(dom: str) -> str:
    """The text the rendered SVG shows (labels of nodes, subgraphs and edges), tags stripped."""
    svg = dom[dom.index("<svg"): dom.rindex("</svg>")]
    return html.unescape(re.sub(r"<[^>]+>", " ", svg))
