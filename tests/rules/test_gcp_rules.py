"""The GCP rules on preview values and across clouds: a rule that touches an unknown value is not
applicable (never passed, never failed), wherever the unknown sits; the hygiene rules judge GCP
resources by their labels and protection, AWS tags only on AWS resources."""

from __future__ import annotations

from dataclasses import replace

import pytest

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.engine import run_rule
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.registry import RULES, rule_by_id
from accelplane.rules.view import UNKNOWN, Resource
from tests.rules import gcp_cases as c
from tests.rules.gcp_cases import GCP_CASES

GCP_RULES = [rule for rule in RULES if rule.id in GCP_CASES]
READS_NOTHING = {"AP-GIAM-004"}  # a service-account key is a finding whatever its inputs


def _unknown(resource: Resource) -> Resource:
    return replace(resource, props={key: UNKNOWN for key in resource.props})


def _rule(rule_id: str):
    rule = rule_by_id(rule_id)
    assert rule is not None, rule_id
    return rule


@pytest.mark.parametrize("rule", [r for r in GCP_RULES if r.id not in READS_NOTHING], ids=lambda r: r.id)
def test_a_rule_with_every_input_unknown_judges_nothing(rule) -> None:
    """The passing fixtures hold every key the rule reads: with each value unknown (a preview before
    anything exists) every resource the rule looks at is not applicable, none passed or failed."""
    case = GCP_CASES[rule.id]
    graph = ReferenceGraph([_unknown(r) for r in case.passing], environment=case.environment)
    judged = sum(len(graph.of_type(token)) for token in rule.resource_types)
    findings, skipped = run_rule(rule, graph)
    assert findings == [], [f.message for f in findings]
    assert judged and skipped == judged


def _judge(rule_id: str, *resources: Resource, environment: str | None = None) -> tuple[list[str], int]:
    findings, skipped = run_rule(_rule(rule_id), ReferenceGraph(list(resources), environment=environment))
    return [f.message for f in findings], skipped


def test_a_nested_unknown_skips_only_the_rules_that_read_it() -> None:
    pool = c.tpu_pool("train", "ct5p-hightpu-4t", "2x2x4", count=4)
    pending = replace(pool, props={**pool.props, "nodeCount": UNKNOWN})
    assert _judge("AP-TPU-002", pending) == ([], 1)
    assert _judge("AP-TPU-001", pending) == ([], 0)
    assert _judge("AP-TPU-003", pending) == ([], 0)
    machine = replace(pool, props={**pool.props, "nodeConfig": {**pool.props["nodeConfig"], "machineType": UNKNOWN}})
    for rule_id in ("AP-TPU-001", "AP-TPU-002", "AP-TPU-003"):
        assert _judge(rule_id, machine) == ([], 1)


def test_a_member_known_only_after_creation_is_not_judged() -> None:
    """`Output.concat("serviceAccount:", account.email)` is unknown at preview."""
    grant = c.member(t.GCP_PROJECT_IAM_MEMBER, "nodes", "roles/editor", UNKNOWN, project=c.PROJECT)
    assert _judge("AP-GIAM-001", grant) == ([], 1)  # the role is known, but the message names the member
    assert _judge("AP-GIAM-003", grant) == ([], 1)
    assert _judge("AP-GIAM-005", grant) == ([], 1)


def test_authorized_network_unknown_is_not_applicable() -> None:
    cluster = c.gke_cluster(masterAuthorizedNetworksConfig={"cidrBlocks": [{"cidrBlock": UNKNOWN}]})
    assert _judge("AP-GKE-002", cluster) == ([], 1)


def test_labels_from_the_provider_defaults_count_and_unknown_defaults_are_not_judged() -> None:
    partial = {k: v for k, v in c.LABELS.items() if k != "owner"}
    complete = c.res(t.GCS_BUCKET, "b", {"labels": c.LABELS, "effectiveLabels": UNKNOWN})
    defaults = c.res(t.GCS_BUCKET, "b", {"labels": partial, "effectiveLabels": c.LABELS})
    pending = c.res(t.GCS_BUCKET, "b", {"labels": partial, "effectiveLabels": UNKNOWN})
    missing = c.res(t.GCS_BUCKET, "b", {"labels": partial})
    assert _judge("AP-GTAG-001", complete) == ([], 0)
    assert _judge("AP-GTAG-001", defaults) == ([], 0)
    assert _judge("AP-GTAG-001", pending) == ([], 1)
    assert _judge("AP-GTAG-001", missing) == (["missing required labels (labels): owner"], 0)


def test_stateful_gcp_resources_are_protected_in_prod() -> None:
    stateful = [c.gcs_bucket("data", labels=c.PROD_LABELS), c.crypto_key(), c.secret()]
    messages, _ = _judge("AP-TAG-002", *stateful, environment="prod")
    assert len(messages) == 3 and all("not protected" in m for m in messages)
    assert _judge("AP-TAG-002", *(replace(r, protect=True) for r in stateful), environment="prod") == ([], 0)
    assert _judge("AP-TAG-002", *stateful, environment="dev") == ([], 0)
    # The environment comes from the labels when no declaration says it (a state export).
    assert len(_judge("AP-TAG-002", c.gcs_bucket("data", labels=c.PROD_LABELS))[0]) == 1


def test_aws_tag_rule_judges_aws_resources_only() -> None:
    """AP-TAG-001 reads AWS `tags`; GCP resources are judged by AP-GTAG-001 (was AP-TAG-004) on their labels instead."""
    required_tags = _rule("AP-TAG-001")
    assert not any(token.startswith("gcp:") for token in required_tags.resource_types)
    assert _judge("AP-TAG-001", c.gcs_bucket("data", labels={})) == ([], 0)


def test_every_gcp_rule_names_google_documentation() -> None:
    for rule in GCP_RULES:
        assert rule.references, rule.id
        assert all(ref.startswith(("https://cloud.google.com/", "https://www.pulumi.com/")) for ref in rule.references)



@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pulumi_gcp's own deprecated aliases, on import
def test_rules_read_the_labels_the_gcp_layer_writes() -> None:
    """The rules import no component: the label keys they read are checked against the GCP layer here."""
    from accelplane.clouds.gcp.components.bucket import ROLE_LABEL
    from accelplane.clouds.gcp.rules.labels import BUCKET_ROLE_LABEL

    assert BUCKET_ROLE_LABEL == ROLE_LABEL


def test_a_rate_limit_finding_without_the_service_in_the_graph_stays_on_the_gateway() -> None:
    """AP-GLB-010 moves its finding to the unprotected backend Service (its service's rate_limit is the
    fix); a route to a Service the graph does not hold (another stack's) leaves it on the Gateway."""
    from tests.rules.resilience_cases import armor

    graph = ReferenceGraph([c.gateway(), c.http_route("serve", "inference", "serve"),
                            c.backend_policy("serve", "acme-serve"), armor("acme-serve")], environment="prod")
    findings, _ = run_rule(rule_by_id("AP-GLB-010"), graph)
    gateway_type = "kubernetes:gateway.networking.k8s.io/v1:Gateway"
    assert [(f.name, f.type) for f in findings] == [("inference-inference-gateway", gateway_type)]
