"""`InferenceGateway`: the GKE Gateway in front of the inference services, on the cloud layer's address.

The Google Cloud layer (`accelplane/clouds/gcp/components/inference_endpoint.py`) reserves the global address and
declares the SSL policy and the Cloud Armor policy; this component declares the Kubernetes side that
makes GKE build the load balancer with them:

- a system namespace (no pods, Pod Security `restricted`) holding the Gateway,
- a `Gateway` of class `gke-l7-global-external-managed` (a global external Application Load
  Balancer: Google Front Ends, no proxy-only subnet; only the regional and cross-region classes
  need one, https://cloud.google.com/kubernetes-engine/docs/how-to/secure-gateway) on the reserved
  address (`NamedAddress`, so the IP survives a re-created Gateway), with
  * an HTTPS listener on the endpoint's port, its certificate from Certificate Manager through a
    certificate map (`networking.gke.io/certmap`). That annotation is how GKE documents Certificate
    Manager for global Gateways; the listener option `networking.gke.io/cert-manager-certs` is
    documented for the regional classes, and a certificate map cannot be combined with
    `tls.certificateRefs` (https://cloud.google.com/kubernetes-engine/docs/how-to/secure-gateway).
    Only the namespaces of exposed services may attach routes to it.
  * when `http_redirect` is declared, an HTTP listener on port 80 that takes routes from this
    namespace only, and one `HTTPRoute` there answering every request with a 301 to HTTPS;
- a `GCPGatewayPolicy` naming the SSL policy: without it GKE's load balancer uses Google's default
  policy, TLS 1.0 and the COMPATIBLE profile (AP-GLB-005 checks it).
Per-service routes and backend policies are in `gateway_backend.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from accelplane.clouds.gcp.k8s.gateway_backend import GATEWAY_API_VERSION, GATEWAY_GROUP, GKE_POLICY_API_VERSION

NAMESPACE = "accelplane-gateway"
NAME = "inference"
GATEWAY_CLASS = "gke-l7-global-external-managed"
CERTIFICATE_MAP_ANNOTATION = "networking.gke.io/certmap"
HTTPS_LISTENER = "https"
HTTP_LISTENER = "http"
HTTP_PORT = 80


@dataclass(frozen=True)
class InferenceGatewayArgs:
    address_name: pulumi.Input[str]  # the reserved global address's name
    certificate_map: pulumi.Input[str]  # Certificate Manager certificate map serving the HTTPS listener
    ssl_policy: pulumi.Input[str]  # SSL policy name (TLS 1.2+)
    listener_port: int
    http_redirect: bool
    route_namespaces: Sequence[str]  # namespaces whose HTTPRoutes may attach to the HTTPS listener
    labels: Mapping[str, str]


class InferenceGateway(pulumi.ComponentResource):
    name: str = NAME
    namespace: str = NAMESPACE
    listener: str = HTTPS_LISTENER
    gateway: pulumi.Resource

    def __init__(self, name: str, args: InferenceGatewayArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:k8s:InferenceGateway", name, None, opts)
        labels = dict(args.labels)
        namespace = k8s.core.v1.Namespace(
            f"{name}-ns",
            metadata={
                "name": NAMESPACE,
                "labels": {
                    **labels,
                    "pod-security.kubernetes.io/enforce": "restricted",
                    "pod-security.kubernetes.io/enforce-version": "latest",
                },
            },
            opts=pulumi.ResourceOptions(parent=self),
        )
        scoped = pulumi.ResourceOptions(parent=self, depends_on=[namespace])
        listeners: list[dict[str, object]] = [
            {
                "name": HTTPS_LISTENER,
                "protocol": "HTTPS",
                "port": args.listener_port,
                "allowedRoutes": {
                    "kinds": [{"group": GATEWAY_GROUP, "kind": "HTTPRoute"}],
                    "namespaces": {
                        "from": "Selector",
                        "selector": {
                            "matchExpressions": [
                                {
                                    "key": "kubernetes.io/metadata.name",
                                    "operator": "In",
                                    "values": sorted(set(args.route_namespaces)),
                                }
                            ]
                        },
                    },
                },
            }
        ]
        if args.http_redirect:
            listeners.append(
                {
                    "name": HTTP_LISTENER,
                    "protocol": "HTTP",
                    "port": HTTP_PORT,
                    # Only the redirect below, from this namespace: no service is ever served in clear text.
                    "allowedRoutes": {
                        "kinds": [{"group": GATEWAY_GROUP, "kind": "HTTPRoute"}],
                        "namespaces": {"from": "Same"},
                    },
                }
            )
        self.gateway = k8s.apiextensions.CustomResource(
            f"{name}-gateway",
            api_version=GATEWAY_API_VERSION,
            kind="Gateway",
            metadata={
                "name": NAME,
                "namespace": NAMESPACE,
                "labels": labels,
                "annotations": {CERTIFICATE_MAP_ANNOTATION: args.certificate_map},
            },
            spec={
                "gatewayClassName": GATEWAY_CLASS,
                "addresses": [{"type": "NamedAddress", "value": args.address_name}],
                "listeners": listeners,
            },
            opts=scoped,
        )
        k8s.apiextensions.CustomResource(
            f"{name}-ssl-policy",
            api_version=GKE_POLICY_API_VERSION,
            kind="GCPGatewayPolicy",
            metadata={"name": NAME, "namespace": NAMESPACE, "labels": labels},
            spec={
                "default": {"sslPolicy": args.ssl_policy},
                "targetRef": {"group": GATEWAY_GROUP, "kind": "Gateway", "name": NAME},
            },
            opts=scoped,
        )
        if args.http_redirect:
            redirect: dict[str, object] = {"scheme": "https", "statusCode": 301}
            if args.listener_port != 443:
                redirect["port"] = args.listener_port
            k8s.apiextensions.CustomResource(
                f"{name}-http-redirect",
                api_version=GATEWAY_API_VERSION,
                kind="HTTPRoute",
                metadata={"name": "redirect-to-https", "namespace": NAMESPACE, "labels": labels},
                spec={
                    "parentRefs": [
                        {
                            "group": GATEWAY_GROUP,
                            "kind": "Gateway",
                            "name": NAME,
                            "namespace": NAMESPACE,
                            "sectionName": HTTP_LISTENER,
                        }
                    ],
                    "rules": [{"filters": [{"type": "RequestRedirect", "requestRedirect": redirect}]}],
                },
                opts=scoped,
            )
        self.register_outputs({})
