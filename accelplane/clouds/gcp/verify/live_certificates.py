"""The inference Gateway's certificate as verify reads it: the Certificate Manager map the Gateway
names (`networking.gke.io/certmap`), its entries, and the certificates they serve.

The map is matched by its full name; entries by their matcher (`PRIMARY`) or hostname within it,
so an entry added by hand (another hostname, another certificate) is one nobody declared. Each
certificate an entry serves is read (`certificates.get`) for the state checks: a managed
certificate Google has not provisioned (`managed.state` other than ACTIVE) or one that expires
soon or has expired (`live.certificate`).
"""

from __future__ import annotations

from typing import Any

from accelplane.clouds.gcp.verify.shapes import CERT_MAP, CERT_MAP_ENTRY
from accelplane.clouds.gcp.verify.view_builder import ViewBuilder
from accelplane.verify.live import Unexpected


class CertificateReader:
    def __init__(self, builder: ViewBuilder) -> None:
        self.b = builder
        self.clients = builder.clients
        self.certificates: dict[str, dict[str, Any]] = {}  # full name -> Certificate, for the state checks

    def read(self) -> None:
        maps = self.b.declared.of_type(CERT_MAP)
        if not maps:
            return
        manager = self.clients.service("certificatemanager").projects().locations()
        parent = f"projects/{self.b.project}/locations/global"
        found = self.b._read(
            (CERT_MAP, CERT_MAP_ENTRY),
            lambda: self.clients.pages(manager.certificateMaps(), "certificateMaps", parent=parent),
        )
        if found is None:
            return
        by_name = {str(item.get("name")): item for item in found}
        for resource in maps:
            name = f"{parent}/certificateMaps/{resource.props.get('name')}"
            item = by_name.get(name)
            if item is not None:
                self.b._live(resource, CERT_MAP, name, item)
                self._entries(manager, name, str(resource.props.get("name")))

    def _entries(self, manager: Any, map_name: str, short: str) -> None:
        entries = self.b._read(
            (CERT_MAP_ENTRY,),
            lambda: self.clients.pages(
                manager.certificateMaps().certificateMapEntries(), "certificateMapEntries", parent=map_name
            ),
        )
        if entries is None:
            return
        declared = [r for r in self.b.declared.of_type(CERT_MAP_ENTRY) if r.props.get("map") == short]
        taken: set[int] = set()
        for resource in declared:
            for index, item in enumerate(entries):
                same = (item.get("hostname") == resource.props.get("hostname")) if resource.props.get("hostname") \
                    else item.get("matcher") == resource.props.get("matcher")
                if index not in taken and same:
                    taken.add(index)
                    self.b._live(resource, CERT_MAP_ENTRY, str(item.get("name")), item)
                    break
        for index, item in enumerate(entries):
            if index not in taken:
                live = self.b._live(None, CERT_MAP_ENTRY, str(item.get("name")), item)
                self.b.view.unexpected.append(Unexpected(live, f"a certificate map entry nobody declared in {short}"))
        for item in entries:
            for certificate in item.get("certificates") or []:
                if certificate not in self.certificates:
                    answer = self.b._read(
                        (),
                        lambda c=certificate: self.clients.read(manager.certificates().get(name=c)),
                    )
                    if answer is not None:
                        self.certificates[certificate] = answer
