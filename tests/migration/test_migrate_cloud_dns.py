"""A migration's live weights on Cloud DNS: read from the weighted-round-robin record set and set in one
`changes.create`, against the Google API fake serving Cloud DNS's v1 discovery document (bodies checked
against its schemas, lists in pages of one record set). No Cloud DNS emulator exists to run here (the
Google Cloud SDK's emulators cover Datastore, Firestore, Bigtable, Pub/Sub and Spanner), so the fake
refuses what Cloud DNS's reference says it refuses (tests/support/google_api_fake/dns.py).

The migration here is two GKE ends (a service moving from one project's cluster to another's): Cloud
DNS cannot weigh an ALB's name beside an address, so the example prod → tpu-prod uses Route 53.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from googleapiclient.errors import HttpError

from accelplane.clouds.gcp.connection import GcpConnection
from accelplane.clouds.gcp.migration_dns import CLOUD_DNS
from accelplane.config.project import find_project
from accelplane.migration.facets import LiveDnsError, LiveRecords
from tests.support.cli_process import run_accelplane
from tests.support.google_api_fake import GoogleApiFake
from tests.support.google_api_fake.key_file import key_file
from tests.support.stack_files import stack_text

PROJECT, ZONE_ID = "acme-dns", "acme-example"
ZONE = f"projects/{PROJECT}/managedZones/{ZONE_ID}"
HOSTNAME = "llm.acme.example"
# The example's validation record of prod's ACM certificate.
ACM_VALIDATION = ("      # prod's ACM certificate (DNS validation; renewals read the same record).\n"
                  "      - name: _a79865eb4cd1a6ab990a45779b4e0b96.llm.acme.example\n"
                  "        value: _424c7224e9b0146f9a8808af955727d0.xlfgrmvvlj.acm-validations.aws\n")
ARTIFACTS_LINE = ("    artifacts: {bucket: model_artifacts, source_prefix: released/, target_prefix: llm/, "
                  "copy_on: 2026-12-07}\n")
NAME = HOSTNAME + "."
# The two Gateways' global addresses (documentation-style examples).
SOURCE_ADDRESS, TARGET_ADDRESS = "34.117.197.99", "34.120.10.20"


def _record(source: float, target: float, *, items: int = 2) -> dict:
    """The A record set `pulumi up --stack gke-move` creates, as Cloud DNS's API shows it: the source's
    address first, then the target's."""
    addresses = [SOURCE_ADDRESS, TARGET_ADDRESS, "34.1.2.3"][:items]
    weights = [source, target, 0.0][:items]
    return {"name": NAME, "type": "A", "ttl": 60, "routingPolicy": {"wrr": {"items": [
        {"weight": weight, "rrdatas": [address]} for weight, address in zip(weights, addresses, strict=True)]}}}


@pytest.fixture
def fake() -> Iterator[GoogleApiFake]:
    with GoogleApiFake(page_size=1) as fake:
        dns = fake.client("dns", "v1")
        dns.managedZones().create(project=PROJECT, body={"name": ZONE_ID, "dnsName": "acme.example.",
                                                         "description": "acme's public zone"}).execute()
        rrsets = dns.resourceRecordSets()
        # Other names and types of the zone, before and after the migration's name: the reader pages past them.
        for other in ({"name": "api.acme.example.", "type": "A", "ttl": 300, "rrdatas": ["203.0.113.10"]},
                      {"name": NAME, "type": "TXT", "ttl": 300, "rrdatas": ['"owner=ml-platform"']},
                      {"name": "www.acme.example.", "type": "CNAME", "ttl": 300, "rrdatas": ["acme.example."]}):
            rrsets.create(project=PROJECT, managedZone=ZONE_ID, body=other).execute()
        fake.dns = dns  # type: ignore[attr-defined]
        yield fake
        assert not fake.schema_errors, fake.schema_errors


def _seed(fake: GoogleApiFake, record: dict) -> None:
    fake.dns.resourceRecordSets().create(project=PROJECT, managedZone=ZONE_ID, body=record).execute()  # type: ignore[attr-defined]


def _live(fake: GoogleApiFake) -> dict:
    return fake.dns.resourceRecordSets().get(project=PROJECT, managedZone=ZONE_ID, name=NAME, type="A").execute()  # type: ignore[attr-defined]


def _records(fake: GoogleApiFake) -> LiveRecords:
    return LiveRecords(zone=ZONE, hostname=HOSTNAME, labels=("tpu-prod", "tpu-west"),
                       connection=GcpConnection({"dns": fake.endpoint("dns", "v1")}))


@pytest.fixture
def credentials(tmp_path: Path, fake: GoogleApiFake, monkeypatch: pytest.MonkeyPatch) -> Path:
    key = key_file(tmp_path, fake.url, PROJECT, "migrate")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key))
    return key


def test_the_weights_are_each_ends_share_of_the_items_in_declaration_order(fake, credentials) -> None:
    # Weights are doubles; 3:1 is 75 % and 25 %, the source being the first item.
    _seed(fake, _record(3.0, 1.0))
    assert CLOUD_DNS.read_weights is not None
    assert CLOUD_DNS.read_weights(_records(fake)) == {"tpu-prod": 75, "tpu-west": 25}
    # The reader asked for the name only, and followed the pages of one record set to it.
    assert fake.calls.count("dns.resourceRecordSets.list") == 2


def test_setting_the_weights_is_one_change_that_keeps_each_items_address(fake, credentials) -> None:
    _seed(fake, _record(75.0, 25.0))
    assert CLOUD_DNS.write_weights is not None
    change = CLOUD_DNS.write_weights(_records(fake), {"tpu-prod": 100, "tpu-west": 0})
    live = _live(fake)
    assert live["routingPolicy"]["wrr"]["items"] == [{"weight": 100.0, "rrdatas": [SOURCE_ADDRESS]},
                                                     {"weight": 0.0, "rrdatas": [TARGET_ADDRESS]}]
    assert live["ttl"] == 60 and fake.calls.count("dns.changes.create") == 1
    made = fake.dns.changes().get(project=PROJECT, managedZone=ZONE_ID, changeId=change).execute()  # type: ignore[attr-defined]
    assert made["status"] == "done" and made["deletions"][0]["routingPolicy"]["wrr"]["items"][1]["weight"] == 25.0


def test_a_record_set_of_other_items_is_not_the_migrations(fake, credentials) -> None:
    _seed(fake, _record(50.0, 25.0, items=3))
    assert CLOUD_DNS.write_weights is not None
    with pytest.raises(LiveDnsError, match=r"weighs 3 items where the migration declares 2 \(tpu-prod, tpu-west\)"):
        CLOUD_DNS.write_weights(_records(fake), {"tpu-prod": 100, "tpu-west": 0})
    assert "dns.changes.create" not in fake.calls


def test_no_weighted_record_set_says_to_run_pulumi_up(fake, credentials) -> None:
    assert CLOUD_DNS.read_weights is not None
    with pytest.raises(LiveDnsError, match=r"has no weighted record set of llm\.acme\.example: run `pulumi up`"):
        CLOUD_DNS.read_weights(_records(fake))


def test_a_denied_change_names_the_permissions_it_needs(fake, credentials) -> None:
    _seed(fake, _record(75.0, 25.0))
    fake.fault("dns.changes.create", "denied", permission="dns.changes.create")
    assert CLOUD_DNS.write_weights is not None
    refused = r"Cloud DNS refused the weights of llm\.acme\.example: .*dns\.changes\.create"
    with pytest.raises(LiveDnsError, match=refused):
        CLOUD_DNS.write_weights(_records(fake), {"tpu-prod": 100, "tpu-west": 0})
    assert _live(fake)["routingPolicy"]["wrr"]["items"][1]["weight"] == 25.0


# -- the fake refuses what Cloud DNS refuses ------------------------------------------------------------


def test_the_fake_refuses_a_deletion_that_is_not_what_the_zone_holds_and_applies_nothing(fake) -> None:
    _seed(fake, _record(75.0, 25.0))
    stale = _record(50.0, 50.0)  # read before someone moved the weights
    body = {"deletions": [stale], "additions": [_record(100.0, 0.0)]}
    with pytest.raises(HttpError) as refused:
        fake.dns.changes().create(project=PROJECT, managedZone=ZONE_ID, body=body).execute()  # type: ignore[attr-defined]
    assert refused.value.resp.status == 412 and "entity.change.deletions[0]" in str(refused.value)
    assert _live(fake)["routingPolicy"]["wrr"]["items"][0]["weight"] == 75.0


def test_the_fake_refuses_an_addition_of_a_set_that_exists_and_keeps_the_deletion_undone(fake) -> None:
    _seed(fake, _record(75.0, 25.0))
    txt = {"name": NAME, "type": "TXT", "ttl": 300, "rrdatas": ['"owner=ml-platform"']}
    body = {"deletions": [txt], "additions": [_record(100.0, 0.0)]}
    with pytest.raises(HttpError) as refused:
        fake.dns.changes().create(project=PROJECT, managedZone=ZONE_ID, body=body).execute()  # type: ignore[attr-defined]
    assert refused.value.resp.status == 409
    listed = fake.dns.resourceRecordSets().list(project=PROJECT, managedZone=ZONE_ID, name=NAME, type="TXT",  # type: ignore[attr-defined]
                                                maxResults=10).execute()
    assert [r["type"] for r in listed["rrsets"]] == ["TXT"]  # the deletion was not applied either


@pytest.mark.parametrize(("record", "why"), [
    ({"name": "llm.acme.example", "type": "A", "ttl": 60, "rrdatas": ["34.1.2.3"]}, "fully qualified"),
    ({"name": "llm.other.example.", "type": "A", "ttl": 60, "rrdatas": ["34.1.2.3"]}, "not in zone"),
    ({**_record(1.0, 1.0), "rrdatas": ["34.1.2.3"]}, "cannot both be set"),
    (_record(-1.0, 1.0), "non-negative"),
])
def test_the_fake_refuses_record_sets_cloud_dns_refuses(fake, record, why) -> None:
    with pytest.raises(HttpError) as refused:
        _seed(fake, record)
    assert refused.value.resp.status == 400 and why in str(refused.value)


def test_the_fake_lists_a_type_only_with_a_name(fake) -> None:
    with pytest.raises(HttpError) as refused:
        fake.dns.resourceRecordSets().list(project=PROJECT, managedZone=ZONE_ID, type="A").execute()  # type: ignore[attr-defined]
    assert refused.value.resp.status == 400


# -- the command ---------------------------------------------------------------------------------------


def _gke_move(tmp_path: Path, weight: int) -> Path:
    """tpu-prod's llm-server moving to the same service in another project's cluster, on Cloud DNS."""
    (tmp_path / "Pulumi.tpu-prod.yaml").write_text(stack_text("tpu-prod"))
    west = stack_text("tpu-prod").replace("acme-ml-tpu-prod", "acme-ml-tpu-west")
    (tmp_path / "Pulumi.tpu-west.yaml").write_text(west)
    text = stack_text("llm-move")
    for old, new in (("source: {stack: prod, service: serve}", "source: {stack: tpu-prod, service: llm-server}"),
                     ("target: {stack: tpu-prod, service: llm-server}",
                      "target: {stack: tpu-west, service: llm-server}"),
                     ("dns: {service: route53, zone: Z0123456789ABCDEFGHIJ}",
                      f"dns: {{service: cloud-dns, zone: {ZONE}}}"),
                     ("    weight: 0", f"    weight: {weight}"),
                     # The model's files stay out: the copy is not what these tests are about; so does
                     # prod's ACM validation record (no AWS end: no ACM certificate to validate).
                     (ARTIFACTS_LINE, ""), (ACM_VALIDATION, "")):
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / "Pulumi.gke-move.yaml"
    path.write_text(text)
    return path


def _migrate(fake: GoogleApiFake, key: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GOOGLE_APPLICATION_CREDENTIALS": str(key)}
    return run_accelplane(["migrate", *args, f"--api-endpoint=dns={fake.endpoint('dns', 'v1')}"],
                          cwd=find_project().root, env=env)


def test_migrate_reads_cloud_dns_and_abort_moves_both_items_in_one_change(tmp_path, fake, credentials) -> None:
    path = _gke_move(tmp_path, 25)
    _seed(fake, _record(75.0, 25.0))
    status = _migrate(fake, credentials, "status", "--stack-file", path, "--format", "json",
                      "--now", "2026-12-07T10:00:00Z")
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["live"] == {"tpu-prod": 75, "tpu-west": 25}
    comment = _migrate(fake, credentials, "status", "--stack-file", path, "--format", "markdown",
                       "--now", "2026-12-07T10:00:00Z")
    assert comment.returncode == 0, comment.stderr
    assert comment.stdout.startswith("### Migration `gke-move`: llm.acme.example\n")
    # No Prometheus given: the table shows the weights, and no traffic.
    assert "| source | tpu-prod | 75% | 75% | - | - | - |" in comment.stdout
    assert "| target | tpu-west | 25% | 25% | - | - | - |" in comment.stdout

    abort = _migrate(fake, credentials, "abort", "--stack-file", path, "--apply", "--now", "2026-12-07T10:00:00Z")
    assert abort.returncode == 0, abort.stdout + abort.stderr
    assert [item["weight"] for item in _live(fake)["routingPolicy"]["wrr"]["items"]] == [100.0, 0.0]
    assert "    weight: 0\n" in path.read_text() and "applied Cloud DNS change" in abort.stdout
    # Cloud DNS's propagation is unbounded in the pages read: 120 s assumed, plus the 60 s TTL clients cache.
    assert "clients follow within 180 s at worst" in abort.stdout


def test_weights_moved_by_hand_in_cloud_dns_refuse_advance(tmp_path, fake, credentials) -> None:
    path = _gke_move(tmp_path, 0)
    _seed(fake, _record(50.0, 50.0))
    before = path.read_text()
    result = _migrate(fake, credentials, "advance", "--stack-file", path, "--now", "2026-12-07T10:00:00Z")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "the DNS serves tpu-prod 50%, tpu-west 50%, the stack file declares tpu-prod 100%, tpu-west 0%" \
        in result.stdout
    assert path.read_text() == before


def test_a_change_cloud_dns_refuses_leaves_the_stack_file_as_it_was(tmp_path, fake, credentials) -> None:
    path = _gke_move(tmp_path, 25)
    _seed(fake, _record(75.0, 25.0))
    fake.fault("dns.changes.create", "denied", permission="dns.changes.create")
    before = path.read_text()
    result = _migrate(fake, credentials, "abort", "--stack-file", path, "--apply", "--now", "2026-12-07T10:00:00Z")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "the DNS (Cloud DNS) did not take the change, and the stack file is left as it was" in result.stderr
    assert path.read_text() == before


def test_without_google_credentials_the_dns_is_named(tmp_path, fake) -> None:
    path = _gke_move(tmp_path, 25)
    result = _migrate(fake, tmp_path / "missing.json", "status", "--stack-file", path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "accelplane:migration.dns: the DNS (Cloud DNS)" in result.stderr
    assert "missing.json" in result.stderr
