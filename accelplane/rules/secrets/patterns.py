"""What secret material looks like in text (user data, environment values)."""

from __future__ import annotations

import re

_TOKEN_PATTERNS = (
    ("an AWS access key id", re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("a private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
    ("a GitHub token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}\b")),
    ("a Hugging Face token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b")),
    ("a Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b")),
    ("a Weights & Biases key", re.compile(r"\bWANDB_API_KEY\s*=\s*['\"]?[0-9a-f]{40}\b")),
)
_ASSIGNMENT = re.compile(
    r"(?i)\b([A-Z0-9_]*(PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIALS?))\b"
    r"\s*[=:]\s*['\"]?([^\s'\"]{8,})"
)
SECRET_NAME = re.compile(r"(?i)(PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIAL)")


def _is_reference(value: str) -> bool:
    """`$VAR`, `${VAR}`, `$(command ...)`, `{{ template }}`: fetched at run time, not a literal secret."""
    return value.startswith(("$", "{{", "<")) or "secretsmanager" in value or "ssm" in value


def secrets_in(text: str) -> list[str]:
    """What kinds of secret material `text` holds (empty when none)."""
    found = [what for what, pattern in _TOKEN_PATTERNS if pattern.search(text)]
    for match in _ASSIGNMENT.finditer(text):
        if not _is_reference(match.group(3)):
            found.append(f"a literal value for {match.group(1)}")
    return found
