"""The connection options of the commands that call a cloud's API (`verify`, `rollout`): one spelling.

The URL is checked here for what any API endpoint must be (an http:// or https:// URL with a host,
no credentials, query or fragment); the stack's cloud checks the rest once the stack is known
(botocore's host rules on AWS).
"""

from __future__ import annotations

import argparse

from accelplane.urls import url_problem

ENDPOINT_EXPECTED = "expected an http:// or https:// URL with a host, e.g. http://127.0.0.1:5000"


def _endpoint_url(text: str) -> str:
    problem = url_problem(text, ENDPOINT_EXPECTED, server_only=True,
                          credentials_hint="give credentials through the cloud's credential chain")
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def _api_endpoint(text: str) -> tuple[str, str]:
    service, sep, url = text.partition("=")
    if not sep or not service:
        raise argparse.ArgumentTypeError(f"expected SERVICE=URL, e.g. compute=https://compute.example.p.googleapis.com/"
                                         f"compute/v1/ (got {text!r})")
    return service, _endpoint_url(url)


def add_connection_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--endpoint-url",
        type=_endpoint_url,
        metavar="URL",
        help="send every API call here (moto, LocalStack, a VPC endpoint proxy): an http:// or https:// URL",
    )
    parser.add_argument("--profile", help="the cloud's credentials profile (AWS: a named profile; default: the "
                        "standard credential chain)")


def add_google_connection_arguments(parser: argparse.ArgumentParser) -> None:
    """What only Google Cloud's live commands read (AWS refuses them, naming its own options)."""
    parser.add_argument(
        "--api-endpoint",
        type=_api_endpoint,
        action="append",
        default=[],
        metavar="SERVICE=URL",
        help="Google Cloud: send one service's calls here (a Private Service Connect endpoint, an emulator); "
        "repeat per service (compute, container, cloudkms, secretmanager, iam, certificatemanager, storage, "
        "cloudresourcemanager, cloudquotas)",
    )
    parser.add_argument(
        "--impersonate-service-account",
        metavar="EMAIL",
        help="Google Cloud: read as this service account with short-lived tokens (default: "
        "CLOUDSDK_AUTH_IMPERSONATE_SERVICE_ACCOUNT, else the credentials' own identity)",
    )
