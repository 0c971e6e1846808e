"""`accelplane matrix refresh pypi`: proposals from PyPI JSON API documents, never silent changes.

Fixtures, in the JSON API's own format (https://docs.pypi.org/api/json/): `pypi-torch-2.8.0.json` is
torch 2.8.0's release document with the registry's real `requires_dist` pins and wheel file names
(digests and URLs are placeholders; one yanked cp314 file is added for the test). `pypi-torchvision.json`
is a project document whose release list is the data's own minus 0.6.1, plus 0.29.3 (yanked), 0.30.0,
0.30.1rc1 (a pre-release), 0.30.2 (Windows and macOS wheels only) and 0.30.3 (no files).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from accelplane.cli import main
from accelplane.matrix.pypi_json import PypiDocumentError, released_versions, torch_registry_facts

FIXTURES = Path(__file__).parent / "fixtures"
TORCH = FIXTURES / "pypi-torch-2.8.0.json"
TORCHVISION = FIXTURES / "pypi-torchvision.json"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_torch_release_document_gives_the_rows_registry_fields() -> None:
    facts = torch_registry_facts(json.loads(TORCH.read_text()))
    # Linux x86_64 CPython wheels only: aarch64, Windows, macOS, the free-threaded cp313t and the
    # yanked cp314 wheel do not count.
    assert facts.python == ("3.9", "3.10", "3.11", "3.12", "3.13")
    assert (facts.requires_python, facts.pypi_cuda, facts.cuda_runtime, facts.nccl, facts.cudnn, facts.glibc) == (
        ">=3.9.0", "12.8", "12.8.90", "2.27.3", "9.10.2.21", "2.28")


def test_project_document_lists_what_pip_installs_on_linux_x86_64() -> None:
    versions = released_versions(json.loads(TORCHVISION.read_text()))
    assert "0.30.0" in versions and "0.6.1" not in versions
    assert not {"0.29.3", "0.30.1rc1", "0.30.2", "0.30.3"} & set(versions)


def test_other_json_is_refused() -> None:
    with pytest.raises(PypiDocumentError, match="PyPI JSON API"):
        released_versions({"name": "torch"})
    with pytest.raises(PypiDocumentError, match="torch's release document"):
        torch_registry_facts(json.loads(TORCHVISION.read_text()))


def test_refresh_reports_and_writes_the_proposal_only_where_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys, "matrix", "refresh", "pypi", "--json", str(TORCH), "--json", str(TORCHVISION))
    assert code == 0 and "nothing written" in out
    assert "torch 2.8.0: pytorch.yaml's row agrees with PyPI" in out
    assert "newer than the data: 0.30.0" in out
    assert "listed but not installable per this document (yanked or gone): 0.6.1" in out
    output = tmp_path / "proposal.yaml"
    code, out, _ = _run(capsys, "matrix", "refresh", "pypi", "--json", str(TORCHVISION), "--json", str(TORCH),
                        "--output", str(output))
    assert code == 0 and output.exists()
    proposal = yaml.safe_load(output.read_text())
    [package] = proposal["packages"]
    assert package["known_until"] == "0.30.0" and "0.6.1" not in package["versions"]
    assert package["versions"][0] == package["known_from"] == "0.5.0"
    [row] = proposal["releases"]
    assert row["torch"] == "2.8.0" and row["nccl"] == "2.27.3" and row["source"] == "registry:pypi/torch/2.8.0"


def test_output_dash_prints_only_the_proposal(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """`--output -` wrote a file named `-`: now the proposal goes to standard output, the report to stderr."""
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(capsys, "matrix", "refresh", "pypi", "--json", str(TORCH), "--output", "-")
    assert code == 0 and not (tmp_path / "-").exists()
    assert yaml.safe_load(out)["releases"][0]["torch"] == "2.8.0"
    assert "torch 2.8.0: pytorch.yaml's row agrees with PyPI" in err


def test_a_pin_that_moved_is_reported_against_the_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    moved = tmp_path / "torch.json"
    moved.write_text(TORCH.read_text().replace("nvidia-nccl-cu12==2.27.3", "nvidia-nccl-cu12==2.27.5"))
    code, out, _ = _run(capsys, "matrix", "refresh", "pypi", "--json", str(moved))
    assert code == 0 and "differs from PyPI: nccl: 2.27.3 -> 2.27.5" in out


def test_a_torch_release_the_data_lacks_is_proposed_as_a_new_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    newer = tmp_path / "torch.json"
    document = json.loads(TORCH.read_text())
    document["info"]["version"] = "2.99.0"
    newer.write_text(json.dumps(document))
    code, out, _ = _run(capsys, "matrix", "refresh", "pypi", "--json", str(newer))
    assert code == 0 and "torch 2.99.0: not in pytorch.yaml" in out


def test_a_file_that_is_not_a_pypi_document_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"releases": {}}')
    code, _, err = _run(capsys, "matrix", "refresh", "pypi", "--json", str(bad), "--output", str(tmp_path / "o"))
    assert code == 2 and "x.json" in err and not (tmp_path / "o").exists()
