"""The migration's program offline: weighted records pointing at what each end's own plan creates, the
DNS service's health checks, the rollback figure, and the commands on a migration stack.

Expected values are written from the providers' and APIs' shapes (Route 53's alias to an ALB names the
ALB's canonical hosted zone: us-west-2's is Z1H1FL5HABSF5 in AWS's ELB endpoints table), not from the
code under test.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pulumi
import pytest

from accelplane.clouds.gcp.migration_dns import CLOUD_DNS
from accelplane.config.loader import load_stack
from accelplane.config.project import find_project
from accelplane.engine.offline import run_program
from accelplane.migration.facets import DnsEnd, WeightedName, front_of
from accelplane.migration.loader import load_migration
from accelplane.migration.rollback import rollback_figure
from accelplane.program import migration_offline_graph, offline_graph
from tests.migration.test_migration_declaration import write_stacks
from tests.support.cli_contract import run_cli
from tests.support.cli_process import run_accelplane


@pytest.fixture(scope="module")
def ends() -> dict[str, dict]:
    return {stack: offline_graph(load_stack(stack)).stack_outputs for stack in ("prod", "tpu-prod")}


def _records(graph) -> dict[str, dict]:
    return {r.name: r.inputs for r in graph.by_type("aws:route53/record:Record")}


def test_the_example_points_an_alias_at_prods_alb_and_an_a_record_at_tpu_prods_address(ends) -> None:
    graph = migration_offline_graph(load_migration(find_project().stack_file("llm-move")))
    records = _records(graph)
    assert records["llm-move-source"] == {
        "zoneId": "Z0123456789ABCDEFGHIJ", "name": "llm.acme.example", "type": "A", "setIdentifier": "prod",
        "weightedRoutingPolicies": [{"weight": 100}],
        "aliases": [{"name": ends["prod"]["inferenceEndpoint"], "zoneId": "Z1H1FL5HABSF5",
                     "evaluateTargetHealth": False}],
    }
    target = records["llm-move-target"]
    assert target["records"] == [ends["tpu-prod"]["inferenceAddress"]] and target["ttl"] == 60
    assert target["weightedRoutingPolicies"] == [{"weight": 0}] and target["setIdentifier"] == "tpu-prod"
    assert "healthCheckId" not in target and not graph.by_type("aws:route53/healthCheck:HealthCheck")
    # Route 53's API is global and answers in us-east-1: the records go through a provider there.
    [provider] = [p for p in graph.by_type("pulumi:providers:aws") if p.name == "llm-move-route53"]
    assert provider.inputs["region"] == "us-east-1"
    assert all(r.provider and r.provider.startswith(provider.urn) for r in graph.by_type("aws:route53/record:Record"))
    assert graph.stack_outputs == {"dnsRecords": {"prod": 100, "tpu-prod": 0}, "hostname": "llm.acme.example",
                                   "artifactTransferJob": "llm-move-artifacts-e67e5b9"}


def test_a_step_with_health_checks_checks_the_address_end_on_its_health_path(tmp_path: Path) -> None:
    path = write_stacks(tmp_path, {
        "llm-move": [("weight: 0", "weight: 25"), ("health_checks: false", "health_checks: true")],
        # Route 53's checkers call from the internet: an allow-list that admits them.
        "tpu-prod": [("allowed_cidrs: [203.0.113.0/24, 198.51.100.0/24]", "allowed_cidrs: [0.0.0.0/0]")],
        "prod": [("allowed_cidrs: [198.51.100.0/24, 203.0.113.0/24]", "allowed_cidrs: [0.0.0.0/0]")],
    })
    graph = migration_offline_graph(load_migration(path))
    records = _records(graph)
    assert records["llm-move-source"]["weightedRoutingPolicies"] == [{"weight": 75}]
    assert records["llm-move-source"]["aliases"][0]["evaluateTargetHealth"] is True
    [check] = graph.by_type("aws:route53/healthCheck:HealthCheck")
    assert {key: check.inputs[key] for key in ("type", "port", "resourcePath", "fqdn", "enableSni")} == {
        "type": "HTTPS", "port": 443, "resourcePath": "/healthz", "fqdn": "llm.acme.example", "enableSni": True}
    assert records["llm-move-target"]["healthCheckId"] == check.id
    assert records["llm-move-target"]["weightedRoutingPolicies"] == [{"weight": 25}]


def _cloud_dns_graph(health_checks: bool, cloud: str = "gcp",
                     addresses: tuple[str, str] = ("34.1.2.3", "34.4.5.6")):
    front = front_of(cloud)
    assert front is not None

    def build():
        ends = [DnsEnd(label=label, role=role, weight=weight, front=front, address=pulumi.Output.from_input(ip),
                       alias_zone=None, health_path="/healthz", port=443)
                for label, role, weight, ip in (("a", "source", 95, addresses[0]), ("b", "target", 5, addresses[1]))]
        return CLOUD_DNS.declare(WeightedName(name="move", hostname="llm.acme.example",
                                              zone="projects/acme-dns/managedZones/acme-example", ttl_seconds=30,
                                              health_checks=health_checks, ends=ends))

    return run_program("move", "accelplane", {}, build, CLOUD_DNS.offline_mocks())


def test_cloud_dns_weighs_health_checked_addresses_probed_from_three_regions() -> None:
    graph = _cloud_dns_graph(health_checks=True)
    [record] = graph.by_type("gcp:dns/recordSet:RecordSet")
    [check] = graph.by_type("gcp:compute/healthCheck:HealthCheck")
    assert {key: record.inputs[key] for key in ("project", "managedZone", "name", "type", "ttl")} == {
        "project": "acme-dns", "managedZone": "acme-example", "name": "llm.acme.example.", "type": "A", "ttl": 30}
    assert record.inputs["routingPolicy"]["wrrs"] == [
        {"weight": 95, "healthCheckedTargets": {"externalEndpoints": ["34.1.2.3"]}},
        {"weight": 5, "healthCheckedTargets": {"externalEndpoints": ["34.4.5.6"]}}]
    assert record.inputs["routingPolicy"]["healthCheck"] == check.id
    assert len(check.inputs["sourceRegions"]) == 3  # Cloud DNS: exactly three for external endpoints
    assert check.inputs["httpsHealthCheck"] == {"port": 443, "requestPath": "/healthz", "host": "llm.acme.example"}


def test_cloud_dns_without_health_checks_weighs_plain_addresses() -> None:
    graph = _cloud_dns_graph(health_checks=False)
    [record] = graph.by_type("gcp:dns/recordSet:RecordSet")
    assert record.inputs["routingPolicy"] == {"wrrs": [{"weight": 95, "rrdatas": ["34.1.2.3"]},
                                                       {"weight": 5, "rrdatas": ["34.4.5.6"]}]}
    assert not graph.by_type("gcp:compute/healthCheck:HealthCheck")


def test_cloud_dns_weighs_two_load_balancer_names_as_cname_data_with_their_dots() -> None:
    # Two ALB ends without health checks: one CNAME record set whose items are the names, each ending in ".".
    graph = _cloud_dns_graph(health_checks=False, cloud="aws", addresses=("a.elb.amazonaws.com", "b.elb.amazonaws.com"))
    [record] = graph.by_type("gcp:dns/recordSet:RecordSet")
    assert record.inputs["type"] == "CNAME"
    assert record.inputs["routingPolicy"] == {"wrrs": [{"weight": 95, "rrdatas": ["a.elb.amazonaws.com."]},
                                                       {"weight": 5, "rrdatas": ["b.elb.amazonaws.com."]}]}


def test_cloud_dns_refuses_two_health_paths_under_one_health_check() -> None:
    gateway = front_of("gcp")
    assert gateway is not None
    refusal = CLOUD_DNS.refusal([gateway, gateway], True, ["/healthz", "/v1/health"])
    assert refusal is not None and refusal.startswith("Cloud DNS checks every item of a record set with one health "
                                                      "check, and the ends' health paths differ (/healthz, /v1/health)")
    assert CLOUD_DNS.refusal([gateway, gateway], True, ["/healthz", "/healthz"]) is None
    assert CLOUD_DNS.refusal([gateway, gateway], False, ["/healthz", "/v1/health"]) is None


def test_the_rollback_figure_is_propagation_plus_what_clients_cached_of_the_target(tmp_path: Path) -> None:
    example = rollback_figure(load_migration(find_project().stack_file("llm-move")))
    # Route 53 reaches its name servers within 60 s; the target (an A record) is cached for its TTL, 60 s.
    assert (example.seconds, example.propagation_seconds, example.cached_seconds) == (120, 60, 60)
    # The reverse move (back to the ALB) with a 30 s TTL: the target is an alias, cached for the ALB's 60 s.
    path = write_stacks(tmp_path, {"llm-move": [
        ("source: {stack: prod, service: serve}", "source: {stack: tpu-prod, service: llm-server}"),
        ("target: {stack: tpu-prod, service: llm-server}", "target: {stack: prod, service: serve}"),
        ("ttl_seconds: 60", "ttl_seconds: 30"),
        # Copying files from a GKE end to an EKS end is not built: the reverse move leaves them out.
        ("    artifacts: {bucket: model_artifacts", "    # artifacts: {bucket: model_artifacts")]})
    reverse = rollback_figure(load_migration(path))
    assert (reverse.seconds, reverse.cached_seconds) == (120, 60)
    assert "alias to the ALB is cached for its own TTL, 60 s" in reverse.sentence()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_accelplane(args, cwd=find_project().root)


def test_the_commands_on_a_migration_stack() -> None:
    preview = _cli("preview", "--stack", "llm-move")
    assert preview.returncode == 0, preview.stderr
    assert ("Migration llm.acme.example: prod (serve) 100% · tpu-prod (llm-server) 0% — before the first step"
            in preview.stdout)
    assert "clients follow within 120 s at worst" in preview.stdout
    # The rest in this process (the console script ran above): `--json -` gives the graph alone on standard
    # output, the words on standard error.
    graph = run_cli(["preview", "--stack", "llm-move", "--json", "-"])
    assert graph.code == 0 and "clients follow within" in graph.err
    assert sorted(r["name"] for r in json.loads(graph.out)["resources"] if r["type"].startswith("aws:route53")) == [
        "llm-move-source", "llm-move-target", "llm-move-validation-0", "llm-move-validation-1"]
    check = run_cli(["check", "--stack", "llm-move"])
    assert check.code == 0, check.out + check.err
    assert "stack llm-move (8 resources" in check.out
    # Without health checks (the example's tpu-prod refuses Route 53's checkers), both records are advisory
    # findings; so is the transfer service's whole-bucket grant on the target (what Storage Transfer requires).
    findings = {tuple(line.split()[2:4]) for line in check.out.splitlines() if line.startswith("advisory")}
    assert findings == {("AP-DNS-002", "llm-move-source"), ("AP-DNS-002", "llm-move-target"),
                        ("AP-GCS-008", "llm-move-transfer-writer")}
    assert "PASSED: 0 blocking findings, 3 findings" in check.out
    # A command that reads a platform says what the stack is instead (exit 2, no traceback).
    verify = run_cli(["verify", "--stack", "llm-move"])
    assert verify.code == 2 and "Traceback" not in verify.err
    assert "is a migration stack (`accelplane:migration`)" in verify.err
