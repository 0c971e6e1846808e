"""A migration's weighted records on Route 53, live: read their weights, and set them in one change.

Route 53's API (botocore's `route53` model): `ListResourceRecordSets` from the name (records come back
in name order, a weighted set per `SetIdentifier`), and `ChangeResourceRecordSets` with one `UPSERT`
per record in a single change batch — Route 53 applies a batch as one transaction, so an abort never
leaves one end moved and the other not. Each record is written back whole (its alias target, address,
TTL and health check as read), with only `Weight` changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelplane.clouds.aws.connection import aws_connection
from accelplane.migration.facets import LiveDnsError, LiveRecords


def _client(records: LiveRecords) -> Any:
    # Start-up time: boto3 loads only for a live command.
    import boto3

    connection = aws_connection(records.connection)
    session = boto3.Session(profile_name=connection.profile) if connection.profile else boto3.Session()
    # Route 53's API is global: it answers in us-east-1.
    return session.client("route53", region_name="us-east-1", endpoint_url=connection.endpoint_url)


def _call(what: str, call: Any, **kwargs: Any) -> Any:
    from botocore.exceptions import BotoCoreError, ClientError  # start-up time: as _client

    try:
        return call(**kwargs)
    except ClientError as error:
        info = error.response.get("Error", {})
        raise LiveDnsError(f"Route 53 refused {what}: {info.get('Code')}: {info.get('Message')}") from None
    except BotoCoreError as error:  # no credentials, no endpoint: say it, never a traceback
        raise LiveDnsError(f"Route 53 could not be reached for {what}: {error} (give --profile or "
                           "--endpoint-url, or AWS credentials in the environment)") from None


def _weighted(records: LiveRecords, client: Any) -> dict[str, dict[str, Any]]:
    """The name's A records by set identifier (ours only)."""
    name = records.hostname.rstrip(".") + "."
    found: dict[str, dict[str, Any]] = {}
    start = {"StartRecordName": name, "StartRecordType": "A"}
    while True:
        page = _call(f"the records of {records.hostname} in zone {records.zone}", client.list_resource_record_sets,
                     HostedZoneId=records.zone, **start)
        for record in page.get("ResourceRecordSets", []):
            if record.get("Name") != name:
                return found
            if record.get("Type") == "A" and record.get("SetIdentifier") in records.labels:
                found[record["SetIdentifier"]] = record
        if not page.get("IsTruncated"):
            return found
        start = {"StartRecordName": page["NextRecordName"], "StartRecordType": page["NextRecordType"],
                 **({"StartRecordIdentifier": page["NextRecordIdentifier"]} if "NextRecordIdentifier" in page else {})}


def _present(records: LiveRecords, found: Mapping[str, Any]) -> None:
    missing = [label for label in records.labels if label not in found]
    if missing:
        raise LiveDnsError(f"zone {records.zone} has no weighted A record of {records.hostname} for "
                           f"{', '.join(missing)}: run `pulumi up` on the migration stack first")


def read_weights(records: LiveRecords) -> dict[str, int]:
    found = _weighted(records, _client(records))
    _present(records, found)
    return {label: int(found[label].get("Weight", 0)) for label in records.labels}


def write_weights(records: LiveRecords, weights: Mapping[str, int]) -> str:
    client = _client(records)
    found = _weighted(records, client)
    _present(records, found)
    changes = [{"Action": "UPSERT", "ResourceRecordSet": {**found[label], "Weight": int(weights[label])}}
               for label in records.labels]
    answer = _call(f"the weights of {records.hostname}", client.change_resource_record_sets,
                   HostedZoneId=records.zone,
                   ChangeBatch={"Comment": "accelplane migrate: " + ", ".join(
                       f"{label} {weights[label]}" for label in records.labels), "Changes": changes})
    return str(answer["ChangeInfo"]["Id"])
