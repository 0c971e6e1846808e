"""The pieces of `accelplane diff` that need no git and no engine: input paths, secrets, components,
software-profile changes, finding comparison and the comment size guard."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest
import yaml

from accelplane.config.loader import load_stack_text
from accelplane.diff.findings import compare, raw_waivers
from accelplane.diff.markdown import COMMENT_LIMIT, render_markdown
from accelplane.diff.plan_diff import ABSENT, InputChange, PlanDiff, ResourceDiff
from accelplane.diff.resources import component_of, diff_graphs, resource_changes, urn_type_and_name
from accelplane.diff.software import software_changes
from accelplane.diff.stack_diff import _platform_data
from accelplane.diff.values import show
from accelplane.rules.rule import Enforcement, Family, Finding, Rule, Severity
from tests.support.stack_files import stack_text

STACK = "urn:pulumi:prod::accelplane::pulumi:pulumi:Stack::accelplane-prod"
POOL = "urn:pulumi:prod::accelplane::pulumi:pulumi:Stack$accelplane:aws:AcceleratorNodePool::acme-ml-train-h100"


def _resource(urn: str, inputs: dict[str, Any], parent: str | None = STACK, **extra: Any) -> dict[str, Any]:
    type_token, name = urn_type_and_name(urn)
    return {"urn": urn, "type": type_token, "name": name, "parent": parent, "inputs": inputs, **extra}


def _changes(old: dict[str, Any], new: dict[str, Any], type_token: str = "aws:x/y:Z", **extra: Any) -> list[tuple]:
    changes = resource_changes({"type": type_token, "inputs": old}, {"type": type_token, "inputs": new, **extra})
    return [(c.path, c.op, c.old, c.new, c.secret) for c in changes]


def test_nested_paths_quote_keys_that_are_not_identifiers() -> None:
    old = {"labels": {"versions.accelplane.io/driver": "570.172.08", "pool": "a"}, "scalingConfig": {"maxSize": 4}}
    new = {"labels": {"versions.accelplane.io/driver": "580.95.05", "pool": "a"}, "scalingConfig": {"maxSize": 8},
           "taints": [{"key": "nvidia.com/gpu", "effect": "NO_SCHEDULE"}]}
    assert _changes(old, new) == [
        ('labels["versions.accelplane.io/driver"]', "change", "570.172.08", "580.95.05", False),
        ("scalingConfig.maxSize", "change", 4, 8, False),
        ("taints", "add", ABSENT, [{"key": "nvidia.com/gpu", "effect": "NO_SCHEDULE"}], False),
    ]


def test_lists_of_objects_by_index_lists_of_values_whole() -> None:
    old = {"ingress": [{"cidr": "10.0.0.0/8", "port": 443}], "zones": ["a", "b"], "ports": [80, 443]}
    new = {"ingress": [{"cidr": "10.1.0.0/16", "port": 443}, {"cidr": "192.0.2.0/24", "port": 443}],
           "zones": ["a", "c"], "ports": [443]}
    assert _changes(old, new) == [
        ("ingress[0].cidr", "change", "10.0.0.0/8", "10.1.0.0/16", False),
        ("ingress[1]", "add", ABSENT, {"cidr": "192.0.2.0/24", "port": 443}, False),
        ("ports", "change", [80, 443], [443], False),  # shorter list of values: shown whole
        ("zones[1]", "change", "b", "c", False),
    ]


def test_policy_documents_in_strings_are_compared_inside() -> None:
    def policy(resource: str) -> str:
        return json.dumps({"Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": resource}]})

    changes = _changes({"policy": policy("arn:aws:s3:::data/corpora/*")}, {"policy": policy("arn:aws:s3:::data/*")})
    assert changes == [("policy<json>.Statement[0].Resource", "change", "arn:aws:s3:::data/corpora/*",
                        "arn:aws:s3:::data/*", False)]
    # A string that is not JSON on both sides stays one value.
    assert _changes({"userData": "{not json"}, {"userData": "#!/bin/sh"}) == [
        ("userData", "change", "{not json", "#!/bin/sh", False)]


def test_secrets_are_masked_but_their_change_is_shown() -> None:
    changes = resource_changes(
        {"type": "aws:rds/instance:Instance", "inputs": {"password": "hunter2", "engine": "postgres",
                                                         "tags": {"apiKey": "k1"}, "token": "[secret]"}},
        {"type": "aws:rds/instance:Instance", "inputs": {"password": "hunter3", "engine": "postgres",
                                                         "tags": {"apiKey": "k2"}, "token": "[secret]"}},
    )
    assert [(c.path, c.secret) for c in changes] == [("password", True), ("tags.apiKey", True)]
    rendered = json.dumps([c.to_json() for c in changes])
    assert "hunter" not in rendered and "k1" not in rendered and "k2" not in rendered
    assert changes[0].to_json() == {"path": "password", "op": "change", "old": "[secret]", "new": "[secret]"}
    secret = resource_changes(
        {"type": "kubernetes:core/v1:Secret", "inputs": {"stringData": {"HF_TOKEN": "abc"}, "type": "Opaque"}},
        {"type": "kubernetes:core/v1:Secret", "inputs": {"stringData": {"HF_TOKEN": "xyz"}, "type": "Opaque"}},
    )
    assert [(c.path, c.secret, show(c.new, c.secret)) for c in secret] == [("stringData", True, "[secret]")]


def test_protect_flag_changes_are_shown() -> None:
    changes = resource_changes({"inputs": {"a": 1}, "protect": False}, {"inputs": {"a": 1}, "protect": True})
    assert [(c.path, c.old, c.new) for c in changes] == [("(protect)", False, True)]


def test_graphs_match_by_urn_and_group_by_component() -> None:
    base = {"resources": [
        _resource(STACK, {}, parent=None),
        _resource(POOL, {}),
        _resource(POOL.replace("pulumi:pulumi:Stack$accelplane:aws:AcceleratorNodePool", "accelplane:aws:"
                               "AcceleratorNodePool$aws:eks/nodeGroup:NodeGroup") + "-ng", {"version": "1.32"},
                  parent=POOL),
        _resource("urn:pulumi:prod::accelplane::pulumi:pulumi:Stack$aws:s3/bucket:Bucket::old", {}),
    ]}
    head = {"resources": [
        _resource(STACK, {}, parent=None),
        _resource(POOL, {}),
        {**base["resources"][2], "inputs": {"version": "1.33"}},
        _resource("urn:pulumi:prod::accelplane::pulumi:pulumi:Stack$aws:s3/bucket:Bucket::new", {}),
    ]}
    diffs = diff_graphs(base, head)
    assert [(d.op, d.name, d.component.label) for d in diffs] == [
        ("update", "acme-ml-train-h100-ng", "AcceleratorNodePool acme-ml-train-h100"),
        ("create", "new", "stack"),
        ("delete", "old", "stack"),
    ]
    assert diffs[0].changes == (InputChange("version", "1.32", "1.33"),)
    plan = PlanDiff(stack="prod", base_ref="main", base_commit="0" * 40, base_resources=3, head_resources=3,
                    resources=diffs, introduced=[], resolved=[], software=[])
    assert [c.label for c, _ in plan.components()] == ["stack", "AcceleratorNodePool acme-ml-train-h100"]
    assert component_of(None).is_stack and component_of(STACK).is_stack


def _prod(*edits: tuple[str, str]) -> tuple[dict[str, Any], Any]:
    """The prod declaration as plain data and validated, after replacing each `old` by `new` everywhere."""
    text = stack_text("prod")
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    stack = load_stack_text(text, path="Pulumi.prod.yaml", stack="prod")
    return yaml.safe_load(text)["config"]["accelplane:platform"], stack.platform


def test_software_changes_carry_the_matrix_verdict_of_the_new_set() -> None:
    base, _ = _prod()
    # CUDA 13.2 needs driver 595.45.04; the H100 pool's AMI release ships 580.105.08 (only with the
    # forward-compatibility package), and torch 2.8.0 has no CUDA 13.2 build: incompatible.
    head, platform = _prod(('cuda: "12.8"\n        cudnn: "9.10.2.21"\n        nccl: "2.27.3"\n        nccl_package: '
                            'nvidia-nccl-cu12\n        torch: "2.8.0"\n        efa_installer',
                            'cuda: "13.2"\n        cudnn: "9.10.2.21"\n        nccl: "2.27.3"\n        nccl_package: '
                            'nvidia-nccl-cu12\n        torch: "2.8.0"\n        efa_installer'))
    [change] = software_changes(base, head, platform, as_of=date(2026, 6, 1))
    assert (change.kind, change.name, change.status, change.verdict) == ("node pool", "train-h100", "changed",
                                                                        "incompatible")
    assert [(v.key, v.old, v.new) for v in change.changes] == [("cuda", "12.8", "13.2")]
    assert ("nvidia.cuda-driver", "conditional") in [(rule, verdict) for rule, verdict, _ in change.verdict_findings]
    assert "580.105.08" in " ".join(message for _, _, message in change.verdict_findings)


def test_software_changes_for_profiles_pools_groups_and_addons() -> None:
    base, _ = _prod()
    head, platform = _prod(('kueue: "0.14.2"', 'kueue: "0.14.3"'), ("      l40s-cuda12:\n", "      l40s-next:\n"),
                           ("software_profile: l40s-cuda12", "software_profile: l40s-next"))
    # Plain data only where the validated declaration is not needed (removed targets have no verdict).
    head["node_pools"] = [p for p in head["node_pools"] if p["name"] != "train-trn1"]
    head["node_pools"].append({"name": "cpu-batch", "purpose": "general", "instance_type": "m7i.large"})
    base["bare_metal"] = {"groups": [{"name": "lab-h100", "accelerator": "nvidia-hgx-h100-8gpu",
                                      "software_profile": "h100-cuda12"}]}
    changes = software_changes(base, head, platform)
    trn1 = [k for k in base["software_profiles"]["trn1-neuron"] if k != "description"]
    h100 = [k for k in base["software_profiles"]["h100-cuda12"] if k != "description"]
    assert [(c.kind, c.name, c.status, c.profile, c.verdict) for c in changes] == [
        ("node pool", "infer-l40s", "changed", ("l40s-cuda12", "l40s-next"), "compatible"),  # renamed, same pins
        ("node pool", "train-trn1", "removed", ("trn1-neuron", None), None),
        # the CPU pool pins nothing: not listed
        ("bare-metal group", "lab-h100", "removed", ("h100-cuda12", None), None),
        ("cluster add-ons", "cluster", "changed", ("cluster-addons", "cluster-addons"), None),
    ]
    assert changes[0].changes == ()
    assert sorted(v.key for v in changes[1].changes) == sorted(trn1)
    assert all(v.new is None for v in changes[1].changes)
    assert sorted(v.key for v in changes[2].changes) == sorted(h100)
    assert [(v.key, v.old, v.new) for v in changes[3].changes] == [("kueue", "0.14.2", "0.14.3")]
    # Keys in the profile model's order (kernel_module before cuda), not alphabetical.
    keys = [v.key for v in changes[2].changes]
    assert keys.index("kernel_module") < keys.index("cuda")


def _rule(rule_id: str, enforcement: Enforcement = Enforcement.mandatory) -> Rule:
    return Rule(id=rule_id, name=rule_id.lower(), description="Checks whether a test holds.", family=Family.storage,
                severity=Severity.high, enforcement=enforcement, remediation="fix it", resource_types=frozenset(),
                check=lambda resource, graph: ())


def _finding(rule: Rule, name: str, waived: bool = False) -> Finding:
    return Finding(rule=rule, urn=f"urn:pulumi:prod::accelplane::aws:s3/bucket:Bucket::{name}", type="aws:s3/bucket:"
                   "Bucket", name=name, message=f"{name} is wrong", enforcement=rule.enforcement, waived=waived,
                   waiver_reason="accepted until the migration" if waived else None)


def test_findings_introduced_resolved_and_waived_by_the_change() -> None:
    s3, tags = _rule("AP-S3-011"), _rule("AP-TAG-003", Enforcement.advisory)
    base = [_finding(s3, "logs"), _finding(s3, "kept"), _finding(s3, "waived-now")]
    head = [_finding(s3, "kept"), _finding(s3, "checkpoints"), _finding(tags, "logs"),
            _finding(s3, "waived-now", waived=True)]
    introduced, resolved = compare(base, head)
    assert [(i.rule, i.name, i.blocking) for i in introduced] == [("AP-S3-011", "checkpoints", True),
                                                                  ("AP-TAG-003", "logs", False)]
    assert [(i.name, i.waived, i.blocking) for i in resolved] == [("logs", False, False), ("waived-now", True, False)]


def test_waivers_of_another_revision_are_read_leniently() -> None:
    waivers = raw_waivers({"waivers": [
        {"rule": "AP-S3-011", "resource": "acme-ml-logs-bucket", "reason": "migration in progress", "owner": "ml",
         "expires": "2030-01-01"},
        {"rule": "AP-S3-011", "resource": "x", "reason": "short"},  # malformed there: ignored, not an error
        "not a mapping",
    ]})
    assert [(w.rule, w.resource, w.expires) for w in waivers] == [("AP-S3-011", "acme-ml-logs-bucket",
                                                                  date(2030, 1, 1))]


def test_a_huge_diff_still_fits_in_a_comment() -> None:
    parent = component_of(POOL)
    resources = [
        ResourceDiff("update", f"{POOL}-{n}", "aws:ec2/launchTemplate:LaunchTemplate", f"lt-{n:05d}", parent,
                     tuple(InputChange(f"userData{k}", "x" * 200, "y" * 200) for k in range(5)))
        for n in range(3000)
    ]
    diff = PlanDiff(stack="prod", base_ref="main", base_commit="f" * 40, base_resources=3000, head_resources=3000,
                    resources=resources, introduced=[], resolved=[], software=[])
    text = render_markdown(diff)
    assert len(text) <= COMMENT_LIMIT
    assert "(3000 update)" in text and "left out to fit a comment" in text


def test_platform_data_reads_a_stack_file_without_validating(tmp_path: Any) -> None:
    path = tmp_path / "Pulumi.old.yaml"
    path.write_text("config:\n  accelplane:platform:\n    environment: prod\n    renamed_key: 1\n")
    assert _platform_data(path) == {"environment": "prod", "renamed_key": 1}
    path.write_text("config: {}\n")
    assert _platform_data(path) == {}


@pytest.mark.parametrize(("value", "secret", "shown"), [
    (ABSENT, False, "(none)"), ("abc", True, "[secret]"), ({"b": 1, "a": 2}, False, '{"a": 2, "b": 1}'),
    ("x" * 150, False, '"' + "x" * 98 + "…"),
])
def test_values_are_shown_as_json_and_shortened(value: Any, secret: bool, shown: str) -> None:
    assert show(value, secret) == shown


def test_a_change_the_program_declares_a_replacement_is_a_replace() -> None:
    """A TPU slice's node pool is replaced on a machine-type change (`replaceOnChanges`): the diff says
    replace, not update, so reviewers see that the slice's VMs are recreated."""
    from accelplane.diff.resources import diff_graphs

    urn = "urn:pulumi:tpu-prod::accelplane::accelplane:gcp:AcceleratorNodePool$gcp:container/nodePool:NodePool::p"
    base = {"resources": [{"urn": urn, "type": "gcp:container/nodePool:NodePool", "inputs": {
        "nodeConfig": {"machineType": "ct5p-hightpu-4t", "diskSizeGb": 200}}}]}
    head_inputs = {"nodeConfig": {"machineType": "ct5p-hightpu-8t", "diskSizeGb": 200}}
    head = {"resources": [{"urn": urn, "type": "gcp:container/nodePool:NodePool", "inputs": head_inputs,
                           "replaceOnChanges": ["nodeConfig.machineType"]}]}
    [diff] = diff_graphs(base, head)
    assert (diff.op, diff.symbol, [c.path for c in diff.changes]) == ("replace", "+-", ["nodeConfig.machineType"])
    other = {"resources": [{**head["resources"][0], "inputs": {"nodeConfig": {"machineType": "ct5p-hightpu-4t",
                                                                              "diskSizeGb": 500}}}]}
    [update] = diff_graphs(base, other)
    assert update.op == "update"


def test_unchanged_never_counts_providers() -> None:
    """A new stack creates its providers too; the resource counts leave them out, so nothing is
    "-2 unchanged"."""
    from accelplane.diff.plan_diff import PlanDiff
    from accelplane.diff.resources import diff_graphs

    head = {"resources": [
        {"urn": "urn:pulumi:s::p::pulumi:providers:gcp::g", "type": "pulumi:providers:gcp", "inputs": {}},
        {"urn": "urn:pulumi:s::p::gcp:storage/bucket:Bucket::b", "type": "gcp:storage/bucket:Bucket", "inputs": {}},
    ]}
    diff = PlanDiff(stack="s", base_ref="HEAD", base_commit="0" * 40, base_resources=0, head_resources=1,
                    resources=diff_graphs({"resources": []}, head), introduced=[], resolved=[], software=[])
    assert diff.summary()["create"] == 2 and diff.summary()["unchanged"] == 0
