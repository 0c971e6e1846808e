"""`accelplane verify` on Google Cloud against the Google API fake (tests/support/google_api_fake):
Compute, GKE and Resource Manager have no emulator; the fake serves them from the discovery
documents google-api-python-client ships and checks every body against the API's schemas. Cloud
Storage is the real gcp-storage-emulator (tests/support/gcs_emulator), one process per session."""

from __future__ import annotations

import pytest

from tests.support.gcp_platform import LIVE_PROJECT_NUMBER, Deployment, deploy
from tests.support.gcs_emulator import GcsEmulator, gcs_emulator
from tests.support.google_api_fake import GoogleApiFake


@pytest.fixture
def fake():
    with GoogleApiFake() as running:
        yield running
        assert running.schema_errors == []


@pytest.fixture(scope="session")
def gcs_server(tmp_path_factory):
    with gcs_emulator(tmp_path_factory.mktemp("gcs"), LIVE_PROJECT_NUMBER) as server:
        yield server


@pytest.fixture
def gcs(gcs_server: GcsEmulator) -> GcsEmulator:
    gcs_server.wipe()
    return gcs_server


@pytest.fixture
def tpu_prod(fake, gcs) -> Deployment:
    return deploy(fake, gcs, "tpu-prod")
