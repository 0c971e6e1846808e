"""The GCP scenario (gcp_scenario.py) run once per session under GcpLikeMocks, in prod and dev."""

from __future__ import annotations

import pytest

from tests.gcp.gcp_harness import Run, run_components
from tests.gcp.gcp_scenario import build_platform


@pytest.fixture(scope="session")
def gcp_prod() -> Run:
    return run_components(lambda: build_platform("prod"), stack="tpu-prod")


@pytest.fixture(scope="session")
def gcp_dev() -> Run:
    return run_components(lambda: build_platform("dev"), stack="tpu-dev")


@pytest.fixture(params=["prod", "dev"])
def gcp_run(request: pytest.FixtureRequest, gcp_prod: Run, gcp_dev: Run) -> tuple[str, Run]:
    return request.param, {"prod": gcp_prod, "dev": gcp_dev}[request.param]
