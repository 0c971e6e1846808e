"""The ends' certificate validation records, written by the migration stack in the zone that serves the
hostname: ACM's DNS validation CNAME for an EKS end's certificate (ACM User Guide, "DNS validation":
`_<hash>.<domain>` to `_<hash>.<...>.acm-validations.aws`), Certificate Manager's DNS authorization CNAME
for a GKE end's (`_acme-challenge_<id>.<domain>` to `<uuid>.<n>.authorize.certificatemanager.goog`).

Expected values are the records as the two services document them, not the program's: Route 53 takes names
without the trailing dot, Cloud DNS with it (checked against dns v1's discovery document).
"""

from __future__ import annotations

from pathlib import Path

from accelplane.config.project import find_project
from accelplane.migration.loader import load_migration
from accelplane.program import migration_offline_graph
from tests.migration.test_migrate_cloud_dns import ZONE, _gke_move
from tests.migration.test_migration_declaration import line, problems
from tests.support.google_api_fake import schema
from tools import google_discovery

ACM = ("_a79865eb4cd1a6ab990a45779b4e0b96.llm.acme.example",
       "_424c7224e9b0146f9a8808af955727d0.xlfgrmvvlj.acm-validations.aws")
AUTHORIZATION = ("_acme-challenge_ujmmovf2vn55tgye.llm.acme.example",
                 "8d2b3c4f-1a2b-4c3d-9e8f-0a1b2c3d4e5f.4.authorize.certificatemanager.goog")
FIELD = "accelplane:migration.certificate_validation"


def test_route53_holds_both_ends_validation_records_beside_the_weighted_ones() -> None:
    graph = migration_offline_graph(load_migration(find_project().stack_file("llm-move")))
    records = {r.name: r.inputs for r in graph.by_type("aws:route53/record:Record")}
    # A validation CNAME never changes while its certificate lives: 300 s, the TTL ACM's own records carry.
    assert records["llm-move-validation-0"] == {"zoneId": "Z0123456789ABCDEFGHIJ", "name": ACM[0], "type": "CNAME",
                                                "ttl": 300, "records": [ACM[1]]}
    assert records["llm-move-validation-1"] == {"zoneId": "Z0123456789ABCDEFGHIJ", "name": AUTHORIZATION[0],
                                                "type": "CNAME", "ttl": 300, "records": [AUTHORIZATION[1]]}


def test_cloud_dns_holds_them_with_trailing_dots_as_its_api_takes_them(tmp_path: Path) -> None:
    graph = migration_offline_graph(load_migration(_gke_move(tmp_path, 0)))
    [record] = [r for r in graph.by_type("gcp:dns/recordSet:RecordSet") if r.name.endswith("-validation-0")]
    assert record.inputs == {"project": "acme-dns", "managedZone": "acme-example", "name": f"{AUTHORIZATION[0]}.",
                             "type": "CNAME", "ttl": 300, "rrdatas": [f"{AUTHORIZATION[1]}."]}
    body = {key: value for key, value in record.inputs.items() if key not in ("project", "managedZone")}
    assert schema.errors(google_discovery.load("dns", "v1").schemas, "ResourceRecordSet", body) == []
    assert ZONE == "projects/acme-dns/managedZones/acme-example"


def test_a_record_that_validates_nothing_here_is_refused_naming_its_line(tmp_path: Path) -> None:
    found = problems(tmp_path, {"llm-move": [
        (f"name: {ACM[0]}", "name: _a79865eb4cd1a6ab990a45779b4e0b96.www.acme.example"),
        (f"value: {AUTHORIZATION[1]}", "value: ghs.googlehosted.com")]})
    path = tmp_path / "Pulumi.llm-move.yaml"
    assert (f"{FIELD}[0].name", line(path, "www.acme.example"),
            "'_a79865eb4cd1a6ab990a45779b4e0b96.www.acme.example' is not below the hostname 'llm.acme.example': a "
            "certificate for llm.acme.example is validated at a name under it") in found
    assert (f"{FIELD}[1].value", line(path, "ghs.googlehosted.com"),
            "'ghs.googlehosted.com' is in no end's validation domain (acm-validations.aws for ACM's DNS validation "
            "('prod'); authorize.certificatemanager.goog for Certificate Manager's DNS authorization "
            "('tpu-prod')): only the ends' certificate validation records belong here; other records stay with "
            "the zone's owner") in found


def test_one_name_given_twice_is_refused(tmp_path: Path) -> None:
    found = problems(tmp_path, {"llm-move": [(f"name: {AUTHORIZATION[0]}", f"name: {ACM[0]}")]})
    assert (f"{FIELD}[1].name", f"'{ACM[0]}' is given twice: a name holding a CNAME holds nothing else") in {
        (field, message) for field, _, message in found}


def test_a_type_other_than_cname_is_refused(tmp_path: Path) -> None:
    found = problems(tmp_path, {"llm-move": [(f"      - name: {ACM[0]}\n",
                                              f"      - name: {ACM[0]}\n        type: TXT\n")]})
    assert [(field, message) for field, _, message in found] == [
        (f"{FIELD}[0].type", "Input should be 'CNAME' (got 'TXT')")]
