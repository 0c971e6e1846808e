"""The AWS connection options of the commands that call AWS (`verify`, `rollout`): one spelling, one check."""

from __future__ import annotations

import argparse


def _endpoint_url(text: str) -> str:
    from accelplane.verify.clients import endpoint_url_problem

    problem = endpoint_url_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def add_aws_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--endpoint-url",
        type=_endpoint_url,
        metavar="URL",
        help="send every AWS call here (moto, LocalStack, a VPC endpoint proxy): an http:// or https:// URL",
    )
    parser.add_argument("--profile", help="AWS profile (default: the standard credential chain)")
