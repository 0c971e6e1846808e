"""Every rule's pass and fail fixtures: `cases.CASES` (AWS, Kubernetes, version matrix, hygiene) and
`gcp_cases.GCP_CASES` (Google Cloud). The meta-tests read this one mapping."""

from __future__ import annotations

from tests.rules.air_gap_cases import AIR_GAP_CASES
from tests.rules.audit_cases import AUDIT_CASES
from tests.rules.capacity_cases import CAPACITY_CASES
from tests.rules.cases import CASES as _BASE
from tests.rules.cases import Case
from tests.rules.client_auth_cases import CLIENT_AUTH_CASES
from tests.rules.cost_cases import COST_CASES
from tests.rules.gcp_cases import GCP_CASES
from tests.rules.migration_cases import MIGRATION_CASES
from tests.rules.resilience_cases import RESILIENCE_CASES
from tests.rules.secret_rotation_cases import SECRET_ROTATION_CASES

assert not set(_BASE) & set(GCP_CASES), sorted(set(_BASE) & set(GCP_CASES))
CASES: dict[str, Case] = {**_BASE, **GCP_CASES, **AIR_GAP_CASES, **COST_CASES, **RESILIENCE_CASES,
                         **MIGRATION_CASES, **CAPACITY_CASES, **CLIENT_AUTH_CASES,
                         **AUDIT_CASES, **SECRET_ROTATION_CASES}
