"""`accelplane:migration`: the declaration of a migration stack (docs/migration.md).

It names no cloud: the ends are stacks (each with its own `cloud:`), and the DNS is a service one of
the installed clouds offers, named by the word its cloud gives it (docs/migration.md lists them).
"""

from __future__ import annotations

from datetime import date
from itertools import pairwise
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, field_validator

from accelplane.declaration.base import Duration, Hostname, Model, Name, Timestamp
from accelplane.declaration.kubernetes import RolloutGates
from accelplane.declaration.parity import Parity

# Every DNS service's ceiling is far above this; the bound is ours: a client that cached
# an answer follows an abort only once its TTL ran out, so a prod migration keeps it at a minute.
PROD_MAX_TTL_SECONDS = 60


class MigrationEnd(Model):
    stack: str = Field(min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$",
                       description="The end's stack, a stack of this project (stacks/Pulumi.<stack>.yaml).")
    service: Name = Field(description="The inference service of that stack (kubernetes.inference_services) that "
                                      "serves the migrated API.")


class MigrationDns(Model):
    service: str = Field(min_length=1, description="The DNS service that hosts the name, by the word the cloud "
                                                   "offering it gives it (docs/migration.md lists them).")
    zone: str = Field(min_length=1, max_length=256,
                      description="The zone that holds the name, in the DNS service's own form (a hosted zone "
                                  "id, a managed zone's resource name); another form is refused naming it.")


class MigrationArtifacts(Model):
    """The model's weights and checkpoints, copied from the source end's bucket to the target end's before
    the first step, and proven there by a restore drill (`accelplane migrate artifacts`)."""

    bucket: str = Field(min_length=1, description="The bucket role both ends declare (storage.buckets[].role), e.g. "
                                                  "model_artifacts: copied from the source end's to the target's.")
    source_prefix: str = Field(default="", pattern=r"^([^/].*/)?$",
                               description="What to copy: keys under this prefix of the source bucket (empty, or "
                                           "ending in /).")
    target_prefix: str = Field(default="", pattern=r"^([^/].*/)?$",
                               description="Where it lands in the target bucket (empty, or ending in /).")
    copy_on: date = Field(description="The day the copy runs, once (YYYY-MM-DD): a later date runs it again, "
                                      "after `pulumi up`.")
    sample: int = Field(default=16, ge=1, le=1000,
                        description="How many objects the restore drill compares by content (spread over the keys).")


# A DNS name as a validation record has it: labels may start with an underscore (`_acme-challenge_x.`).
ValidationName = Annotated[str, StringConstraints(
    pattern=r"^([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$", max_length=253)]


class CertificateValidationRecord(Model):
    """A CNAME a certificate authority reads to validate an end's certificate for the hostname: what the
    end's certificate request asks for, written in the zone that serves the name (docs/migration.md)."""

    name: ValidationName = Field(description="The record's name, below the migration's hostname, lower case, no "
                                             "trailing dot (e.g. _acme-challenge_ujmmovf2vn55tgye.llm.acme.example).")
    type: Literal["CNAME"] = Field(default="CNAME", description="CNAME: the one type the validations here use.")
    value: ValidationName = Field(description="Where it points, no trailing dot: a name in the validation domain "
                                              "of one end's certificate authority (docs/migration.md lists them).")


class Migration(Model):
    """Where the service is served today (source), where it moves (target), and how clients follow."""

    source: MigrationEnd = Field(description="The end serving today: every client starts here.")
    target: MigrationEnd = Field(description="The end the service moves to.")
    hostname: Hostname = Field(description="The public name clients call (lower case, no trailing "
                                                         "dot); both ends' inference_endpoint.hostnames list it.")
    dns: MigrationDns = Field(description="Where the name's weighted records are kept.")
    ttl_seconds: int = Field(default=PROD_MAX_TTL_SECONDS, ge=1, le=86400,
                             description=f"TTL of the weighted records (prod: at most {PROD_MAX_TTL_SECONDS}); an "
                                         "alias record has none of its own and is cached for its target's.")
    health_checks: bool = Field(default=True, description="Take an end out of the answers while its health check "
                                                          "fails (the DNS service's own health checks).")
    steps: list[int] = Field(min_length=1, description="The target's weights, %, strictly increasing and ending at "
                                                       "100, e.g. [1, 5, 25, 50, 100].")
    weight: int = Field(default=0, description="The target's weight now, % (0 or one of the steps): what `pulumi up` "
                                               "sets; `migrate advance` moves it to the next step.")
    since: Timestamp | None = Field(default=None, description="When the weight last changed (UTC): `migrate` writes "
                                                               "it; the bake runs from here.")
    bake: Duration = Field(default="30m", description="Least time a step runs before the next one.")
    gates: RolloutGates = Field(default_factory=RolloutGates,
                                description="What must hold on the target, judged against the source, to advance.")
    parity: Parity = Field(description="The golden set and thresholds the target must meet against the source "
                                       "before it takes more than the first step.")
    certificate_validation: list[CertificateValidationRecord] = Field(
        default_factory=list, description="The ends' certificate validation records for the hostname, written in "
                                          "the zone that serves it (each end's certificate request names them).")
    artifacts: MigrationArtifacts | None = Field(
        default=None, description="Copy the model's files between the ends' buckets and prove the copy before the "
                                  "first step (docs/migration.md).")

    @field_validator("steps")
    @classmethod
    def _steps(cls, steps: list[int]) -> list[int]:
        if any(not 1 <= step <= 100 for step in steps):
            raise ValueError("expected weights between 1 and 100")
        if any(later <= earlier for earlier, later in pairwise(steps)):
            raise ValueError("expected strictly increasing weights")
        if steps[-1] != 100:
            raise ValueError(f"expected the last step to be 100 (got {steps[-1]}): a migration ends with every "
                             "client on the target")
        return steps
