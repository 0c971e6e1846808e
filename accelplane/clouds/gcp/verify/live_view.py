"""The Google Cloud live view: the network and the GKE cluster read with the fewest calls (one
list per collection; a cluster's node pools come with it), matched to the declared resources by
name (pulumi-gcp's autonamed `<logical name>-<7 hex>` where the program gives none), in the
declared shape (`shapes`).

What nobody declared but sits inside what the stack owns is drift too: a firewall rule on the
platform's network, a subnetwork in it, a NAT on its router, a node pool in its cluster. What
Google creates for a cluster is known and not reported (`GOOGLE_MANAGED_FIREWALL_PREFIXES`). A
collection that could not be read makes its declared resources unreadable (a read error, never a
pass), and the declared types not read here are counted as not verified.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from accelplane.clouds.gcp.clients import GcpClients, GcpReadError
from accelplane.clouds.gcp.verify import shapes
from accelplane.clouds.gcp.verify.live_audit import AuditReader
from accelplane.clouds.gcp.verify.live_certificates import CertificateReader
from accelplane.clouds.gcp.verify.live_cluster import (
    POLICY_KINDS,
    read_policies,
    verify_access,
)
from accelplane.clouds.gcp.verify.live_security import SecurityReader
from accelplane.clouds.gcp.verify.live_storage import StorageReader
from accelplane.clouds.gcp.verify.shapes import (
    CLUSTER,
    FIREWALL,
    GLOBAL_ADDRESS,
    NETWORK,
    NODE_POOL,
    ROUTER,
    ROUTER_NAT,
    SECURITY_POLICY,
    SSL_POLICY,
    SUBNETWORK,
)
from accelplane.rules.view import Resource
from accelplane.verify.canonical import symbol
from accelplane.verify.declared import ACCOUNT_SYMBOL, DeclaredPlatform
from accelplane.verify.live import LiveView, Unexpected

VERIFIED_TYPES = frozenset(shapes.FIELDS)
# Firewall rules GKE and its Ingress / Gateway controllers create on the cluster's network
# (GKE docs, "Automatically created firewall rules"): gke-<cluster>-<hash>-{all,master,vms,…},
# k8s-fw-… and k8s2-… (Ingress), gkegw1-… (Gateway).
GOOGLE_MANAGED_FIREWALL_PREFIXES = ("gke-", "k8s-", "k8s2-", "gkegw1-")


def _autonamed(logical: str, physical: str) -> bool:
    return re.fullmatch(re.escape(logical) + r"-[0-9a-f]{7}", physical) is not None


class GcpViewBuilder:
    def __init__(self, clients: GcpClients, declared: DeclaredPlatform) -> None:
        self.clients = clients
        self.declared = declared
        self.project = clients.project
        self.region = declared.platform.region
        self.view = LiveView(symbols=declared.symbols())
        self.errors: list[GcpReadError] = []
        self.security = SecurityReader(self)
        self.storage = StorageReader(self)
        self.certificates = CertificateReader(self)
        self.audit = AuditReader(self)

    # -- reading -----------------------------------------------------------------------------

    def _read(self, types: Iterable[str], read: Callable[[], Any]) -> Any:
        """`read()`, or None after marking every declared resource of `types` unreadable."""
        try:
            return read()
        except GcpReadError as error:
            self.errors.append(error)
            for type_token in types:
                for resource in self.declared.of_type(type_token):
                    self.view.unreadable[resource.urn] = f"{error.operation} failed: {error.code}: {error.message}"
            return None

    def build(self) -> LiveView:
        self.view.symbols.add(self.project, ACCOUNT_SYMBOL, live=True)
        if any(self.declared.of_type(t) for t in (NETWORK, SUBNETWORK, FIREWALL, ROUTER, ROUTER_NAT)):
            self._network()
        if self.declared.of_type(CLUSTER):
            self._clusters()
        self._cluster_policies()
        self._endpoint()
        self.security.read()
        self.storage.read()
        self.certificates.read()
        self.audit.read(self.security.project_policy)
        for resource in self.declared.resources:
            if resource.type.startswith(("gcp:", "kubernetes:")) and (
                resource.type not in VERIFIED_TYPES or resource.urn in self.view.not_read
            ):
                self.view.unverified[resource.type] += 1
            elif not resource.type.startswith("gcp:") and resource.urn not in self.view.matched:
                self.view.resources.append(resource)  # components: the rules keep parent and child
        return self.view

    def _network(self) -> None:
        compute = self.clients.service("compute")
        networks = self._read(
            (NETWORK, SUBNETWORK, FIREWALL, ROUTER, ROUTER_NAT),
            lambda: self.clients.pages(compute.networks(), "items", project=self.project),
        )
        if networks is None:
            return
        matched_networks = self._match_all(NETWORK, networks)
        owned = {shapes.relative(item.get("selfLink")) for item in matched_networks.values()}

        def on_network(item: dict) -> bool:
            return shapes.relative(item.get("network")) in owned

        subnetworks = self._read(
            (SUBNETWORK,),
            lambda: self.clients.pages(compute.subnetworks(), "items", project=self.project, region=self.region),
        )
        if subnetworks is not None:
            self._match_all(SUBNETWORK, subnetworks, owned_by=on_network)
        firewalls = self._read(
            (FIREWALL,), lambda: self.clients.pages(compute.firewalls(), "items", project=self.project)
        )
        if firewalls is not None:
            self._match_all(
                FIREWALL,
                firewalls,
                owned_by=lambda item: (
                    shapes.relative(item.get("network")) in owned
                    and not str(item.get("name", "")).startswith(GOOGLE_MANAGED_FIREWALL_PREFIXES)
                ),
            )
        routers = self._read(
            (ROUTER, ROUTER_NAT),
            lambda: self.clients.pages(compute.routers(), "items", project=self.project, region=self.region),
        )
        if routers is not None:
            matched_routers = self._match_all(ROUTER, routers, owned_by=on_network)
            for router in matched_routers.values():
                nats = [
                    {**nat, "region": router.get("region"), "router": router.get("name")}
                    for nat in router.get("nats") or []
                ]
                self._match_all(
                    ROUTER_NAT,
                    nats,
                    owned_by=lambda _nat: True,
                    live_id=lambda nat, r=router: f"{self.project}/{self.region}/{r['name']}/{nat['name']}",
                )

    def _endpoint(self) -> None:
        """The inference endpoint's global address, SSL policy and Cloud Armor policy."""
        compute = self.clients.service("compute")
        for type_token, collection in (
            (GLOBAL_ADDRESS, compute.globalAddresses),
            (SSL_POLICY, compute.sslPolicies),
            (SECURITY_POLICY, compute.securityPolicies),
        ):
            if not self.declared.of_type(type_token):
                continue
            items = self._read(
                (type_token,), lambda c=collection: self.clients.pages(c(), "items", project=self.project)
            )
            if items is not None:
                self._match_all(type_token, items)

    def _clusters(self) -> None:
        container = self.clients.service("container")
        clusters: list[dict] = []
        for location in sorted({str(r.props.get("location") or self.region) for r in self.declared.of_type(CLUSTER)}):
            parent = f"projects/{self.project}/locations/{location}"
            answer = self._read(
                (CLUSTER, NODE_POOL),
                lambda parent=parent: self.clients.read(
                    container.projects().locations().clusters().list(parent=parent), list_field="clusters"
                ),
            )
            if answer is None:
                return
            clusters += answer.get("clusters") or []
        matched = self._match_all(CLUSTER, clusters, live_id=self._cluster_id)
        pools: list[dict] = []
        for cluster in matched.values():
            cluster_id = self._cluster_id(cluster)
            pools += [{**pool, "_cluster": cluster_id} for pool in cluster.get("nodePools") or []]
        matched_ids = {self._cluster_id(cluster) for cluster in matched.values()}
        self._match_all(
            NODE_POOL,
            pools,
            owned_by=lambda pool: pool["_cluster"] in matched_ids,
            live_id=lambda pool: f"{pool['_cluster']}/nodePools/{pool['name']}",
            same_parent=lambda resource, pool: str(resource.props.get("cluster", "")).endswith(
                "/clusters/" + pool["_cluster"].rsplit("/", 1)[-1]
            ),
        )

    def _cluster_policies(self) -> None:
        """The Gateway's policies, read in the cluster (`live_cluster`); where the cluster's API cannot be
        reached, they are counted as not verified, with why."""
        declared = [resource for kind in POLICY_KINDS for resource in self.declared.of_type(kind)]
        if not declared:
            return
        cluster = next((self.view.raw[urn] for urn, live in self.view.matched.items() if live.type == CLUSTER), None)
        reason: str | None = "the cluster was not read"
        if cluster is not None:
            access = verify_access(self.clients, cluster)
            if isinstance(access, str):
                reason = access
            else:
                found, reason = read_policies(access, declared)
                for resource in declared:
                    if resource.urn in found:
                        item = found[resource.urn]
                        metadata = item.get("metadata") or {}
                        self._live(resource, resource.type, f"{metadata.get('namespace')}/{metadata.get('name')}",
                                   {**item, "name": metadata.get("name")})
        if reason is None:
            return
        for resource in declared:
            if resource.urn not in self.view.matched:
                self.view.not_read.add(resource.urn)
                self.view.unverified_reason[resource.type] = f"the cluster's API was not read: {reason}"

    def _cluster_id(self, cluster: Mapping[str, Any]) -> str:
        return f"projects/{self.project}/locations/{cluster.get('location')}/clusters/{cluster.get('name')}"

    # -- matching ----------------------------------------------------------------------------

    def _match_all(
        self,
        type_token: str,
        items: list[dict],
        *,
        owned_by: Callable[[dict], bool] | None = None,
        live_id: Callable[[dict], str] | None = None,
        same_parent: Callable[[Resource, dict], bool] | None = None,
    ) -> dict[str, dict]:
        """Declared URN -> live item; unmatched items `owned_by` the stack are unexpected."""
        ident = live_id or (lambda item: shapes.relative(item.get("selfLink")) or str(item.get("name")))
        matched: dict[str, dict] = {}
        taken: set[int] = set()
        for resource in self.declared.of_type(type_token):
            wanted = resource.props.get("name")
            for index, item in enumerate(items):
                name = str(item.get("name", ""))
                if index in taken or not (name == wanted if wanted else _autonamed(resource.name, name)):
                    continue
                if same_parent is not None and not same_parent(resource, item):
                    continue
                taken.add(index)
                matched[resource.urn] = item
                self._live(resource, type_token, ident(item), item)
                break
        if owned_by is not None:
            for index, item in enumerate(items):
                if index not in taken and owned_by(item):
                    live = self._live(None, type_token, ident(item), item)
                    self.view.unexpected.append(Unexpected(live, f"a {type_token.rsplit(':', 1)[-1]} nobody declared"))
        return matched

    def _live(self, declared: Resource | None, type_token: str, live_id: str, item: dict) -> Resource:
        props = shapes.to_wire(type_token, item)
        if declared is not None:
            for key in shapes.CARRIED.get(type_token, ()):
                if key in declared.props:
                    props[key] = declared.props[key]
        name = str(item.get("name", live_id))
        resource = Resource(
            urn=declared.urn if declared else f"urn:pulumi:{self.declared.stack}::live::{type_token}::{name}",
            type=type_token,
            name=declared.name if declared else name,
            props=props,
            parent=declared.parent if declared else None,
            protect=declared.protect if declared else False,
            id=live_id,
            outputs={"name": name, "selfLink": item.get("selfLink")} if item.get("selfLink") else {"name": name},
        )
        self.view.resources.append(resource)
        self.view.read[type_token] += 1
        if declared is not None:
            self.view.matched[declared.urn] = resource
            self.view.raw[declared.urn] = item
            verbatim = {value for value in declared.props.values() if isinstance(value, str)}
            for token in (live_id, name, shapes.relative(item.get("selfLink"))):
                if isinstance(token, str) and token not in verbatim:
                    self.view.symbols.add(token, symbol(declared.name), live=True)
        return resource
