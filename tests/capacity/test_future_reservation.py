"""A GKE pool on a calendar-mode future reservation the stack requests: tpu-prod's H100 training pool moved
from spot to two a3-highgpu-8g reserved for 14 days in us-central1-a. The request and how the pool
consumes it, what the declaration refuses, what `check` (AP-CAP-003), `cost` and `preview` say, the
request a change must keep (AP-CAP-002), and `capacity sync` following its life on the Google API fake.

What the plan must hold is written from Compute Engine's calendar-mode guide (a request in mode CALENDAR,
submitted, for a machine type and count over a time window; Google provisions a reservation at the
start) and GKE's reservation guide (specific reservation affinity by name), and checked against compute v1
and container v1's discovery documents. The commitment, worked by hand: 2 machines * 336 hours * $88.49
(a3-highgpu-8g in us-central1, accelplane/clouds/gcp/prices.yaml) = $59,465.28.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from accelplane.capacity.purchases import purchase_lines, purchase_problems
from accelplane.cli import main
from accelplane.config.loader import load_stack_text
from accelplane.program import offline_graph
from tests.gcp.gcp_discovery import check_resources
from tests.support.google_api_fake import GoogleApiFake
from tests.support.google_api_fake.key_file import key_file
from tests.support.stack_files import edit_problems, stack_text

STACK = "tpu-prod"
REQUEST_TYPE = "gcp:compute/futureReservation:FutureReservation"
SPOT = "        capacity: {type: spot}\n        scaling: {min: 0, desired: 1, max: 2}\n        disk_gib: 500\n"
REQUEST = ("        capacity:\n          type: capacity_reservation\n          future_reservation:\n"
           "            zone: us-central1-a\n            machines: 2\n            start: 2026-12-21T00:00:00Z\n"
           "            end: 2027-01-04T00:00:00Z\n            max_usd: 60000\n"
           "            approved_by: head-of-ml@acme.example\n            approved_on: 2026-12-07\n"
           "        scaling: {min: 0, desired: 0, max: 2}\n        disk_gib: 500\n")
BUDGET = ("    kubernetes_version: \"1.33\"\n",
          "    kubernetes_version: \"1.33\"\n"
          "    budget: {monthly_usd: 400000, billing_account: 01A2B3-C4D5E6-F7A8B9}\n")


def _text(*edits: tuple[str, str]) -> str:
    text = stack_text(STACK)
    for old, new in ((SPOT, REQUEST), *edits):
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def _plan(text: str) -> list[dict[str, Any]]:
    stack = load_stack_text(text, path=f"Pulumi.{STACK}.yaml", stack=STACK)
    return offline_graph(stack).to_json()["resources"]


@pytest.fixture(scope="module")
def plan() -> list[dict[str, Any]]:
    return _plan(_text(BUDGET))


def _one(resources: list[dict[str, Any]], type_token: str, name: str) -> dict[str, Any]:
    [found] = [r for r in resources if r["type"] == type_token and r["urn"].endswith(f"::{name}")]
    return found


def test_the_request_is_sent_once_protected_in_calendar_mode_with_its_approval(plan) -> None:
    request = _one(plan, REQUEST_TYPE, "acme-tpu-train-h100-future-reservation")
    assert request["protect"] is True  # an approved request bills its whole period: never deleted by `up`
    assert request["inputs"] == {
        "name": "acme-tpu-train-h100", "zone": "us-central1-a", "reservationMode": "CALENDAR",
        "planningStatus": "SUBMITTED", "reservationName": "acme-tpu-train-h100",
        "specificReservationRequired": True, "autoDeleteAutoCreatedReservations": True,
        "specificSkuProperties": {"instanceProperties": {"machineType": "a3-highgpu-8g"}, "totalCount": "2"},
        "timeWindow": {"startTime": "2026-12-21T00:00:00Z", "endTime": "2027-01-04T00:00:00Z"},
        "description": "accelplane purchase; approved-by=head-of-ml@acme.example; approved-on=2026-12-07; "
                       "max-usd=60000.00",
    }


def test_the_pool_consumes_the_reservation_by_name_in_its_zone_from_empty(plan) -> None:
    pool = _one(plan, "gcp:container/nodePool:NodePool", "acme-tpu-train-h100-pool")
    inputs = pool["inputs"]
    assert inputs["nodeConfig"]["reservationAffinity"] == {
        "consumeReservationType": "SPECIFIC_RESERVATION", "key": "compute.googleapis.com/reservation-name",
        "values": ["acme-tpu-train-h100"]}
    assert inputs["nodeConfig"]["spot"] is False
    assert inputs["nodeLocations"] == ["us-central1-a"] and inputs["nodeCount"] == 0
    assert "autoscaling" not in inputs  # `capacity sync` sets the size, not the cluster autoscaler


def test_request_and_pool_hold_only_compute_and_container_fields() -> None:
    stack = load_stack_text(_text(BUDGET), path=f"Pulumi.{STACK}.yaml", stack=STACK)
    graph = offline_graph(stack)
    resources = [r for r in graph.resources if r.type == REQUEST_TYPE or r.name == "acme-tpu-train-h100-pool"]
    report = check_resources(resources)
    assert len(resources) == 2 and not report.problems, report.problems
    assert ("gcp:compute/futureReservation:FutureReservation", "reservationMode", "CALENDAR") in report.enums


@pytest.mark.parametrize(
    ("edits", "field", "expected"),
    [
        (((REQUEST, REQUEST.replace("desired: 0", "desired: 1")),), "node_pools[3].scaling",
         "holds no node before the reservation starts"),
        (((REQUEST, REQUEST.replace("max: 2", "max: 3")),), "node_pools[3].scaling.max",
         "3 nodes, but the future reservation holds 2 machines"),
        (((REQUEST, REQUEST.replace("zone: us-central1-a", "zone: us-central1-c")),),
         "node_pools[3].capacity.future_reservation.zone", "zone 'us-central1-c' is not one of gcp.zones"),
        (((REQUEST, REQUEST.replace("end: 2027-01-04T00:00:00Z", "end: 2027-03-22T00:00:00Z")),),
         "node_pools[3].capacity.future_reservation", "2184 hours is not a calendar-mode reservation"),
        (((REQUEST, REQUEST.replace("end: 2027-01-04T00:00:00Z", "end: 2027-01-04T06:00:00Z")),),
         "node_pools[3].capacity.future_reservation", "342 hours is not a calendar-mode reservation"),
        (((REQUEST, REQUEST.replace("            approved_on: 2026-12-07\n", "")),),
         "node_pools[3].capacity.future_reservation", "approved_by and approved_on go together"),
        (((REQUEST, REQUEST.replace("type: capacity_reservation\n", "type: capacity_reservation\n"
                                    "          reservation: acme-h100\n")),),
         "node_pools[3].capacity", "declare reservation (one you hold) or future_reservation"),
        # A multi-host slice is created whole by `pulumi up`: not sized by sync.
        ((("capacity: {type: capacity_reservation, reservation: acme-v5p-2x2x4}\n        scaling: {min: 2, desired: 2",
           "capacity:\n          type: capacity_reservation\n          future_reservation: {zone: us-central1-a, "
           "machines: 8, start: 2026-12-21T00:00:00Z, end: 2026-12-28T00:00:00Z, max_usd: 1}\n"
           "        scaling: {min: 0, desired: 0"),),
         "node_pools[1].capacity.future_reservation", "a multi-host TPU slice (2x2x4, 4 VMs) is created whole"),
    ],
    ids=["not-empty", "over-the-reservation", "zone", "over-90-days", "not-whole-days", "half-approval",
         "both-reservations", "multi-host-tpu"],
)
def test_what_calendar_mode_or_the_pool_cannot_take_is_refused_naming_the_field(tmp_path: Path, edits, field,
                                                                                 expected) -> None:
    problems = edit_problems(tmp_path, (SPOT, REQUEST), *edits, stack=STACK)
    assert any(f.removeprefix("accelplane:platform.") == field and expected in m for f, m in problems), problems


def test_check_refuses_a_request_without_approval_over_its_cap_or_without_budget(tmp_path, capsys) -> None:
    path = tmp_path / f"Pulumi.{STACK}.yaml"
    path.write_text(_text(BUDGET))
    assert main(["check", "--stack-file", str(path), "--format", "json", "--as-of", "2026-12-07"]) == 0, \
        capsys.readouterr().out
    capsys.readouterr()
    # $59,465.28 committed against a $50,000 cap, no approval, no budget: three reasons on the one request.
    path.write_text(_text().replace("max_usd: 60000", "max_usd: 50000").replace(
        "            approved_by: head-of-ml@acme.example\n            approved_on: 2026-12-07\n", ""))
    assert main(["check", "--stack-file", str(path), "--format", "json", "--as-of", "2026-12-07"]) == 1
    findings = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["rule"] == "AP-CAP-003"]
    messages = sorted(f["message"] for f in findings)
    assert [f["name"] for f in findings] == ["acme-tpu-train-h100-future-reservation"] * 3, messages
    assert "needs approved_by and approved_on" in messages[0] and "needs the stack's budget" in messages[1]
    assert messages[2].endswith("commits up to $59,465.28 at on-demand prices, $9,465.28 more than the approved "
                                "maximum $50,000.00")


def test_cost_spreads_the_commitment_over_the_month_and_the_nodes_are_prepaid(plan) -> None:
    from accelplane.cost.cloud_pricing import builtin_table
    from accelplane.cost.estimate import estimate_plan

    estimate = estimate_plan({"resources": plan}, "gcp", "us-central1", builtin_table("gcp"), {})
    [request] = [item for item in estimate.items if item.kind == "future reservation"]
    # 336 hours fit in one month: the whole $59,465.28 counts in it.
    assert request.monthly(730) == pytest.approx((59465.28,) * 3)
    [pool] = [item for item in estimate.items if item.pool == "train-h100"]
    assert "prepaid" in pool.parts[0].what and pool.parts[0].unit_price == 0.0


def test_preview_lists_what_up_would_request(plan) -> None:
    assert purchase_lines(plan) == [
        "future reservation acme-tpu-train-h100 (2 x a3-highgpu-8g in us-central1-a, 2026-12-21T00:00:00Z to "
        "2027-01-04T00:00:00Z, up to $59,465.28 at on-demand prices, approved by head-of-ml@acme.example on "
        "2026-12-07)"]


def test_a_change_that_drops_or_amends_a_request_is_refused(plan) -> None:
    back_to_spot = _plan(stack_text(STACK))
    [(resource, why)] = purchase_problems(plan, back_to_spot)
    assert resource["urn"].endswith("::acme-tpu-train-h100-future-reservation") and "leaves the plan" in why
    longer = _plan(_text(BUDGET).replace("end: 2027-01-04T00:00:00Z", "end: 2027-01-11T00:00:00Z"))
    [(_, why)] = purchase_problems(plan, longer)
    assert "timeWindow changed after the purchase" in why
    smaller_pool = _plan(_text(BUDGET).replace("scaling: {min: 0, desired: 0, max: 2}",
                                               "scaling: {min: 0, desired: 0, max: 1}"))
    assert purchase_problems(plan, smaller_pool) == []


# --- capacity sync on the Google API fake ---------------------------------------------------------------

PROJECT = "acme-ml-tpu-prod"
FR_PATH = f"projects/{PROJECT}/zones/us-central1-a/futureReservations/acme-tpu-train-h100"
POOL_PATH = f"projects/{PROJECT}/locations/us-central1/clusters/acme-tpu/nodePools/train-h100"
GROUP = "gke-acme-tpu-train-h100-0a1b2c3d-grp"
GROUP_PATH = f"projects/{PROJECT}/zones/us-central1-a/instanceGroupManagers/{GROUP}"


def _request_resource(status: str, fulfilled: str | None = None) -> dict[str, Any]:
    """The request as compute v1's futureReservations.get answers it (the reference's fields)."""
    answer: dict[str, Any] = {
        "kind": "compute#futureReservation", "name": "acme-tpu-train-h100",
        "zone": f"https://www.googleapis.com/compute/v1/projects/{PROJECT}/zones/us-central1-a",
        "reservationMode": "CALENDAR", "planningStatus": "SUBMITTED", "reservationName": "acme-tpu-train-h100",
        "specificSkuProperties": {"instanceProperties": {"machineType": "a3-highgpu-8g"}, "totalCount": "2"},
        "timeWindow": {"startTime": "2026-12-21T00:00:00Z", "endTime": "2027-01-04T00:00:00Z"},
        "status": {"procurementStatus": status}}
    if fulfilled is not None:
        answer["status"]["fulfilledCount"] = fulfilled
    return answer


@pytest.fixture
def google(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[GoogleApiFake]:
    with GoogleApiFake() as fake:
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key_file(tmp_path, fake.url, PROJECT, "sync")))
        # container v1's paths hold the version ("v1/{+name}"), as the fake keys them.
        fake.put("container", "v1", f"v1/{POOL_PATH}", {
            "name": "train-h100", "initialNodeCount": 0, "locations": ["us-central1-a"],
            "instanceGroupUrls": [f"https://www.googleapis.com/compute/v1/{GROUP_PATH}"]})
        fake.put("compute", "v1", GROUP_PATH, {"name": GROUP, "zone": "us-central1-a", "targetSize": 0})
        stack = tmp_path / f"Pulumi.{STACK}.yaml"
        stack.write_text(_text(BUDGET))
        fake.stack = stack  # type: ignore[attr-defined]
        yield fake
        assert fake.schema_errors == []


def _sync(fake: GoogleApiFake, capsys: pytest.CaptureFixture[str], now: str, *extra: str) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["capacity", "sync", "--stack-file", str(fake.stack), "--now", now,  # type: ignore[attr-defined]
                 "--format", "json", f"--api-endpoint=compute={fake.endpoint('compute', 'v1')}",
                 f"--api-endpoint=container={fake.endpoint('container', 'v1')}", *extra])
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return code, json.loads(out)


def _target_size(fake: GoogleApiFake) -> int:
    return fake.state.resources[f"compute/v1/{GROUP_PATH}"]["targetSize"]


def test_sync_holds_the_pool_empty_until_google_provides_the_reservation(google, capsys) -> None:
    google.put("compute", "v1", FR_PATH, _request_resource("APPROVED"))
    code, data = _sync(google, capsys, "2026-12-20T23:00:00Z", "--apply")
    assert code == 0
    [row] = data["pools"]
    assert (row["state"], row["size"], row["live_size"], row["action"]) == ("APPROVED", 0, 0, "none")
    assert "container.projects.locations.clusters.nodePools.setSize" not in google.calls


def test_sync_sizes_the_pool_while_fulfilled_and_drains_it_before_the_end(google, capsys) -> None:
    google.put("compute", "v1", FR_PATH, _request_resource("FULFILLED"))
    code, data = _sync(google, capsys, "2026-12-21T00:15:00Z")
    assert code == 1 and data["pools"][0]["action"] == "would set" and _target_size(google) == 0
    # Both machines idle and billed: 2 * $88.49 an hour.
    assert (data["pools"][0]["idle_machines"], data["pools"][0]["idle_usd_per_hour"]) == (2, 176.98)
    code, data = _sync(google, capsys, "2026-12-21T00:15:00Z", "--apply")
    assert code == 0 and data["pools"][0]["action"] == "set" and _target_size(google) == 2
    assert google.calls.count("container.projects.locations.clusters.nodePools.setSize") == 1
    # 45 minutes before the end (2027-01-04T00:00Z): drained from 2027-01-03T23:15Z.
    code, data = _sync(google, capsys, "2027-01-03T23:15:00Z", "--apply")
    assert code == 0 and data["pools"][0]["size"] == 0 and _target_size(google) == 0
    assert data["pools"][0]["why"] == "ends 2027-01-04T00:00:00Z: drained from 2027-01-03T23:15:00Z"


def test_a_partly_fulfilled_reservation_sizes_the_pool_to_what_google_provided(google, capsys) -> None:
    google.put("compute", "v1", FR_PATH, _request_resource("FAILED_PARTIALLY_FULFILLED", fulfilled="1"))
    code, data = _sync(google, capsys, "2026-12-22T00:00:00Z", "--apply")
    assert code == 0 and data["pools"][0]["size"] == 1 and _target_size(google) == 1


def test_a_request_not_made_yet_holds_no_node(google, capsys) -> None:
    code, data = _sync(google, capsys, "2026-12-22T00:00:00Z")
    assert code == 0 and data["pools"][0]["capacity"] == "none found" and data["pools"][0]["size"] == 0


def test_a_stack_without_a_request_is_refused_offline(tmp_path, capsys) -> None:
    path = tmp_path / f"Pulumi.{STACK}.yaml"
    path.write_text(stack_text(STACK))
    assert main(["capacity", "sync", "--stack-file", str(path)]) == 2
    assert "no pool of the stack is on bought capacity (capacity.future_reservation)" in capsys.readouterr().err


def test_the_approval_day_is_judged_at_as_of(plan) -> None:
    from accelplane.rules.engine import run_rule
    from accelplane.rules.graph import ReferenceGraph
    from accelplane.rules.registry import rule_by_id
    from accelplane.rules.sources import from_plan

    rule = rule_by_id("AP-CAP-003")
    resources = from_plan({"resources": plan}, "plan")
    [before] = run_rule(rule, ReferenceGraph(resources, as_of=dt.date(2026, 12, 6)))[0]
    assert before.message.endswith("approved on 2026-12-07, a day still to come (judged at 2026-12-06)")
    assert run_rule(rule, ReferenceGraph(resources, as_of=dt.date(2026, 12, 7)))[0] == []


def test_a_recommendation_listed_is_declared_by_pasting_what_capacity_offerings_prints(google, capsys) -> None:
    """`capacity offerings` asks calendar mode for the H100 pool's machines and prints the `capacity` that
    requests the recommendation: pasted under the pool with the approval filled in, the stack loads with
    its terms, the commitment at list price ($59,465.28, worked above) as the approved maximum."""
    from accelplane.config.loader import load_stack_file

    google.state.calendar = [  # type: ignore[attr-defined]
        ("us-central1-a", "a3-highgpu-8g", 2, dt.datetime(2026, 12, 21, tzinfo=dt.UTC))]
    capsys.readouterr()
    code = main(["capacity", "offerings", "--stack", STACK, "--pool", "train-h100", "--days", "14", "--count", "2",
                 "--now", "2026-12-07T10:00:00Z", f"--api-endpoint=compute={google.endpoint('compute', 'v1')}",
                 "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    [offer] = json.loads(out)["offerings"]
    snippet = offer["declaration"].replace("<who approves the request>", "cfo@acme.example").replace(
        "<YYYY-MM-DD>", "2026-12-07")
    assert "    max_usd: 59465.28" in snippet.splitlines()
    text = stack_text(STACK).replace(SPOT, "".join(f"        {line}\n" for line in snippet.splitlines())
                                     + "        scaling: {min: 0, desired: 0, max: 2}\n        disk_gib: 500\n")
    path = google.stack  # type: ignore[attr-defined]
    path.write_text(text)
    request = load_stack_file(path, stack=STACK).platform.node_pools[3].capacity.future_reservation
    assert request is not None
    assert (request.zone, request.machines, request.hours, request.max_usd, request.approved_by) == (
        "us-central1-a", 2, 336.0, 59465.28, "cfo@acme.example")


def test_sync_without_google_credentials_is_bad_input(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "missing.json"))
    path = tmp_path / f"Pulumi.{STACK}.yaml"
    path.write_text(_text(BUDGET))
    assert main(["capacity", "sync", "--stack-file", str(path), "--now", "2026-12-22T00:00:00Z"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: accelplane capacity sync") and "Traceback" not in err


def test_moving_a_spot_pool_onto_the_reservation_replaces_it_in_diff(plan) -> None:
    """GKE cannot change a pool's spot setting or reservation affinity in place (the provider's node config
    schema: ForceNew; accelplane/clouds/gcp/force_new.json), so binding a running spot pool to the reservation is a
    new pool, the old one deleted first (the pool's name is fixed); the request is created beside it."""
    from accelplane.diff.resources import diff_graphs

    spot = _plan(stack_text(STACK).replace(*BUDGET))
    changes = {change.name: change for change in diff_graphs({"resources": spot}, {"resources": plan})}
    pool = changes["acme-tpu-train-h100-pool"]
    assert pool.op == "delete-before-replace"
    assert {"nodeConfig.spot", "nodeConfig.reservationAffinity"} <= set(pool.forced_by), pool.forced_by
    assert changes["acme-tpu-train-h100-future-reservation"].op == "create"


def test_preview_prints_what_up_would_request(tmp_path, capsys) -> None:
    path = tmp_path / f"Pulumi.{STACK}.yaml"
    path.write_text(_text(BUDGET))
    main(["preview", "--stack-file", str(path)])
    lines = capsys.readouterr().out.splitlines()
    assert ("    future reservation acme-tpu-train-h100 (2 x a3-highgpu-8g in us-central1-a, 2026-12-21T00:00:00Z to "
            "2027-01-04T00:00:00Z, up to $59,465.28 at on-demand prices, approved by head-of-ml@acme.example on "
            "2026-12-07)") in lines
