"""AP-NET-001 judges a world-open port of a load balancer's group by what its listeners do there:
the HTTPS listener port (whatever `listener_port` declares) and a port whose listeners only
redirect to HTTPS are a public endpoint's legitimate shape; anything else open to the world fails."""

from __future__ import annotations

import pytest

from accelplane.clouds.aws.rules.network import sg_no_world_ingress
from accelplane.rules.engine import run_rule
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.view import Resource
from tests.rules.cases import FORWARD, REDIRECT, group, ingress, listener, load_balancer, public_endpoint


def _findings(resources: list[Resource]) -> list[tuple[str, str]]:
    findings, skipped = run_rule(sg_no_world_ingress.RULE, ReferenceGraph(resources))
    assert skipped == 0
    return sorted((f.name, f.message) for f in findings)


PASSING = {
    "https 443 and a redirect-only port 80, world-open": public_endpoint(),
    "https only (http_redirect: false)": public_endpoint(http_action=None),
    "https on a declared listener_port 8443": public_endpoint(https_port=8443),
    "https on 8443 and the redirect on 80": public_endpoint(
        https_port=8443, http_action={**REDIRECT, "redirect": {"protocol": "HTTPS", "port": "8443"}}),
    "the whole IPv6 internet": public_endpoint(cidr={"cidrIpv6": "::/0"}),
    "a forwarding port 80 open to office CIDRs only": public_endpoint(
        http_action=FORWARD, cidr={"cidrIpv4": "198.51.100.0/24"}),
    "inline ingress blocks on the load balancer's group": [
        group("sg-lb", ingress=[{"protocol": "tcp", "fromPort": 443, "toPort": 443, "cidrBlocks": ["0.0.0.0/0"]}]),
        load_balancer(),
        listener("alb-https", loadBalancerArn="id-alb", protocol="HTTPS", port=443, defaultActions=[FORWARD])],
}


@pytest.mark.parametrize("scenario", PASSING)
def test_public_endpoint_shapes_pass(scenario: str) -> None:
    assert _findings(PASSING[scenario]) == []


FAILING = {
    "port 80 forwarding plain HTTP": (
        public_endpoint(http_action=FORWARD), "lb-in-80", "listener alb-http on port 80: HTTP listener serves "
        "traffic (forward) instead of redirecting to HTTPS"),
    "port 80 redirecting to plain HTTP": (
        public_endpoint(http_action={"type": "redirect", "redirect": {"protocol": "HTTP", "port": "8080"}}),
        "lb-in-80", "redirects, but not to HTTPS"),
    "port 80 open with no listener on it": (
        [*public_endpoint(http_action=None), ingress("lb-in-80", "sg-lb", fromPort=80, toPort=80,
                                                     cidrIpv4="0.0.0.0/0")],
        "lb-in-80", "no listener serves port 80"),
    "443 open while the HTTPS listener is on 8443": (
        [*public_endpoint(https_port=8443), ingress("lb-in-443", "sg-lb", fromPort=443, toPort=443,
                                                    cidrIpv6="::/0")],
        "lb-in-443", "no listener serves port 443"),
    "a port range over the listener ports": (
        [*public_endpoint(), ingress("lb-in-range", "sg-lb", fromPort=80, toPort=443, cidrIpv4="0.0.0.0/0")],
        "lb-in-range", "it opens a port range"),
    "all traffic to the load balancer": (
        [*public_endpoint(), ingress("lb-in-all", "sg-lb", ipProtocol="-1", cidrIpv4="0.0.0.0/0")],
        "lb-in-all", "it opens all traffic"),
    "a second load balancer on the group forwards port 80": (
        [*public_endpoint(), load_balancer("alb-2"),
         listener("alb-2-http", loadBalancerArn="id-alb-2", protocol="HTTP", port=80, defaultActions=[FORWARD])],
        "lb-in-80", "listener alb-2-http on port 80"),
    "a TCP listener on a network load balancer": (
        [*public_endpoint(http_action=None),
         listener("alb-tcp", loadBalancerArn="id-alb", protocol="TCP", port=8443, defaultActions=[FORWARD]),
         ingress("lb-in-8443", "sg-lb", fromPort=8443, toPort=8443, cidrIpv4="0.0.0.0/0")],
        "lb-in-8443", "a TCP listener neither terminates TLS nor redirects"),
    "port 443 on a group no load balancer uses": (
        [group("sg-nodes"), ingress("nodes-443", "sg-nodes", fromPort=443, toPort=443, cidrIpv4="0.0.0.0/0")],
        "nodes-443", "ingress tcp/443 from 0.0.0.0/0: only a load balancer's HTTPS listener port"),
}


@pytest.mark.parametrize("scenario", FAILING)
def test_world_ingress_a_listener_does_not_justify_fails(scenario: str) -> None:
    resources, target, expect = FAILING[scenario]
    findings = _findings(resources)
    assert [name for name, _ in findings] == [target], findings
    assert expect in findings[0][1], findings

