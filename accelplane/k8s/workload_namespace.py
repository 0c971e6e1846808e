"""`WorkloadNamespace`: a namespace with accelerator quotas, default limits and default-deny traffic.

Network policies deny everything, then allow only: DNS to kube-system; HTTPS egress (S3, ECR, AWS
APIs) but not the instance metadata address; for training, all traffic inside the namespace
(NCCL, rendezvous); for inference, the service port from the load balancer's subnets; metrics
scraping from the monitoring namespace.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.networking.v1 import NetworkPolicyIngressRuleArgsDict

MONITORING_NAMESPACE = "monitoring"
IMDS = "169.254.169.254/32"


@dataclass(frozen=True)
class WorkloadNamespaceArgs:
    namespace: str
    training: bool
    inference_ports: Sequence[int]
    load_balancer_cidrs: Sequence[str]
    accelerator_quota: Mapping[str, int]  # extended resource -> count
    labels: Mapping[str, str]


class WorkloadNamespace(pulumi.ComponentResource):
    name: pulumi.Output[str]

    def __init__(self, name: str, args: WorkloadNamespaceArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:k8s:WorkloadNamespace", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        ns = args.namespace
        namespace = k8s.core.v1.Namespace(
            f"{name}-ns",
            metadata={
                "name": ns,
                "labels": {
                    **args.labels,
                    # Pod Security Admission: inference runs "restricted"; training "baseline", since
                    # EFA/NCCL images commonly need to lock memory and set up shared memory.
                    "pod-security.kubernetes.io/enforce": "baseline" if args.training else "restricted",
                    "pod-security.kubernetes.io/enforce-version": "latest",
                },
            },
            opts=child,
        )
        scoped = pulumi.ResourceOptions(parent=self, depends_on=[namespace])
        if args.accelerator_quota:
            k8s.core.v1.ResourceQuota(
                f"{name}-accelerators",
                metadata={"name": "accelerators", "namespace": ns},
                spec={"hard": {f"requests.{r}": str(n) for r, n in sorted(args.accelerator_quota.items())}},
                opts=scoped,
            )
        k8s.core.v1.LimitRange(
            f"{name}-defaults",
            metadata={"name": "container-defaults", "namespace": ns},
            spec={
                "limits": [
                    {
                        "type": "Container",
                        "default_request": {"cpu": "500m", "memory": "1Gi"},
                        "default": {"memory": "4Gi"},
                    }
                ]
            },
            opts=scoped,
        )
        k8s.networking.v1.NetworkPolicy(
            f"{name}-default-deny",
            metadata={"name": "default-deny", "namespace": ns},
            spec={"pod_selector": {}, "policy_types": ["Ingress", "Egress"]},
            opts=scoped,
        )
        k8s.networking.v1.NetworkPolicy(
            f"{name}-allow-egress",
            metadata={"name": "allow-dns-and-https-egress", "namespace": ns},
            spec={
                "pod_selector": {},
                "policy_types": ["Egress"],
                "egress": [
                    {
                        "to": [
                            {"namespace_selector": {"match_labels": {"kubernetes.io/metadata.name": "kube-system"}}}
                        ],
                        "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}],
                    },
                    {
                        "to": [{"ip_block": {"cidr": "0.0.0.0/0", "except_": [IMDS]}}],
                        "ports": [{"protocol": "TCP", "port": 443}],
                    },
                ],
            },
            opts=scoped,
        )
        ingress: list[NetworkPolicyIngressRuleArgsDict] = [
            {"from_": [{"namespace_selector": {"match_labels": {"kubernetes.io/metadata.name": MONITORING_NAMESPACE}}}]}
        ]
        if args.inference_ports and args.load_balancer_cidrs:
            ingress.append(
                {
                    "from_": [{"ip_block": {"cidr": cidr}} for cidr in args.load_balancer_cidrs],
                    "ports": [{"protocol": "TCP", "port": port} for port in args.inference_ports],
                }
            )
        k8s.networking.v1.NetworkPolicy(
            f"{name}-allow-ingress",
            metadata={"name": "allow-load-balancer-and-metrics", "namespace": ns},
            spec={"pod_selector": {}, "policy_types": ["Ingress"], "ingress": ingress},
            opts=scoped,
        )
        if args.training:
            # Collective communication: every worker talks to every other, on any port.
            k8s.networking.v1.NetworkPolicy(
                f"{name}-allow-peers",
                metadata={"name": "allow-within-namespace", "namespace": ns},
                spec={
                    "pod_selector": {},
                    "policy_types": ["Ingress", "Egress"],
                    "ingress": [{"from_": [{"pod_selector": {}}]}],
                    "egress": [{"to": [{"pod_selector": {}}]}],
                },
                opts=scoped,
            )
        self.name = namespace.metadata.apply(lambda m: m.name or ns)
        self.register_outputs({"name": self.name})
