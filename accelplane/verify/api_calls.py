"""Counts of a verify run's API calls by `service.operation`, with retries and errors: the report's
and the bench's figures, the same on every cloud."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any


class ApiCalls:
    """Thread-safe counts of API calls by `service.Operation`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls: Counter[str] = Counter()
        self.retries: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        # The most seconds the run's reading may take, whatever the API does (None: not bounded).
        self.bound_seconds: float | None = None

    def record(self, key: str, *, retries: int = 0, error: bool = False) -> None:
        with self._lock:
            self.calls[key] += 1
            if retries:
                self.retries[key] += retries
            if error:
                self.errors[key] += 1

    @property
    def total(self) -> int:
        return sum(self.calls.values())

    def to_json(self) -> dict[str, Any]:
        with self._lock:
            return {
                "total": sum(self.calls.values()),
                "retries": sum(self.retries.values()),
                "errors": sum(self.errors.values()),
                "by_operation": dict(sorted(self.calls.items())),
                **({"bound_seconds": self.bound_seconds} if self.bound_seconds is not None else {}),
            }
