"""`accelplane preflight` on Google Cloud against the Google API fake: Compute, GKE, Resource Manager
and Cloud Quotas have no emulator; the fake serves them from their discovery documents (the one
google-api-python-client lacks, Cloud Quotas, is the project's committed document) and checks every
answer against the API's schema."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from accelplane.clouds.gcp.preflight import run_preflight
from accelplane.config.loader import StackConfig, load_stack, load_stack_file
from accelplane.preflight.options import PreflightOptions
from accelplane.preflight.results import PreflightReport
from tests.support.gcp_capacity import Capacity, provision
from tests.support.google_api_fake import GoogleApiFake
from tests.support.stack_files import stack_text

NOW = dt.datetime(2026, 12, 5, 12, tzinfo=dt.UTC)


@pytest.fixture
def fake() -> Iterator[GoogleApiFake]:
    with GoogleApiFake() as running:
        yield running
        assert running.schema_errors == []


@pytest.fixture(scope="session")
def tpu_prod() -> StackConfig:
    return load_stack("tpu-prod")


@pytest.fixture
def project(fake: GoogleApiFake, tpu_prod: StackConfig) -> Capacity:
    return provision(fake, tpu_prod)


def preflight(capacity: Capacity, stack: StackConfig | None = None, **options: Any) -> PreflightReport:
    stack = stack or capacity.stack
    opts = PreflightOptions(**{"now": NOW, **options})
    found = run_preflight(stack.platform, opts, clients=capacity.clients())
    return PreflightReport(stack.stack, "gcp", found.where, found.endpoint, found.checks,
                           allow_unknown=opts.allow_unknown, api_calls=found.api_calls)


def variant(tmp_path: Path, *edits: tuple[str, str]) -> StackConfig:
    text = stack_text("tpu-prod")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / "Pulumi.tpu-prod.yaml"
    path.write_text(text)
    return load_stack_file(path, stack="tpu-prod")
