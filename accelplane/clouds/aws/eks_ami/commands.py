"""`accelplane matrix resolve --eks-ami` and `accelplane matrix refresh eks-ami`: the EKS AMI facts.

- `matrix resolve --eks-ami 1.33 [--driver D | --neuron-driver N]` proposes the `ami_release_version`
  whose accelerated AMI ships the wanted driver (newest first), or, without a driver, what the newest
  releases ship. Exit 1 when no release of the data ships it (the message lists the drivers that
  minor's releases do ship), 2 on bad input.
- `matrix refresh eks-ami --changelog CHANGELOG.md [--output FILE]` reads amazon-eks-ami's release
  notes a user downloaded and proposes the data file: it prints what would change against the data
  in use (releases added, changed, gone) and writes the proposal only to `--output`, for review;
  nothing is replaced silently.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path

from accelplane.errors import EXIT_FINDINGS, EXIT_OK, InputError
from accelplane.input_files import DOCUMENT_LIMIT, read_text

AMI_TYPES = {"driver": "AL2023_x86_64_NVIDIA", "neuron_driver": "AL2023_x86_64_NEURON"}
FACTS = {"driver": "nvidia_driver", "neuron_driver": "neuron_driver"}
_DEFAULT_SOURCE = "github:awslabs/amazon-eks-ami@main/CHANGELOG.md"
_SHOWN = 12


def run_resolve_eks_ami(args: argparse.Namespace) -> int:
    # Start-up time: the AMI facts load only for this command.
    from accelplane.clouds.aws.eks_ami.facts import eks_ami_data, newest_releases, releases_shipping
    from accelplane.matrix.versions import parse_version

    kubernetes = args.eks_ami
    if kubernetes.count(".") != 1 or not all(part.isdigit() for part in kubernetes.split(".")):
        raise InputError.single(f"expected a Kubernetes minor such as 1.33, got {kubernetes!r}",
                                file="matrix resolve", field="--eks-ami")
    data = eks_ami_data()
    known = newest_releases(kubernetes, limit=_SHOWN)
    if not known:
        minors = sorted({row.kubernetes for row in data.releases}, key=parse_version)
        raise InputError.single(f"no EKS AMI release for Kubernetes {kubernetes} in the data (known: "
                                f"{', '.join(minors)})", file="matrix resolve", field="--eks-ami")
    wanted = next(((key, value) for key, value in (("driver", args.driver), ("neuron_driver", args.neuron_driver))
                   if value), None)
    out = sys.stdout
    if wanted is None:
        out.write(f"# EKS AMI releases for Kubernetes {kubernetes}, newest first ({data.source}):\n")
        for row in known:
            nvidia = row.facts("AL2023_x86_64_NVIDIA")
            neuron = row.facts("AL2023_x86_64_NEURON")
            out.write(f"{row.release}  nvidia driver {getattr(nvidia, 'nvidia_driver', None) or '-'}  "
                      f"neuron driver {getattr(neuron, 'neuron_driver', None) or '-'}\n")
        return EXIT_OK
    key, version = wanted
    ami_type = AMI_TYPES[key]
    found = releases_shipping(kubernetes, ami_type, FACTS[key], version)
    if not found:
        shipped = sorted({getattr(row.facts(ami_type), FACTS[key], None) or "" for row in data.releases
                          if row.kubernetes == kubernetes} - {""}, key=parse_version)
        print(f"error: no EKS AMI release for Kubernetes {kubernetes} ships {key.replace('_', ' ')} {version} on "
              f"{ami_type} ({data.source}); its releases ship: {', '.join(shipped)}", file=sys.stderr)
        return EXIT_FINDINGS
    out.write(f"# accelplane matrix resolve --eks-ami {kubernetes} --{key.replace('_', '-')} {version}\n")
    out.write(f"# EKS AMI releases whose {ami_type} image ships it, newest first ({data.source});\n")
    out.write("# on EKS the AMI decides the driver: pin the release, not the driver.\n")
    out.write(f'ami_release_version: "{found[0]}"\n')
    if len(found) > 1:
        out.write(f"# also: {', '.join(found[1:_SHOWN])}{' ...' if len(found) > _SHOWN else ''}\n")
    return EXIT_OK


def run_refresh_eks_ami(args: argparse.Namespace) -> int:
    # Start-up time: the parser and the data load only for this command.
    from accelplane.clouds.aws.eks_ami.facts import EksAmiFile, eks_ami_data, render
    from accelplane.clouds.aws.eks_ami.release_notes import ReleaseNotesError, iter_accelerated, read_release_notes

    origin = str(args.changelog)
    text = read_text(args.changelog, limit=DOCUMENT_LIMIT, option="--changelog")
    try:
        releases = list(iter_accelerated(read_release_notes(text)))
    except ReleaseNotesError as error:
        raise InputError.single(str(error), file=origin) from None
    if not releases:
        raise InputError.single("the notes name no accelerated AMI's driver", file=origin)
    source = args.source or _DEFAULT_SOURCE
    if not source.startswith("github:") or not source.endswith("/CHANGELOG.md"):
        raise InputError.single("expected github:awslabs/amazon-eks-ami@<commit>/CHANGELOG.md",
                                file="matrix refresh eks-ami", field="--source")
    proposal = render(releases, source, args.retrieved or dt.date.today())
    # Start-up time: yaml is already loaded by the data; the proposal is checked like the data file.
    import yaml

    proposed = EksAmiFile.model_validate(yaml.safe_load(proposal))
    current = {row.release: row for row in eks_ami_data().releases}
    new = {row.release: row for row in proposed.releases}
    added = [r for r in new if r not in current]
    gone = [r for r in current if r not in new]
    changed = [r for r in new if r in current and new[r] != current[r]]
    out = sys.stdout
    out.write(f"{origin}: {len(new)} accelerated AMI releases ({len(added)} new, {len(changed)} changed, "
              f"{len(gone)} not in these notes) against the data in use ({len(current)} releases)\n")
    for label, names in (("new", added), ("changed", changed), ("not in these notes", gone)):
        for name in names[:_SHOWN]:
            row = new.get(name) or current[name]
            driver = getattr(row.facts("AL2023_x86_64_NVIDIA"), "nvidia_driver", None) or "-"
            neuron = getattr(row.facts("AL2023_x86_64_NEURON"), "neuron_driver", None) or "-"
            out.write(f"  {label:<18} {name:<18} nvidia driver {driver}, neuron driver {neuron}\n")
        if len(names) > _SHOWN:
            out.write(f"  {label:<18} ... and {len(names) - _SHOWN} more\n")
    if args.output is None:
        out.write("nothing written: review, then rerun with --output accelplane/clouds/aws/eks_ami/eks_ami.yaml "
                  "(and commit it with the notes' commit in --source)\n")
        return EXIT_OK
    output: Path = args.output
    output.write_text(proposal, encoding="utf-8")
    out.write(f"wrote {output} ({len(proposal.splitlines())} lines)\n")
    return EXIT_OK
