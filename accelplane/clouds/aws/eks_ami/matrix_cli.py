"""`accelplane matrix resolve --eks-ami` and `accelplane matrix refresh eks-ami` (`MATRIX_COMMANDS`,
this cloud's `accelplane.matrix_cli` entry point); what they do is `commands`, loaded when they run."""

from __future__ import annotations

import argparse
from pathlib import Path

from accelplane.cloud_commands import CloudMatrixCommands
from accelplane.errors import InputError
from accelplane.option_types import iso_date


def _refresh(args: argparse.Namespace) -> int:
    # Start-up time: the release-notes reader loads only for this command.
    from accelplane.clouds.aws.eks_ami.commands import run_refresh_eks_ami

    return run_refresh_eks_ami(args)


def add_refresh_sources(sources: argparse._SubParsersAction) -> None:
    eks = sources.add_parser("eks-ami", help="EKS AMI releases from amazon-eks-ami's CHANGELOG.md")
    eks.add_argument("--changelog", type=Path, required=True, help="amazon-eks-ami's CHANGELOG.md, downloaded")
    eks.add_argument("--source", help="where it came from: github:awslabs/amazon-eks-ami@<commit>/CHANGELOG.md")
    eks.add_argument("--retrieved", type=iso_date, help="the day it was downloaded (default today)")
    eks.add_argument("--output", type=Path, help="write the proposed data file here (default: only report)")
    eks.set_defaults(handler=_refresh)


def add_resolve_options(subject: argparse._MutuallyExclusiveGroup, parser: argparse.ArgumentParser) -> None:
    subject.add_argument("--eks-ami", metavar="KUBERNETES",
                         help="EKS AMI releases of a Kubernetes minor (e.g. 1.33): with --driver or --neuron-driver, "
                              "the release that ships it")
    drivers = parser.add_mutually_exclusive_group()
    drivers.add_argument("--driver", help="with --eks-ami: the NVIDIA driver wanted, e.g. 580.105.08")
    drivers.add_argument("--neuron-driver", help="with --eks-ami: the Neuron driver (aws-neuronx-dkms) wanted")


def resolve(args: argparse.Namespace) -> int | None:
    if args.eks_ami is None:
        if args.driver or args.neuron_driver:
            raise InputError.single("--driver and --neuron-driver go with --eks-ami", file="matrix resolve",
                                    field="--driver" if args.driver else "--neuron-driver")
        return None
    # Start-up time: the AMI facts load only for this form of the command.
    from accelplane.clouds.aws.eks_ami.commands import run_resolve_eks_ami

    return run_resolve_eks_ami(args)


MATRIX_COMMANDS = CloudMatrixCommands(cloud="aws", add_refresh_sources=add_refresh_sources,
                                      add_resolve_options=add_resolve_options, resolve=resolve)
