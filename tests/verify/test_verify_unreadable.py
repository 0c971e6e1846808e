"""AWS answers verify cannot read are read errors, never the platform's state (issue 51, AWS side).

botocore reads a JSON body it cannot parse as `{"message": ...}` and an empty body as `{}`: a cut
`eks.ListNodegroups` answer read as "no node groups", an empty `DescribeCluster` as "no cluster". Each
fault is served in front of moto by a `before-send` hook for one operation (the way a proxy or a
dropped connection would answer), while every other call reaches moto's platform; what the fault
hides must be "not verified", with no drift finding for it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import boto3
import pytest
from botocore.awsrequest import AWSResponse
from moto.core.botocore_stubber import MockRawResponse

from accelplane.clouds.aws.clients import AwsClients, DeadlineError
from accelplane.clouds.aws.verify.reader import AwsReader
from accelplane.verify.results import CheckId, Status
from accelplane.verify.verification import VerifyOptions, verify
from accelplane.verify.verify_output import to_report
from tests.verify.moto_platform import MotoPlatform

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
CLUSTER = "aws:eks/cluster:Cluster"
VPC = "aws:ec2/vpc:Vpc"
JSON = {"Content-Type": "application/json"}
XML = {"Content-Type": "text/xml;charset=UTF-8"}


def _answer(status: int, body: bytes, headers: dict[str, str], times: int | None, seen: list[str]) -> Callable:
    def before_send(request: Any, **_: Any) -> AWSResponse | None:
        if times is not None and len(seen) >= times:
            return None  # moto answers from here on
        seen.append(request.url)
        return AWSResponse(request.url, status, headers, MockRawResponse(body))

    return before_send


def _verify(stack: Any, graph: Any, faults: dict[str, tuple[int, bytes, dict[str, str]]], *, times: int | None = None,
            **clients: Any) -> tuple[Any, dict[str, list[str]]]:
    session = boto3.Session(region_name="us-east-1")
    seen: dict[str, list[str]] = {}
    for event, (status, body, headers) in faults.items():
        answer = _answer(status, body, headers, times, seen.setdefault(event, []))
        session.events.register(f"before-send.{event}", answer)
    reader = AwsReader(AwsClients("us-east-1", session=session, max_attempts=2, **clients))
    return verify(stack, VerifyOptions(probes=0, checkpoint_drill="off"), graph=graph, reader=reader), seen


def _drift(report: Any) -> list[str]:
    drift = (CheckId.drift_missing, CheckId.drift_changed, CheckId.drift_unexpected, CheckId.stack_missing)
    return [f"{r.check} {r.name}: {r.message}" for r in report.results
            if r.check in drift and r.status is not Status.passed]


def _read_errors(report: Any) -> list[str]:
    """The failed calls, each naming its operation and what went wrong."""
    return [r.message for r in report.results if r.check == CheckId.read_error and not r.type]


def _unread(report: Any, type_token: str) -> list[str]:
    return [r.message for r in report.results if r.check == CheckId.read_error and r.type == type_token]


# A ListNodegroups answer cut in the middle of its second name, as a dropped connection leaves it.
CUT_NODEGROUPS = b'{"nodegroups": ["acme-ml-dev-infer-l4-ng", "acme-ml-d'


def test_a_cut_json_answer_is_retried_then_a_read_error_never_no_node_groups(
    live_dev: MotoPlatform, dev_stack: Any, dev_graph: Any
) -> None:
    report, seen = _verify(dev_stack, dev_graph, {"eks.ListNodegroups": (200, CUT_NODEGROUPS, JSON)})
    assert _drift(report) == []
    assert _unread(report, NODE_GROUP)
    named = [m for m in _read_errors(report) if "eks.ListNodegroups" in m]
    assert named and all("a JSON body cut short or malformed" in m and "after 3 attempts" in m for m in named)
    assert report.failed and len(seen["eks.ListNodegroups"]) == 3


def test_a_cut_answer_once_is_made_again_and_the_run_is_clean(
    live_dev: MotoPlatform, dev_stack: Any, dev_graph: Any
) -> None:
    report, seen = _verify(dev_stack, dev_graph, {"eks.ListNodegroups": (200, CUT_NODEGROUPS, JSON)}, times=1)
    assert not report.failed and _drift(report) == [] and len(seen["eks.ListNodegroups"]) == 1


@pytest.mark.parametrize(("event", "status", "body", "headers", "words", "type_token"), [
    ("eks.DescribeCluster", 200, b"[]", JSON, "a JSON list where the API answers with an object", CLUSTER),
    ("eks.DescribeCluster", 200, b"{}", JSON, "an empty object where it answers with the resource", CLUSTER),
    ("eks.DescribeCluster", 200, b"", JSON, "an empty body", CLUSTER),
    # The XML protocols' parser raises on a body cut short (kept under test).
    ("ec2.DescribeVpcs", 200, b'<?xml version="1.0" encoding="UTF-8"?>\n<DescribeVpcsResponse xmlns="http://ec2.'
     b'amazonaws.com/doc/2016-11-15/"><vpcSet><item><vpcId>vpc-12', XML, "ResponseParserError", VPC),
    ("eks.DescribeCluster", 503, b'{"message": "Service Unavailable"}',
     {**JSON, "x-amzn-ErrorType": "ServiceUnavailableException"}, "ServiceUnavailableException", CLUSTER),
])
def test_every_unreadable_answer_is_not_verified_and_never_drift(
    live_dev: MotoPlatform, dev_stack: Any, dev_graph: Any, event: str, status: int, body: bytes,
    headers: dict[str, str], words: str, type_token: str,
) -> None:
    report, _ = _verify(dev_stack, dev_graph, {event: (status, body, headers)})
    assert _drift(report) == [], _drift(report)
    assert _unread(report, type_token)
    assert any(words in m for m in _read_errors(report)), _read_errors(report)
    assert report.failed


def test_a_run_stops_calling_at_its_deadline_and_says_its_bound(
    live_dev: MotoPlatform, dev_stack: Any, dev_graph: Any
) -> None:
    """The clock (injected) reads 0 at the first call, who-am-I, and 1,000 s from then on: past the 100 s
    deadline no attempt starts, everything the run would have read is not verified (never missing), and the
    report states the run's bound (deadline 100 + one attempt's 10 + 60 s timeouts + a 20 s backoff)."""
    readings = iter([0.0])
    report, _ = _verify(dev_stack, dev_graph, {}, deadline=100.0, clock=lambda: next(readings, 1000.0))
    late = [r for r in report.results if r.check == CheckId.read_error and "read deadline passed" in r.message]
    assert late and report.failed
    assert _drift(report) == [], "\n".join(_drift(report))
    assert report.api_calls["bound_seconds"] == 190.0
    assert any("(reading bounded to 190 s)" in note for note in to_report(report).notes)


@pytest.mark.parametrize("step", [3, 7, 11, 17, 23])
def test_a_run_cut_by_its_deadline_anywhere_reports_no_drift_for_what_it_did_not_read(
    live_dev: MotoPlatform, dev_stack: Any, dev_graph: Any, step: int
) -> None:
    """Each attempt reads the clock `step` s later, so the 100 s deadline cuts the run after a different
    number of calls, in the middle of different chains: a cut chain left its resources "missing" (KMS keys
    and aliases, the OIDC provider, load balancers and listeners) or other keys "unexpected"; now whatever
    a cut hides is not verified, and what was read is judged."""
    readings = iter(range(0, 100_000, step))
    report, _ = _verify(dev_stack, dev_graph, {}, deadline=100.0, clock=lambda: float(next(readings)))
    assert _drift(report) == [], "\n".join(_drift(report))
    assert report.failed and any("read deadline passed" in m for m in _read_errors(report))


def test_object_downloads_are_data_and_the_deadline_does_not_stop_them(moto: None) -> None:
    """A checkpoint shard is gigabytes: its download takes its size's time, not a sign of a failing
    API, so the restore drill's GetObject still starts past the deadline while an API read does not."""
    writer = boto3.client("s3", region_name="us-east-1")
    writer.create_bucket(Bucket="checkpoints")
    writer.put_object(Bucket="checkpoints", Key="model.safetensors", Body=b"weights")
    readings = iter([0.0])
    clients = AwsClients("us-east-1", deadline=10.0, clock=lambda: next(readings, 1000.0))
    clients("s3").head_bucket(Bucket="checkpoints")  # the first call starts the run's clock
    body = clients("s3").get_object(Bucket="checkpoints", Key="model.safetensors")["Body"].read()
    assert body == b"weights"
    with pytest.raises(DeadlineError, match="read deadline passed"):
        clients("s3").list_objects_v2(Bucket="checkpoints")
