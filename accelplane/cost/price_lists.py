"""How a cloud's price table is refreshed from price lists a user downloaded: an optional facet, an
`accelplane.price_lists` entry point naming a `CloudPriceLists` (`<cloud> = <module>:<object>`).

The facet module is light — `accelplane prices refresh` builds its options from every installed
cloud's lists when the command line is built — and the cloud's parsing loads only when it runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from accelplane.cloud_support import installed_facets
from accelplane.errors import InputError
from accelplane.input_files import read_text

if TYPE_CHECKING:  # annotations only: the table model loads when a refresh runs
    from accelplane.cost.prices import PriceTable

ENTRY_POINT_GROUP = "accelplane.price_lists"
PRICE_LIST_LIMIT = 512 * 1024 * 1024  # a region's EC2 offer file is a few hundred MB

# (the table's data, edited in place; the table as parsed; the files given, by option; the day they
# were retrieved) -> one line per price that changed
Refresh = Callable[[dict[str, Any], "PriceTable", Mapping[str, Sequence[Path]], date], list[str]]


@dataclass(frozen=True)
class PriceList:
    """One kind of downloaded price list: `accelplane prices refresh <flag> FILE` (repeatable)."""

    flag: str
    help: str


@dataclass(frozen=True)
class CloudPriceLists:
    cloud: str
    lists: tuple[PriceList, ...]
    refresh: Refresh  # imports the cloud's parsing on first call


@cache
def installed_price_lists() -> tuple[CloudPriceLists, ...]:
    return installed_facets(ENTRY_POINT_GROUP, CloudPriceLists)


def read_price_list(path: Path, option: str) -> Any:
    """A downloaded price list's JSON; `InputError` (file and line) where it is not JSON."""
    text = read_text(path, limit=PRICE_LIST_LIMIT, option=option)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError.single(f"not JSON ({error.msg})", file=str(path), line=error.lineno) from None


def price_changes(old: Any, new: float, where: str) -> Iterator[str]:
    if old is None or abs(float(old) - new) > 1e-9:
        yield f"{where}: {old if old is not None else 'none'} -> {new:g}"
