"""What the per-service readers (`live_security`, `live_storage`) use of the view builder
(`live_view.GcpViewBuilder`), named apart so that the builder may import them without them
importing it back."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from accelplane.clouds.gcp.clients import GcpClients
from accelplane.rules.view import Resource
from accelplane.verify.declared import DeclaredPlatform
from accelplane.verify.live import LiveView


class ViewBuilder(Protocol):
    clients: GcpClients
    project: str
    declared: DeclaredPlatform
    view: LiveView

    def _read(self, types: Iterable[str], read: Callable[[], Any]) -> Any:
        """`read()`, or None after marking every declared resource of `types` unreadable."""
        ...

    def _live(self, declared: Resource | None, type_token: str, live_id: str, item: dict) -> Resource:
        """The live item in the declared shape, added to the view (matched to `declared` if given)."""
        ...

    def _match_all(
        self,
        type_token: str,
        items: list[dict],
        *,
        owned_by: Callable[[dict], bool] | None = None,
        live_id: Callable[[dict], str] | None = None,
    ) -> dict[str, dict]:
        """Declared URN -> live item, by name; unmatched items `owned_by` the stack are unexpected."""
        ...
