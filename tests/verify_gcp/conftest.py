"""`accelplane verify` on Google Cloud against the Google API fake (tests/support/google_api_fake):
Compute, GKE and Resource Manager have no emulator; the fake serves them from the discovery
documents google-api-python-client ships and checks every body against the API's schemas."""

from __future__ import annotations

import pytest

from tests.support.gcp_platform import Deployment, deploy
from tests.support.google_api_fake import GoogleApiFake


@pytest.fixture
def fake():
    with GoogleApiFake() as running:
        yield running
        assert running.schema_errors == []


@pytest.fixture
def tpu_prod(fake) -> Deployment:
    return deploy(fake, "tpu-prod")
