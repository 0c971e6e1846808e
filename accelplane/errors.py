"""Errors that reach the user as a clear message and exit code 2 (never a traceback).

Every input problem names where it is: the file, the line when known, the field path, and what
was expected. The CLI catches `InputError` at the top and prints `str(error)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input: where it is and what was expected."""

    file: str | None
    line: int | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = self.file or "<input>"
        if self.line is not None:
            where = f"{where}:{self.line}"
        if self.field:
            return f"{where}: {self.field}: {self.message}"
        return f"{where}: {self.message}"


@dataclass
class InputError(Exception):
    """Bad input or usage. Carries one or more problems; the CLI prints them and exits 2."""

    problems: list[Problem] = field(default_factory=list)

    @classmethod
    def single(
        cls, message: str, *, file: str | None = None, line: int | None = None, field: str | None = None
    ) -> InputError:
        return cls([Problem(file=file, line=line, field=field, message=message)])

    def __str__(self) -> str:
        text = "\n".join(f"error: {p}" for p in self.problems)
        # A file name that is not UTF-8 arrives with lone surrogates (os.fsdecode): escaped, as
        # Python's stderr shows them, the message prints on any stream instead of raising there.
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
