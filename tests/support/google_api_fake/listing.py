"""What a list method does to its members before it answers: the `filter` expression and the
pages (`maxResults` in Compute, `pageSize` elsewhere, `pageToken` for the next page).

Filters follow the two grammars Compute documents in its `filter` parameter, which the other APIs
here (Cloud KMS, Secret Manager, Certificate Manager) share in their AIP-160 form:
- `field op value` with op one of `=`, `!=`, `>`, `<`, `>=`, `<=`, `:` (has; `field:*` = defined),
  nested fields dotted (`labels.owner`), several expressions in parentheses or joined with AND /
  OR (AND by default), NOT or `-` to negate one;
- Compute's regular-expression form `field eq 'RE2'` / `field ne 'RE2'` (the whole value must
  match); the two forms cannot be mixed in one request.
An expression the fake cannot parse is a 400, as Google answers an invalid filter: never ignored.

Pages: the fake's `page_size` (1 in the tests, so every client's paging code runs) caps what the
request asks; the token is opaque to clients, and a token the fake did not hand out is a 400.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any

from tests.support.google_api_fake.errors import ApiError

_TOKEN = re.compile(
    r"""\s*(?:(?P<open>\()|(?P<close>\))|(?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')"""
    r"""|(?P<op>!=|>=|<=|=|>|<|:)|(?P<minus>-(?=[A-Za-z]))|(?P<word>[^\s()"'=!<>:]+))"""
)
_REGEX_OPS = {"eq", "ne"}
Predicate = Callable[[dict], bool]


def _lookup(resource: Any, dotted: str) -> Any:
    value = resource
    for part in dotted.split("."):
        if isinstance(value, dict):
            value = value.get(part)
        elif isinstance(value, list):  # a repeated field matches when any element does
            return [_lookup(item, part) for item in value]
        else:
            return None
    return value


def _tokens(text: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    position = 0
    text = text.strip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise _invalid(text, f"unexpected {text[position:position + 10]!r}")
        kind = match.lastgroup or ""
        found.append((kind, match.group(kind)))
        position = match.end()
    return found


def _invalid(text: str, why: str) -> ApiError:
    return ApiError(400, f"Invalid value for field 'filter': {text!r} ({why})")


def _unquote(token: tuple[str, str]) -> str:
    kind, value = token
    if kind == "string":
        return re.sub(r"\\(.)", r"\1", value[1:-1])
    return value


def _matches(actual: Any, op: str, expected: str) -> bool:
    if isinstance(actual, list):
        if op == "!=":
            return all(_matches(item, "=", expected) is False for item in actual)
        return any(_matches(item, op, expected) for item in actual)
    if op == ":" and expected == "*":
        return actual is not None
    if actual is None:
        return op == "!="
    text = ("true" if actual else "false") if isinstance(actual, bool) else str(actual)
    if op in ("=", ":"):
        return text == expected or (op == ":" and isinstance(actual, dict) and expected in actual)
    if op == "!=":
        return text != expected
    try:
        left, right = float(text), float(expected)
    except ValueError:
        left, right = text, expected  # type: ignore[assignment]
    return {">": left > right, "<": left < right, ">=": left >= right, "<=": left <= right}[op]


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.position = 0
        self.forms: set[str] = set()

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise _invalid(self.text, "the expression ends early")
        self.position += 1
        return token

    def parse(self) -> Predicate:
        predicate = self.disjunction()
        if self.peek() is not None:
            raise _invalid(self.text, f"unexpected {self.peek()[1]!r}")  # type: ignore[index]
        if len(self.forms) > 1:
            raise _invalid(self.text, "regular-expression (eq/ne) and comparison forms cannot be mixed")
        return predicate

    def disjunction(self) -> Predicate:
        terms = [self.conjunction()]
        while self.peek() == ("word", "OR"):
            self.take()
            terms.append(self.conjunction())
        return terms[0] if len(terms) == 1 else (lambda r: any(term(r) for term in terms))

    def conjunction(self) -> Predicate:
        terms = [self.negation()]
        while (token := self.peek()) is not None and token[0] != "close" and token != ("word", "OR"):
            if token == ("word", "AND"):
                self.take()
            terms.append(self.negation())
        return terms[0] if len(terms) == 1 else (lambda r: all(term(r) for term in terms))

    def negation(self) -> Predicate:
        if self.peek() in (("word", "NOT"), ("minus", "-")):
            self.take()
            inner = self.primary()
            return lambda r: not inner(r)
        return self.primary()

    def primary(self) -> Predicate:
        token = self.take()
        if token[0] == "open":
            inner = self.disjunction()
            if self.take()[0] != "close":
                raise _invalid(self.text, "a parenthesis is not closed")
            return inner
        if token[0] != "word":
            raise _invalid(self.text, f"expected a field name, got {token[1]!r}")
        field = token[1]
        operator = self.take()
        if operator[0] == "word" and operator[1] in _REGEX_OPS:
            self.forms.add("regex")
            pattern = _unquote(self.take())
            try:
                compiled = re.compile(pattern)
            except re.error as error:
                raise _invalid(self.text, f"bad regular expression: {error}") from None
            wanted = operator[1] == "eq"
            return lambda r: (
                isinstance(value := _lookup(r, field), (str, int, float, bool))
                and bool(compiled.fullmatch(str(value).lower() if isinstance(value, bool) else str(value)))
            ) == wanted
        if operator[0] != "op":
            raise _invalid(self.text, f"expected an operator after {field!r}, got {operator[1]!r}")
        self.forms.add("comparison")
        value_token = self.take()
        if value_token[0] not in ("word", "string"):
            raise _invalid(self.text, f"expected a value after {field} {operator[1]}")
        expected = _unquote(value_token)
        op = operator[1]
        return lambda r: _matches(_lookup(r, field), op, expected)


def apply_filter(members: list[dict], text: str | None) -> list[dict]:
    if not text or not text.strip():
        return members
    predicate = _Parser(text).parse()
    return [member for member in members if predicate(member)]


def _token(offset: int) -> str:
    return base64.urlsafe_b64encode(f"fake-page:{offset}".encode()).decode()


def _offset(token: str) -> int:
    try:
        text = base64.urlsafe_b64decode(token.encode()).decode()
    except (ValueError, UnicodeDecodeError):
        text = ""
    if not text.startswith("fake-page:") or not text[len("fake-page:"):].isdigit():
        raise ApiError(400, "The provided page token is invalid.")
    return int(text[len("fake-page:"):])


def page(members: list[dict], query: dict, *, pages: bool, limit: int) -> tuple[list[dict], str | None]:
    """The members of the page the query asks for, and the next page's token (None on the last)."""
    if not pages:
        return members, None
    asked = query.get("maxResults") or query.get("pageSize")
    size = min(int(asked), limit) if asked and int(asked) > 0 else limit
    start = _offset(str(query["pageToken"])) if query.get("pageToken") else 0
    if start > len(members):
        raise ApiError(400, "The provided page token is invalid.")
    end = start + size
    return members[start:end], (_token(end) if end < len(members) else None)
