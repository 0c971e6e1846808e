"""Messages fit for a report line: one line, bounded, and never a pasted error page.

Whatever an API, a proxy or a load balancer answered ends up in table rows, Markdown table cells,
JUnit attributes and CI logs. `one_line` makes any text safe for all of them: an HTML document in
it is reduced to its `<title>` (or its first words), control characters and line breaks become
single spaces, and the result is cut at a limit. Markdown's own escaping (`|`, backticks) is the
Markdown renderer's job; the plain table has no cell syntax to break.

Only the HTML part of a message is touched: `<account>` or `<unreadable>` in a drift message are
the report's own symbols, not markup.
"""

from __future__ import annotations

import html
import re

MESSAGE_LIMIT = 600  # a result's message
API_MESSAGE_LIMIT = 200  # the part of it an API (or whatever answered) wrote

_HTML_START = re.compile(r"<\s*(?:!doctype\s+html|html|head|body)\b", re.IGNORECASE)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_INVISIBLE = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>|<!--.*?-->", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>?")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def looks_like_html(text: str | bytes) -> bool:
    """Whether an HTML document starts within the first KiB (after any whitespace or comment)."""
    head = text[:1024]
    if isinstance(head, bytes):
        head = head.decode("utf-8", "replace")
    return _HTML_START.search(head) is not None


def html_summary(document: str, limit: int = 80) -> str:
    """An HTML page as a few words: its title, else the start of its visible text."""
    title = _TITLE.search(document)
    text = title.group(1) if title else _TAG.sub(" ", _INVISIBLE.sub(" ", document))
    summary = one_line(html.unescape(text), limit)
    return summary or "an empty page"


def one_line(text: object, limit: int = MESSAGE_LIMIT) -> str:
    """`text` as one bounded line with no markup from an HTML page in it."""
    value = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    start = _HTML_START.search(value)
    if start is not None:
        value = f"{value[: start.start()]}[HTML page: {html_summary(value[start.start():])}]"
    value = " ".join(_CONTROL.sub(" ", value).split())
    if len(value) > limit:
        value = value[: max(0, limit - 1)].rstrip() + "…"
    return value
