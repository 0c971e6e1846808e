"""`accelplane matrix refresh pypi --json FILE [--json FILE ...] [--output FILE]`: propose matrix data
from PyPI JSON API documents a user downloaded (`curl -o torchvision.json
https://pypi.org/pypi/torchvision/json`, `curl -o torch-2.9.0.json https://pypi.org/pypi/torch/2.9.0/json`).

Per document it prints what differs from the data in use: for a project document of a package whose
releases `published.yaml` lists, the releases PyPI has that the data does not (and the reverse inside
the data's window); for a torch release document, the `pytorch.yaml` registry fields (Python wheels,
requires_python, CUDA runtime, NCCL and cuDNN pins, glibc floor) against that release's row. The
proposed YAML goes to `--output` for review; the data files are never changed here. Exit 0 when the
documents were read (whatever they say), 2 when one is not a PyPI document.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from accelplane.errors import EXIT_OK, InputError
from accelplane.input_files import DOCUMENT_LIMIT, read_json
from accelplane.report.output import to_stdout, write_file


def _published_proposal(document: Any, out: list[str], proposal: list[str]) -> bool:
    # Start-up time: the matrix data loads only for this command.
    from accelplane.matrix.loader import load
    from accelplane.matrix.pypi_json import project_name, released_versions
    from accelplane.matrix.versions import parse_version

    name = project_name(document)
    entry = next((p for p in load().published.packages if p.package.lower() == name), None)
    if entry is None:
        return False
    on_pypi = released_versions(document)
    listed = set(entry.versions)
    low, high = parse_version(entry.known_from), parse_version(entry.known_until)
    inside = [v for v in on_pypi if low <= parse_version(v) <= high]
    newer = [v for v in on_pypi if parse_version(v) > high]
    missing = [v for v in inside if v not in listed]
    not_on_pypi = [v for v in entry.versions if v not in on_pypi]
    out.append(f"{name} (published.yaml key {entry.key}): {len(on_pypi)} installable releases on PyPI; "
               f"data lists {len(listed)} up to {entry.known_until}")
    out.append(f"  newer than the data: {', '.join(newer) or 'none'}")
    if missing:
        out.append(f"  inside the data's window but not listed: {', '.join(missing)}")
    if not_on_pypi:
        out.append(f"  listed but not installable per this document (yanked or gone): {', '.join(not_on_pypi)}")
    if entry.closed is not None and newer:
        out.append(f"  the line is closed as of {entry.closed.as_of} ({entry.closed.reason}): "
                   "a release after it reopens the line; drop `closed` after review")
    # PyPI's own list from the data's first release on: a release it no longer offers (yanked) drops out.
    kept = [v for v in on_pypi if parse_version(v) >= low]
    if not kept:
        out.append("  no installable release from the data's window on: nothing to propose")
        return True
    proposal += [f"  - key: {entry.key}", f"    package: {entry.package}", f'    known_from: "{kept[0]}"',
                 f'    known_until: "{kept[-1]}"', "    versions: [" + ", ".join(f'"{v}"' for v in kept) + "]",
                 f"    source: registry:pypi/{entry.package}"]
    return True


def _torch_proposal(document: Any, out: list[str], proposal: list[str]) -> None:
    # Start-up time: the matrix data loads only for this command.
    from accelplane.matrix.loader import load
    from accelplane.matrix.pypi_json import torch_registry_facts
    from accelplane.matrix.versions import parse_version

    facts = torch_registry_facts(document)
    row = load().torch.get(parse_version(facts.torch))
    proposed = {"python": list(facts.python), "requires_python": facts.requires_python,
                "pypi_cuda": facts.pypi_cuda, "cuda_runtime": facts.cuda_runtime, "nccl": facts.nccl,
                "cudnn": facts.cudnn, "glibc": facts.glibc}
    if row is None:
        out.append(f"torch {facts.torch}: not in pytorch.yaml; proposed registry fields below (variants and "
                   "companion packages come from pytorch.org's previous-versions page, not PyPI)")
    else:
        current = {"python": list(row.python), "requires_python": row.requires_python, "pypi_cuda": row.pypi_cuda,
                   "cuda_runtime": row.cuda_runtime, "nccl": row.nccl, "cudnn": row.cudnn, "glibc": row.glibc}
        differs = [f"{key}: {current[key]} -> {value}" for key, value in proposed.items() if current[key] != value]
        out.append(f"torch {facts.torch}: pytorch.yaml's row " + ("agrees with PyPI" if not differs else
                                                                   "differs from PyPI: " + "; ".join(differs)))
    proposal += [f'  - torch: "{facts.torch}"',
                 "    python: [" + ", ".join(f'"{p}"' for p in facts.python) + "]"]
    proposal += [f'    {key}: "{value}"' if value is not None else f"    {key}: null"
                 for key, value in proposed.items() if key != "python"]
    proposal.append(f"    source: registry:pypi/torch/{facts.torch}")


def run_refresh_pypi(args: argparse.Namespace) -> int:
    # Start-up time: the reader loads only for this command.
    from accelplane.matrix.pypi_json import PypiDocumentError, is_project_document, project_name

    out: list[str] = []
    published: list[str] = []
    torch_rows: list[str] = []
    for path in args.json:
        document = read_json(path, limit=DOCUMENT_LIMIT, option="--json")
        try:
            if is_project_document(document):
                if not _published_proposal(document, out, published):
                    out.append(f"{project_name(document)}: published.yaml lists no releases of it; nothing to propose")
            else:
                _torch_proposal(document, out, torch_rows)
        except PypiDocumentError as error:
            raise InputError.single(str(error), file=str(path)) from None
    # With the proposal on standard output (`--output -`), the report goes to standard error.
    to_standard_output = args.output is not None and to_stdout(args.output)
    report = sys.stderr if to_standard_output else sys.stdout
    report.write("\n".join(out) + "\n")
    if args.output is None:
        sys.stdout.write("nothing written: rerun with --output FILE for the proposed YAML to review\n")
        return EXIT_OK
    text = []
    if published:
        text += ["# proposed published.yaml `packages` entries (keep `confidence`, `note` and `closed` by hand)",
                 "packages:", *published]
    if torch_rows:
        text += ["# proposed pytorch.yaml registry fields (variants and companions: pytorch.org)", "releases:",
                 *torch_rows]
    if to_standard_output:
        sys.stdout.write("\n".join(text) + "\n")
        return EXIT_OK
    output: Path = args.output
    write_file("\n".join(text) + "\n", output, "--output")
    sys.stdout.write(f"wrote {output}\n")
    return EXIT_OK
