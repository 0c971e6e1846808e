"""What a metrics source tells about one backend over the gate window.

Both readers (CloudWatch, Prometheus) fill the same record, so the gates and the reports do not
know where the numbers came from. Counts are floats: Prometheus' `increase()` extrapolates to the
window's edges and returns fractions of a request.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class BackendTraffic:
    requests: float = 0.0
    errors: float = 0.0  # answered 5xx by the backend
    p50_seconds: float | None = None  # None: no latency data in the window
    p99_seconds: float | None = None
    throttled: float | None = None  # answered 429 (rate-limited, shedding load); None: the source does not count

    @property
    def error_rate(self) -> float | None:
        return self.errors / self.requests if self.requests > 0 else None

    @property
    def throttled_rate(self) -> float | None:
        return self.throttled / self.requests if self.requests > 0 and self.throttled is not None else None


Traffic = dict[str, BackendTraffic]


def finite(value: float | None) -> float | None:
    """None for NaN and infinities: `histogram_quantile` over no requests is NaN, not a latency."""
    return value if value is not None and math.isfinite(value) else None
