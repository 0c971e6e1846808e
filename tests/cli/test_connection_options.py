"""Each cloud offers its own connection options (`accelplane.connections` entry points): a live
command shows them grouped by cloud, hands the stack's cloud its typed settings, and refuses another
cloud's option once, in one place."""

from __future__ import annotations

import argparse

import pytest

from accelplane.cli.connection_args import add_connection_arguments, connection_of
from accelplane.cloud_connection import connection_for
from accelplane.cloud_support import Connection
from accelplane.clouds.aws.connection import AwsConnection
from accelplane.clouds.gcp.connection import GcpConnection
from accelplane.errors import InputError


def _parsed(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="accelplane verify")
    add_connection_arguments(parser)
    return parser.parse_args(list(argv))


def test_the_help_groups_the_options_by_cloud() -> None:
    parser = argparse.ArgumentParser(prog="accelplane verify")
    add_connection_arguments(parser)
    text = parser.format_help()
    text = text[text.index("\n\n"):]  # past the usage line
    aws, gcp = text.index("connecting to AWS (cloud: aws stacks)"), text.index("connecting to Google Cloud")
    assert aws < text.index("--endpoint-url") < text.index("--profile") < gcp < text.index("--api-endpoint")


def test_each_cloud_gets_its_own_typed_settings() -> None:
    args = _parsed("--endpoint-url", "http://127.0.0.1:5000", "--profile", "ci")
    assert connection_of(args, "aws", "verify") == AwsConnection("http://127.0.0.1:5000", "ci")
    args = _parsed("--api-endpoint", "compute=http://127.0.0.1:9/compute/v1/", "--api-endpoint",
                   "storage=http://127.0.0.1:8/", "--impersonate-service-account", "ci@p.iam.gserviceaccount.com")
    assert connection_of(args, "gcp", "verify") == GcpConnection(
        {"compute": "http://127.0.0.1:9/compute/v1/", "storage": "http://127.0.0.1:8/"},
        "ci@p.iam.gserviceaccount.com")
    assert connection_of(_parsed(), "gcp", "verify") == GcpConnection()


@pytest.mark.parametrize(("cloud", "argv", "expected"), [
    ("gcp", ["--profile", "prod"], "--profile: not used on Google Cloud (AWS only): give --api-endpoint SERVICE=URL"),
    ("aws", ["--api-endpoint", "compute=http://127.0.0.1:9/"],
     "--api-endpoint: not used on AWS (Google Cloud only): give --endpoint-url and --profile"),
    # A cloud that offers no connection options (no entry point) refuses every one.
    ("tiny", ["--endpoint-url", "http://127.0.0.1:5000"],
     "--endpoint-url: not used on the tiny cloud (AWS only): it takes no connection options"),
])
def test_another_clouds_option_is_refused_naming_what_this_cloud_takes(cloud: str, argv: list[str],
                                                                         expected: str) -> None:
    with pytest.raises(InputError) as raised:
        connection_of(_parsed(*argv), cloud, "rollout")
    assert expected in str(raised.value) and "accelplane rollout" in str(raised.value)


def test_a_cloud_without_connection_options_connects_with_its_defaults() -> None:
    assert connection_for("tiny", {}, "verify") == Connection()


def test_a_malformed_endpoint_is_refused_while_parsing(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        _parsed("--api-endpoint", "compute")
    assert raised.value.code == 2 and "expected SERVICE=URL" in capsys.readouterr().err
