"""The error a fake method raises: the HTTP status and message it answers with."""

from __future__ import annotations


class ApiError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
