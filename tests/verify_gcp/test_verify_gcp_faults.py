"""What verify does when Google Cloud does not answer as asked: every fault is named, a partial
read is never clean, and what stops the run before anything is read is an input problem (exit 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from accelplane.clouds.gcp.clients import API_VERSIONS, GcpReadError, ReadOnlyError
from accelplane.errors import InputError
from accelplane.verify.results import CheckId, Status
from accelplane.verify.verify_output import to_report
from tests.support.cli_process import run_accelplane
from tests.support.google_api_fake.key_file import key_file as write_key_file

ROOT = Path(__file__).resolve().parents[2]
FIREWALLS = "compute.firewalls.list"
CLUSTERS = "container.projects.locations.clusters.list"


def _read_errors(report) -> list[str]:
    return [r.message for r in report.results if r.check == CheckId.read_error and r.status is Status.failed]


def test_a_denied_call_names_the_permission_and_the_run_is_not_clean(tpu_prod, fake):
    fake.fault(FIREWALLS, "denied", permission="compute.firewalls.list")
    report = tpu_prod.verify()
    assert any("missing permission compute.firewalls.list" in message for message in _read_errors(report))
    unread = [r for r in report.results if r.check == CheckId.read_error and r.type == "gcp:compute/firewall:Firewall"]
    assert len(unread) == 2  # both declared firewall rules: not verified, never passed
    assert report.failed and report.verified_percent < 100
    assert "verified" in report.coverage_line() and f"({report.verified_percent}%)" in report.coverage_line()


def test_an_api_not_enabled_says_how_to_enable_it(tpu_prod, fake):
    fake.fault(CLUSTERS, "disabled")
    report = tpu_prod.verify()
    assert any("gcloud services enable container.googleapis.com" in message for message in _read_errors(report))
    assert report.failed


def test_an_html_page_is_named_and_not_retried(tpu_prod, fake):
    fake.fault(FIREWALLS, "html")
    report = tpu_prod.verify()
    assert any("an HTML page" in message and "<" not in message for message in _read_errors(report))
    assert fake.calls.count(FIREWALLS) == 1


def test_rate_limiting_is_retried_and_a_brief_one_passes(tpu_prod, fake):
    fake.fault(FIREWALLS, "rate_limited", times=2)
    report = tpu_prod.verify()
    assert not report.failed
    assert report.api_calls["retries"] == 2


def test_rate_limiting_that_outlasts_the_retries_is_a_read_error(tpu_prod, fake):
    fake.fault(FIREWALLS, "rate_limited")
    report = tpu_prod.verify()
    assert any("RATE_LIMIT_EXCEEDED" in message and "after 3 attempts" in message for message in _read_errors(report))
    assert fake.calls.count(FIREWALLS) == 3 and report.failed


def test_a_cut_connection_is_retried_then_named(tpu_prod, fake):
    fake.fault(FIREWALLS, "cut")
    report = tpu_prod.verify()
    assert any("connection" in message and "after 3 attempts" in message for message in _read_errors(report))
    # httplib2 itself tries a reset connection once more within each of verify's attempts.
    assert fake.calls.count(FIREWALLS) >= 3 and report.failed


def test_credentials_that_cannot_see_the_project_stop_before_reading(tpu_prod, fake):
    fake.fault("cloudresourcemanager.projects.get", "denied", permission="resourcemanager.projects.get")
    with pytest.raises(InputError) as stopped:
        tpu_prod.verify()
    assert "resourcemanager.projects.get" in str(stopped.value)
    assert fake.calls == [*fake.calls[: fake.calls.index("cloudresourcemanager.projects.get") + 1]]


def test_only_reads(tpu_prod, fake):
    clients = tpu_prod.clients()
    firewalls = clients.service("compute").firewalls()
    with pytest.raises(ReadOnlyError):
        clients.read(firewalls.delete(project=tpu_prod.project, firewall="x"))
    before = len(fake.calls)
    tpu_prod.verify(clients=clients)
    assert all(call.rsplit(".", 1)[-1] in ("get", "list", "getIamPolicy") for call in fake.calls[before:])


def _cli(tpu_prod, fake, env: dict[str, str], *extra: str, process: bool = False) -> subprocess.CompletedProcess[str]:
    """`accelplane verify` in this process (tests/support/cli_process.py), or spawned where the process's own
    environment is what the test is about."""
    endpoints = [f"--api-endpoint={name}={fake.endpoint(name, version)}" for name, version in API_VERSIONS.items()]
    argv = ["verify", "--stack", "tpu-prod", "--probes", "0", "--checkpoint-drill", "off", *endpoints, *extra]
    if not process:
        return run_accelplane(argv, env=env, cwd=ROOT)
    return subprocess.run([sys.executable, "-m", "accelplane", *argv], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300, check=False)


def _clean_env(tmp_path: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("GOOGLE_", "CLOUDSDK_"))}
    env.update(
        HOME=str(tmp_path),
        CLOUDSDK_CONFIG=str(tmp_path / "gcloud"),
        NO_GCE_CHECK="True",
        GCE_METADATA_HOST="127.0.0.1:9",
        GCE_METADATA_IP="127.0.0.1:9",
    )
    return env


def test_cli_without_credentials_exits_2_with_what_to_do(tpu_prod, fake, tmp_path):
    result = _cli(tpu_prod, fake, _clean_env(tmp_path), process=True)
    assert result.returncode == 2, result.stderr
    assert "no Google Cloud credentials" in result.stderr and "Traceback" not in result.stderr


def test_a_credentials_file_that_does_not_exist_is_named(tpu_prod, fake, tmp_path):
    """It said "no Google Cloud credentials" with GOOGLE_APPLICATION_CREDENTIALS set to a missing file."""
    missing = tmp_path / "nowhere" / "key.json"
    result = _cli(tpu_prod, fake, {**_clean_env(tmp_path), "GOOGLE_APPLICATION_CREDENTIALS": str(missing)})
    assert result.returncode == 2, result.stderr
    assert f"GOOGLE_APPLICATION_CREDENTIALS names {missing}, which does not exist" in result.stderr
    assert "no Google Cloud credentials" not in result.stderr and "Traceback" not in result.stderr


def test_a_malformed_credentials_file_is_named_without_its_contents(tpu_prod, fake, tmp_path):
    """A key file cut short (a copy-paste that lost its end) said "no Google Cloud credentials"."""
    broken = tmp_path / "key.json"
    broken.write_text('{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEv')
    result = _cli(tpu_prod, fake, {**_clean_env(tmp_path), "GOOGLE_APPLICATION_CREDENTIALS": str(broken)})
    assert result.returncode == 2, result.stderr
    assert f"GOOGLE_APPLICATION_CREDENTIALS names {broken}, which google-auth cannot use as credentials" \
        in result.stderr
    assert "not a valid json file" in result.stderr  # google-auth's own words
    assert "MIIEv" not in result.stderr and "PRIVATE KEY" not in result.stderr
    assert "Traceback" not in result.stderr


def test_cli_with_a_service_account_key_reads_through_the_token_endpoint(tpu_prod, fake, tmp_path):
    """The real google-auth path: a key file whose token_uri is the fake's OAuth endpoint."""
    key_file = write_key_file(tmp_path, fake.url, tpu_prod.project, "verify")
    env = {**_clean_env(tmp_path), "GOOGLE_APPLICATION_CREDENTIALS": str(key_file)}
    fake.fault(FIREWALLS, "denied", permission="compute.firewalls.list")
    result = _cli(tpu_prod, fake, env, "--format", "json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["verified_percent"] < 100 and report["account"] == tpu_prod.project
    assert "oauth2.token" in fake.calls
    assert "PRIVATE KEY" not in result.stdout + result.stderr
    # The summary of a Google Cloud run said "N AWS API calls".
    table = _cli(tpu_prod, fake, env)
    assert " cloud API calls (" in table.stdout and "AWS" not in table.stdout, table.stdout


def test_a_read_error_says_which_call():
    assert str(GcpReadError("compute.firewalls.list", "PERMISSION_DENIED", "x")).startswith("compute.firewalls.list")


NETWORKS = "compute.networks.list"
# The fake's method ids where a read error names the call shorter (service.collection.method).
FAKE_IDS = {"certificatemanager.certificates.get": "certificatemanager.projects.locations.certificates.get",
            "secretmanager.secrets.getIamPolicy": "secretmanager.projects.secrets.getIamPolicy"}


def _drift(report) -> list[str]:
    drift = (CheckId.drift_missing, CheckId.drift_changed, CheckId.drift_unexpected)
    return [f"{r.check}: {r.message}" for r in report.results if r.check in drift and r.status is not Status.passed]


def _unread(report, type_token: str) -> list:
    return [r for r in report.results if r.check == CheckId.read_error and r.type == type_token]


def test_a_truncated_answer_is_a_read_error_never_a_deleted_network(tpu_prod, fake):
    """Issue 51: a 200 answer to compute.networks.list whose JSON was cut in half read as an empty list:
    "drift.missing acme-tpu-network-vpc: declared Network ... does not exist live" (+3 drift.changed),
    verified 100.0%, api_calls.errors 0. The pinned client hands back the raw text of a body that is not
    JSON; now that is an unreadable answer, retried, then named, and the network is not verified."""
    fake.fault(NETWORKS, "truncated")
    report = tpu_prod.verify()
    assert _drift(report) == []
    messages = [m for m in _read_errors(report) if NETWORKS in m]
    assert messages and all("not JSON" in m and "after 3 attempts" in m for m in messages), messages
    assert _unread(report, "gcp:compute/network:Network") and report.failed
    assert report.verified_percent < 100 and report.api_calls["errors"] >= 1
    assert fake.calls.count(NETWORKS) == 3  # retried: a cut body is a transient fault


def test_a_truncated_answer_once_is_retried_and_the_run_is_clean(tpu_prod, fake):
    fake.fault(NETWORKS, "truncated", times=1)
    report = tpu_prod.verify()
    assert not report.failed and _drift(report) == [] and report.api_calls["retries"] == 1


@pytest.mark.parametrize(("method", "kind", "words", "type_token"), [
    (NETWORKS, "text", "not JSON", "gcp:compute/network:Network"),
    (NETWORKS, "array", "a JSON list where the method answers with an object", "gcp:compute/network:Network"),
    (FIREWALLS, "unavailable", "UNAVAILABLE", "gcp:compute/firewall:Firewall"),
    ("certificatemanager.certificates.get", "empty", "a get answered without the resource",
     None),
    ("secretmanager.secrets.getIamPolicy", "empty", "a policy without its etag",
     "gcp:secretmanager/secretIamMember:SecretIamMember"),
])
def test_every_unreadable_answer_is_named_and_nothing_it_would_show_is_drift(
    tpu_prod, fake, method: str, kind: str, words: str, type_token: str | None
):
    fake.fault(FAKE_IDS.get(method, method), kind)
    report = tpu_prod.verify()
    assert any(method in message and words in message for message in _read_errors(report)), _read_errors(report)
    assert _drift(report) == [] and report.failed
    if type_token is not None:
        assert _unread(report, type_token), [r.type for r in report.results if r.check == CheckId.read_error]


def test_a_run_under_faults_stops_calling_at_its_deadline_and_says_its_bound(tpu_prod, fake):
    """A cut connection retried took 32 s per call here; a run now starts no call once its deadline has
    passed (the clock is injected: each reading 25 s later), and the report states the bound."""
    readings = iter(range(0, 100_000, 25))
    clients = tpu_prod.clients(deadline=100.0, timeout=30.0, clock=lambda: float(next(readings)))
    fake.fault(FIREWALLS, "cut")
    report = tpu_prod.verify(clients=clients)
    late = [m for m in _read_errors(report) if "read deadline passed" in m]
    assert late and report.failed and _drift(report) == []
    assert report.api_calls["bound_seconds"] == 130.0
    assert any("(reading bounded to 130 s)" in note for note in to_report(report).notes)
