"""The migration stack's declaration: what it refuses, with file, line and field (exit 2), and why.

Each case edits the example migration (stacks/Pulumi.llm-move.yaml) or one of its ends (prod, tpu-prod),
all three copied beside each other into a temporary directory, and loads the migration there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from accelplane.config.project import find_project
from accelplane.errors import InputError
from accelplane.migration.loader import load_migration
from tests.support.stack_files import stack_text

MIGRATION = "llm-move"


def write_stacks(tmp_path: Path, edits: dict[str, list[tuple[str, str]]]) -> Path:
    """The migration and its two ends in `tmp_path`, each with its (old, new) edits; the migration's path."""
    for stack in (MIGRATION, "prod", "tpu-prod"):
        text = stack_text(stack)
        for old, new in edits.get(stack, []):
            assert old in text, f"{old!r} not in Pulumi.{stack}.yaml"
            text = text.replace(old, new, 1)
        (tmp_path / f"Pulumi.{stack}.yaml").write_text(text)
    return tmp_path / f"Pulumi.{MIGRATION}.yaml"


def problems(tmp_path: Path, edits: dict[str, list[tuple[str, str]]]) -> list[tuple[str | None, int | None, str]]:
    path = write_stacks(tmp_path, edits)
    with pytest.raises(InputError) as caught:
        load_migration(path)
    return [(p.field, p.line, p.message) for p in caught.value.problems]


def line(path: Path, needle: str) -> int:
    return next(number for number, text in enumerate(path.read_text().splitlines(), 1) if needle in text)


def test_the_example_migration_loads_with_both_ends() -> None:
    stack = load_migration(find_project().stack_file(MIGRATION))
    assert (stack.source.stack, stack.target.stack) == ("prod", "tpu-prod")
    assert stack.migration.weight == 0 and stack.migration.steps == [1, 5, 25, 50, 100]
    assert stack.environment.value == "prod"  # both ends are prod stacks


def test_both_ends_the_same_stack_is_refused(tmp_path: Path) -> None:
    found = problems(tmp_path, {MIGRATION: [("target: {stack: tpu-prod, service: llm-server}",
                                             "target: {stack: prod, service: serve}")]})
    assert [(f, m.split(":")[0]) for f, _, m in found] == [("accelplane:migration.target.stack",
                                                             "both ends are stack 'prod'")]
    assert found[0][1] == line(tmp_path / "Pulumi.llm-move.yaml", "target: {stack: prod")


def test_an_unknown_service_names_the_nearest(tmp_path: Path) -> None:
    [(field, _, message)] = problems(tmp_path, {MIGRATION: [("service: llm-server}", "service: llm-servr}")]})
    assert field == "accelplane:migration.target.service"
    assert "no inference service 'llm-servr'; did you mean llm-server?" in message


def test_a_missing_end_stack_is_refused(tmp_path: Path) -> None:
    [(field, _, message)] = problems(tmp_path, {MIGRATION: [("stack: tpu-prod,", "stack: tpu-prd,")]})
    assert field == "accelplane:migration.target.stack" and "no stack 'tpu-prd' beside this one" in message


def test_the_name_must_be_on_both_endpoints(tmp_path: Path) -> None:
    [(field, _, message)] = problems(tmp_path, {"tpu-prod": [("hostnames: [llm.acme.example]",
                                                             "hostnames: [api.acme.example]")]})
    assert field == "accelplane:migration.hostname"
    assert message.startswith("stack 'tpu-prod' does not serve llm.acme.example")


def test_different_client_ranges_are_refused(tmp_path: Path) -> None:
    found = problems(tmp_path, {"tpu-prod": [("allowed_cidrs: [203.0.113.0/24, 198.51.100.0/24]",
                                              "allowed_cidrs: [203.0.113.0/24]")]})
    assert [(f, "different client ranges" in m) for f, _, m in found] == [("accelplane:migration.target.stack", True)]
    # The same ranges in another order are the same clients.
    assert "198.51.100.0/24, 203.0.113.0/24; tpu-prod: 203.0.113.0/24" in found[0][2]


def test_ends_authenticating_clients_differently_are_refused(tmp_path: Path) -> None:
    # prod also asking for client certificates: a client holding only a token would be refused there.
    callers = "          callers: [llm-gateway@acme-ml-apps.iam.gserviceaccount.com]\n"
    mutual_tls = "        mutual_tls: {ca_bundle: s3://acme-pki/ca.pem}\n"
    found = problems(tmp_path, {"prod": [(callers, callers + mutual_tls)]})
    [(field, _, message)] = found
    assert field == "accelplane:migration.target.stack"
    assert message.startswith(
        "the ends authenticate clients differently (prod: ID tokens of https://accounts.google.com for audience "
        "123456789012-llmclients.apps.googleusercontent.com naming llm-gateway@acme-ml-apps.iam.gserviceaccount.com "
        "and mutual tls; tpu-prod: ID tokens of ")
    # Another caller on one end only is another set of clients too.
    found = problems(tmp_path, {"tpu-prod": [(callers, callers.replace("llm-gateway@", "batch@"))]})
    assert [f for f, _, m in found if "authenticate clients differently" in m] == ["accelplane:migration.target.stack"]


def test_different_rate_limits_are_refused_but_not_different_exempt_health_paths(tmp_path: Path) -> None:
    # tpu-prod's limit before it was aligned with prod's: 300 a minute against 600.
    found = problems(tmp_path, {"tpu-prod": [("rate_limit: {requests: 600,", "rate_limit: {requests: 300,")]})
    [(field, _, message)] = found
    assert field == "accelplane:migration.target.service"
    assert ("prod: 600 requests per 60 s per source_ip; tpu-prod: 300 requests per 60 s per source_ip" in message)
    # The example itself exempts /v1/health on prod and /healthz on tpu-prod, and loads.


def test_another_api_is_refused(tmp_path: Path) -> None:
    found = problems(tmp_path, {MIGRATION: [("protocol: openai-completions", "protocol: open-inference")]})
    # Both ends' rollouts pin openai-completions parity for model llm: each end is named.
    assert [(f, m.split(" speaks ")[0]) for f, _, m in found] == [
        ("accelplane:migration.parity.protocol", "the source end's service 'serve'"),
        ("accelplane:migration.parity.protocol", "the target end's service 'llm-server'")]
    assert all("openai-completions for model 'llm'" in m and "do not expose the same API" in m for _, _, m in found)


def test_a_prod_ttl_above_a_minute_is_refused(tmp_path: Path) -> None:
    [(field, number, message)] = problems(tmp_path, {MIGRATION: [("ttl_seconds: 60", "ttl_seconds: 300")]})
    assert field == "accelplane:migration.ttl_seconds" and message.startswith("300 s is above the prod bound of 60 s")
    assert number == line(tmp_path / "Pulumi.llm-move.yaml", "ttl_seconds: 300")


def test_a_dev_migration_may_keep_a_longer_ttl(tmp_path: Path) -> None:
    path = write_stacks(tmp_path, {MIGRATION: [("ttl_seconds: 60", "ttl_seconds: 300")],
                                   "prod": [("environment: prod", "environment: dev")],
                                   "tpu-prod": [("environment: prod", "environment: staging")]})
    assert load_migration(path).migration.ttl_seconds == 300


def test_an_unknown_dns_service_names_the_nearest_and_a_bad_zone_says_its_form(tmp_path: Path) -> None:
    found = problems(tmp_path, {MIGRATION: [("service: route53, zone: Z0123456789ABCDEFGHIJ",
                                             "service: route-53, zone: Z0123456789ABCDEFGHIJ")]})
    assert found == [("accelplane:migration.dns.service", found[0][1],
                      "no DNS service 'route-53'; did you mean route53? (installed: cloud-dns, route53)")]
    [(field, _, message)] = problems(tmp_path, {MIGRATION: [("zone: Z0123456789ABCDEFGHIJ", "zone: acme.example")]})
    assert field == "accelplane:migration.dns.zone" and "not a Route 53 hosted zone id" in message


def test_cloud_dns_cannot_health_check_an_alb_and_says_to_use_route53(tmp_path: Path) -> None:
    cloud_dns = ("dns: {service: route53, zone: Z0123456789ABCDEFGHIJ}",
                 "dns: {service: cloud-dns, zone: projects/acme-dns/managedZones/acme-example}")
    checked = ("health_checks: false", "health_checks: true")
    [(field, _, message)] = problems(tmp_path, {MIGRATION: [cloud_dns, checked]})
    assert field == "accelplane:migration.dns.service"
    assert message.startswith("Cloud DNS health-checks IP addresses of A records only, and the ALB has no fixed "
                              "address: use dns.service route53")
    # Without health checks it still cannot put the ALB's name beside the Gateway's address in one record set.
    [(_, _, message)] = problems(tmp_path, {MIGRATION: [cloud_dns]})
    assert "cannot hold the ALB's name beside an address" in message


def test_route53_health_checks_the_allow_list_refuses_are_refused(tmp_path: Path) -> None:
    [(field, _, message)] = problems(tmp_path, {MIGRATION: [("health_checks: false", "health_checks: true")]})
    assert field == "accelplane:migration.health_checks"
    assert "Route 53 would probe the Gateway's global address of stack 'tpu-prod'" in message
    assert "ROUTE53_HEALTHCHECKS" in message


def test_steps_end_at_100_and_the_weight_is_a_step(tmp_path: Path) -> None:
    [(field, _, message)] = problems(tmp_path, {MIGRATION: [("steps: [1, 5, 25, 50, 100]", "steps: [1, 5, 25, 50]")]})
    assert field == "accelplane:migration.steps" and "the last step to be 100 (got 50)" in message
    [(field, _, message)] = problems(tmp_path, {MIGRATION: [("weight: 0", "weight: 10")]})
    assert field == "accelplane:migration.weight"
    assert message == "10 is neither 0 nor one of the steps (1, 5, 25, 50, 100)"


def test_an_unknown_key_names_the_nearest(tmp_path: Path) -> None:
    [(field, _, message)] = problems(tmp_path, {MIGRATION: [("ttl_seconds: 60", "ttl_second: 60")]})
    assert field == "accelplane:migration.ttl_second" and "did you mean ttl_seconds?" in message


def test_a_platform_stack_is_not_a_migration() -> None:
    with pytest.raises(InputError) as caught:
        load_migration(find_project().stack_file("prod"))
    [problem] = caught.value.problems
    assert problem.field == "config.accelplane:migration"
    assert problem.message.startswith("expected a migration stack (`accelplane:migration`): this one declares")
