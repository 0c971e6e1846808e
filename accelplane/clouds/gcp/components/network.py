"""`PlatformNetwork`: the VPC, the private node subnet with pod and service ranges, NAT and firewall.

- The VPC has no auto subnets (an auto-mode VPC creates a /20 in every region, all reachable).
- One private subnet for the nodes: no external IPs (GKE private nodes), Private Google Access on
  so nodes reach Google APIs (Artifact Registry, GCS, Secret Manager) without NAT, and two
  secondary ranges GKE uses VPC-native for pods and services. Flow logs on.
- Cloud Router + Cloud NAT give the private nodes egress (image pulls from outside Google);
  NAT logs errors only (translations would log every connection).
- Firewall, least privilege. Custom VPCs start with only the implied rules (deny all ingress,
  allow all egress); nothing here adds an `allow` beyond what the load balancer needs:
  * Google's load-balancer proxies and health checkers (35.191.0.0/16 and 130.211.0.0/22, per
    https://cloud.google.com/load-balancing/docs/health-check-concepts#ip-ranges and
    https://cloud.google.com/load-balancing/docs/firewall-rules) to the nodes, only on the
    inference target ports, only on instances running as the node service account. With
    container-native load balancing the targets are pod IPs, which are alias IPs of the node VMs,
    so a rule targeting the nodes covers them.
  * An explicit deny of SSH (22) and RDP (3389) from anywhere, ahead of the priority (1000) at
    which allow rules are usually added, so a later hand-made "allow 22" stays blocked.
  GKE creates its own narrowly scoped rules (control plane to kubelet, node to node, pod to pod)
  when it creates the cluster; they are GKE's, not declared here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_gcp.compute as compute

# Source ranges of Google Front Ends and health checkers for external Application Load
# Balancers (the GKE Gateway's `gke-l7-global-external-managed` class) and their health checks.
GOOGLE_LOAD_BALANCER_RANGES = ("35.191.0.0/16", "130.211.0.0/22")
SSH_RDP_PORTS = ("22", "3389")
PODS_RANGE_NAME = "pods"
SERVICES_RANGE_NAME = "services"


@dataclass(frozen=True)
class NetworkArgs:
    region: str
    node_cidr: str
    pods_cidr: str
    services_cidr: str
    # Ports the load balancer and its health checks reach on the nodes (the inference target
    # port); empty when the platform has no endpoint: then no allow rule at all.
    load_balancer_target_ports: Sequence[int]
    # The node service account: firewall rules target instances running as it, never the whole VPC.
    node_service_account_email: pulumi.Input[str]
    flow_log_sampling: float = 0.5


class PlatformNetwork(pulumi.ComponentResource):
    network_id: pulumi.Output[str]
    network_self_link: pulumi.Output[str]
    subnet_id: pulumi.Output[str]
    subnet_self_link: pulumi.Output[str]
    pods_range_name: str
    services_range_name: str
    router_name: pulumi.Output[str]

    def __init__(self, name: str, args: NetworkArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:gcp:PlatformNetwork", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        network = compute.Network(
            f"{name}-vpc",
            auto_create_subnetworks=False,
            routing_mode="REGIONAL",
            description="accelplane platform network",
            opts=child,
        )
        subnet = compute.Subnetwork(
            f"{name}-nodes",
            network=network.id,
            region=args.region,
            ip_cidr_range=args.node_cidr,
            private_ip_google_access=True,
            secondary_ip_ranges=[
                {"range_name": PODS_RANGE_NAME, "ip_cidr_range": args.pods_cidr},
                {"range_name": SERVICES_RANGE_NAME, "ip_cidr_range": args.services_cidr},
            ],
            log_config={
                "aggregation_interval": "INTERVAL_5_SEC",
                "flow_sampling": args.flow_log_sampling,
                "metadata": "INCLUDE_ALL_METADATA",
            },
            opts=child,
        )
        router = compute.Router(f"{name}-router", network=network.id, region=args.region, opts=child)
        compute.RouterNat(
            f"{name}-nat",
            router=router.name,
            region=args.region,
            nat_ip_allocate_option="AUTO_ONLY",
            # Only the node subnet (all its ranges: nodes and pods) is translated, not the whole VPC.
            source_subnetwork_ip_ranges_to_nat="LIST_OF_SUBNETWORKS",
            subnetworks=[{"name": subnet.id, "source_ip_ranges_to_nats": ["ALL_IP_RANGES"]}],
            log_config={"enable": True, "filter": "ERRORS_ONLY"},
            opts=child,
        )
        self._firewall(name, network, args, child)
        self.network_id = network.id
        self.network_self_link = network.self_link
        self.subnet_id = subnet.id
        self.subnet_self_link = subnet.self_link
        self.pods_range_name = PODS_RANGE_NAME
        self.services_range_name = SERVICES_RANGE_NAME
        self.router_name = router.name
        self.register_outputs(
            {
                "networkId": network.id,
                "subnetId": subnet.id,
                "podsRangeName": PODS_RANGE_NAME,
                "servicesRangeName": SERVICES_RANGE_NAME,
            }
        )

    @staticmethod
    def _firewall(name: str, network: compute.Network, args: NetworkArgs, child: pulumi.ResourceOptions) -> None:
        """Google's load balancers and health checks in to the inference port; SSH and RDP from nowhere."""
        ports = [str(port) for port in sorted(set(args.load_balancer_target_ports))]
        if ports:
            compute.Firewall(
                f"{name}-allow-lb",
                network=network.id,
                description="Google load balancers and health checks to the inference target port on nodes",
                direction="INGRESS",
                priority=1000,
                source_ranges=list(GOOGLE_LOAD_BALANCER_RANGES),
                target_service_accounts=[args.node_service_account_email],
                allows=[{"protocol": "tcp", "ports": ports}],
                opts=child,
            )
        compute.Firewall(
            f"{name}-deny-ssh-rdp",
            network=network.id,
            description="No SSH or RDP from anywhere",
            direction="INGRESS",
            # Deny wins ties with allow at equal priority; 100 also beats allows added at 101-999.
            priority=100,
            source_ranges=["0.0.0.0/0"],
            denies=[{"protocol": "tcp", "ports": list(SSH_RDP_PORTS)}],
            log_config={"metadata": "INCLUDE_ALL_METADATA"},
            opts=child,
        )
