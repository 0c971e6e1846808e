"""Google Cloud's capacity purchases (`accelplane.purchases` entry point): a calendar-mode future
reservation, whose request terms the program sends once (accelplane/clouds/gcp/future_reservation.py:
the provider replaces it on a new name or description, and sends the rest as an amendment Google
reviews again)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelplane.capacity.purchases import Purchases
from accelplane.clouds.gcp.future_reservation import REQUEST_TERMS
from accelplane.clouds.gcp.future_reservation_terms import RequestTerms, commitment_usd
from accelplane.clouds.gcp.resource_types import FUTURE_RESERVATION


def _describe(resource: Mapping[str, Any]) -> str:
    inputs = resource.get("inputs")
    terms = RequestTerms.of(str(resource.get("urn") or "?").rsplit("::", 1)[-1],
                            dict(inputs) if isinstance(inputs, Mapping) else {})
    estimate = commitment_usd(terms)
    cost = f", up to ${estimate:,.2f} at on-demand prices" if estimate is not None else ""
    machines = f"{terms.machines} x {terms.machine}" if terms.machines and terms.machine else "?"
    approval = (f", approved by {terms.approved_by} on {terms.approved_on}" if terms.approved_by
                else ", not approved")
    return (f"future reservation {terms.name} ({machines} in {terms.zone or '?'}, {terms.dates()}{cost}"
            f"{approval})")


PURCHASES = Purchases(cloud="gcp", types={FUTURE_RESERVATION: REQUEST_TERMS}, describe=_describe)
