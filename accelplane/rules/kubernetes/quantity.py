"""Kubernetes resource quantities ("500m", "4Gi", "1e3", 8) as exact numbers.

The suffixes are the API's: decimal SI (m, k, M, G, T, P, E), binary (Ki … Ei) and decimal exponents
(https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

_SUFFIX = {
    "": Decimal(1), "m": Decimal("0.001"), "k": Decimal(10) ** 3, "M": Decimal(10) ** 6, "G": Decimal(10) ** 9,
    "T": Decimal(10) ** 12, "P": Decimal(10) ** 15, "E": Decimal(10) ** 18,
    "Ki": Decimal(2) ** 10, "Mi": Decimal(2) ** 20, "Gi": Decimal(2) ** 30, "Ti": Decimal(2) ** 40,
    "Pi": Decimal(2) ** 50, "Ei": Decimal(2) ** 60,
}
_QUANTITY = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[mkMGTPE]|[eE][+-]?\d+)?$")


def parse_quantity(value: Any) -> Decimal | None:
    """The quantity's value, or None when it is not one (a typo, an unknown value)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return Decimal(str(value))
    if not isinstance(value, str):
        return None
    match = _QUANTITY.match(value.strip())
    if match is None:
        return None
    number, suffix = match[1], match[2] or ""
    try:
        if suffix[:1] in ("e", "E"):
            return Decimal(number) * (Decimal(10) ** int(suffix[1:]))
        return Decimal(number) * _SUFFIX[suffix]
    except (InvalidOperation, KeyError):
        return None


def show(amount: Decimal) -> str:
    """A quantity as people write it back: whole numbers without a fraction."""
    return str(int(amount)) if amount == amount.to_integral_value() else format(amount.normalize(), "f")
