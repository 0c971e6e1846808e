"""EKS AMI releases as facts: the release-notes reader, the data it writes, the profile that types a
driver its AMI does not ship (refused, naming the AMI's driver and source), the derived driver the
labels and the matrix then read, `matrix resolve --eks-ami` and `matrix refresh eks-ami`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accelplane.cli import main
from accelplane.clouds.aws.eks_ami.facts import ami_release, eks_ami_data, releases_shipping, render
from accelplane.clouds.aws.eks_ami.release_notes import ReleaseNotesError, iter_accelerated, read_release_notes
from accelplane.errors import InputError
from tests.support.stack_files import edited_stack, stack_text

EXCERPT = Path(__file__).parent / "fixtures" / "eks-ami-changelog-excerpt.md"
SOURCE = "github:awslabs/amazon-eks-ami@81fec2e8/CHANGELOG.md"
PROD_AMI = "1.33.5-20251120"  # prod's profiles pin it; its NVIDIA AMI ships 580.105.08
H100_AMI = 'aws_ofi_nccl: "1.16.3"\n'


def _notes() -> dict[str, dict[str, dict[str, str]]]:
    return {r.release_version: r.ami_types for r in read_release_notes(EXCERPT.read_text())}


def test_the_reader_takes_each_accelerated_ami_types_packages_across_spanned_cells() -> None:
    notes = _notes()
    assert sorted(notes) == ["1.31.2-20241121", "1.32.9-20251120", "1.33.5-20250920", "1.33.5-20251120"]
    assert notes["1.33.5-20251120"] == {
        "AL2023_x86_64_NVIDIA": {"nvidia_driver": "580.105.08", "container_toolkit": "1.18.0", "efa": "2.17.3"},
        # `580.105.08-1.el9` on arm64: the version without the distribution's release suffix
        "AL2023_ARM_64_NVIDIA": {"nvidia_driver": "580.105.08", "container_toolkit": "1.18.0", "efa": "2.17.3"},
        "AL2023_x86_64_NEURON": {"neuron_driver": "2.24.7.0", "efa": "2.17.3"},
    }
    assert notes["1.33.5-20250920"]["AL2023_x86_64_NVIDIA"]["nvidia_driver"] == "570.172.08"
    # The older layout (AL2 and AL2023 tables side by side): only AL2023's accelerated types are kept.
    assert set(notes["1.31.2-20241121"]) == {"AL2023_x86_64_NVIDIA", "AL2023_x86_64_NEURON"}


def test_something_else_than_the_notes_is_refused() -> None:
    with pytest.raises(ReleaseNotesError, match=r"CHANGELOG\.md"):
        read_release_notes("# Changelog\n\nnothing here\n")


def test_the_committed_data_holds_what_the_notes_say_for_each_release_of_the_excerpt() -> None:
    for release in iter_accelerated(read_release_notes(EXCERPT.read_text())):
        row = ami_release(release.release_version)
        assert row is not None, release.release_version
        for ami_type, facts in release.ami_types.items():
            assert row.facts(ami_type).model_dump(exclude_none=True) == facts, (release.release_version, ami_type)
    assert eks_ami_data().source_of(ami_release(PROD_AMI)) == f"{SOURCE}#ami-release-v20251120"


def test_releases_shipping_a_driver_are_newest_first() -> None:
    found = releases_shipping("1.33", "AL2023_x86_64_NVIDIA", "nvidia_driver", "570.172.08")
    assert found[0] == "1.33.5-20250920" and found == sorted(found, key=lambda r: r.split("-")[1], reverse=True)
    assert releases_shipping("1.33", "AL2023_x86_64_NVIDIA", "nvidia_driver", "570.172.09") == []


def test_a_profile_typing_another_driver_than_its_ami_ships_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError) as raised:
        edited_stack(tmp_path, (H100_AMI, H100_AMI + '        driver: "570.172.08"\n'))
    [problem] = raised.value.problems
    assert problem.field == "accelplane:platform.software_profiles.h100-cuda12.driver"
    assert problem.line is not None
    assert "580.105.08" in problem.message and f"{SOURCE}#ami-release-v20251120" in problem.message
    assert "AL2023_x86_64_NVIDIA" in problem.message
    # ... and the release that does ship the typed driver is proposed.
    assert "1.33.5-20250920" in problem.message


def test_typing_exactly_what_the_ami_ships_is_accepted(tmp_path: Path) -> None:
    stack = edited_stack(tmp_path, (H100_AMI, H100_AMI + '        driver: "580.105.08"\n'))
    assert stack.platform.software_profiles["h100-cuda12"].driver == "580.105.08"


@pytest.mark.parametrize(("field", "typed"), [("fabric_manager", "570.172.08"), ("container_toolkit", "1.17.8")])
def test_fabric_manager_and_container_toolkit_follow_the_ami_too(
    tmp_path: Path, field: str, typed: str
) -> None:
    with pytest.raises(InputError) as raised:
        edited_stack(tmp_path, (H100_AMI, H100_AMI + f'        {field}: "{typed}"\n'))
    assert [p.field for p in raised.value.problems] == [f"accelplane:platform.software_profiles.h100-cuda12.{field}"]


def test_an_untyped_driver_is_derived_from_the_ami_release(tmp_path: Path) -> None:
    profiles = edited_stack(tmp_path, ("x", "x")).platform.software_profiles
    h100, l40s = profiles["h100-cuda12"], profiles["l40s-cuda12"]
    assert (h100.driver, h100.fabric_manager, h100.container_toolkit) == ("580.105.08", "580.105.08", "1.18.0")
    # Fabric manager runs only on NVSwitch boards: the L40S profile gets none.
    assert (l40s.driver, l40s.fabric_manager) == ("580.105.08", None)
    # Neuron pools' AMI ships no NVIDIA driver.
    assert profiles["trn1-neuron"].driver is None


def test_another_release_derives_its_own_driver(tmp_path: Path) -> None:
    # The H100 profile's release line is the first of the file's (the profile comes first).
    stack = edited_stack(tmp_path, (f'ami_release_version: "{PROD_AMI}"', 'ami_release_version: "1.33.5-20250920"'))
    assert stack.platform.software_profiles["h100-cuda12"].driver == "570.172.08"


def test_a_release_the_facts_do_not_hold_derives_nothing(tmp_path: Path) -> None:
    text = stack_text("dev").replace(f'ami_release_version: "{PROD_AMI}"', 'ami_release_version: "1.33.99-20991231"')
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(text)
    from accelplane.config.loader import load_stack_file

    assert load_stack_file(path, stack="dev").platform.software_profiles["l4-cuda13"].driver is None


def test_the_node_labels_carry_the_amis_driver(prod_graph) -> None:  # type: ignore[no-untyped-def]
    [group] = [r for r in prod_graph.resources
               if r.type == "aws:eks/nodeGroup:NodeGroup" and r.name.endswith("train-h100-ng")]
    labels = group.inputs["labels"]
    assert labels["versions.accelplane.io/driver"] == "580.105.08"
    assert labels["versions.accelplane.io/fabric-manager"] == "580.105.08"
    assert labels["versions.accelplane.io/ami-release-version"] == PROD_AMI


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_resolve_proposes_the_release_that_ships_a_driver(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "matrix", "resolve", "--eks-ami", "1.33", "--driver", "570.172.08")
    assert code == 0 and 'ami_release_version: "1.33.5-20250920"\n' in out
    code, _, err = _run(capsys, "matrix", "resolve", "--eks-ami", "1.33", "--driver", "570.172.09")
    assert code == 1 and "570.172.08" in err and "580.105.08" in err  # what the minor's releases do ship
    code, out, _ = _run(capsys, "matrix", "resolve", "--eks-ami", "1.33", "--neuron-driver", "2.24.7.0")
    assert code == 0 and "ami_release_version:" in out
    assert _run(capsys, "matrix", "resolve", "--eks-ami", "1.99")[0] == 2
    assert _run(capsys, "matrix", "resolve", "--eks-ami", "latest")[0] == 2
    assert _run(capsys, "matrix", "resolve", "--accelerator", "nvidia-l4", "--driver", "580.105.08")[0] == 2


def test_refresh_reports_against_the_data_and_writes_only_where_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "eks_ami.yaml"
    code, out, _ = _run(capsys, "matrix", "refresh", "eks-ami", "--changelog", str(EXCERPT), "--source", SOURCE)
    assert code == 0 and "4 accelerated AMI releases (0 new, 0 changed" in out and "nothing written" in out
    assert not output.exists()
    # A release the notes change: reported as changed.
    edited = tmp_path / "CHANGELOG.md"
    edited.write_text(EXCERPT.read_text().replace("580.105.08-1.amzn2023", "580.105.09-1.amzn2023", 1))
    code, out, _ = _run(capsys, "matrix", "refresh", "eks-ami", "--changelog", str(edited), "--source", SOURCE,
                        "--retrieved", "2026-12-06", "--output", str(output))
    assert code == 0 and "1 changed" in out and "changed            1.33.5-20251120" in out
    written = output.read_text()
    assert written.startswith("# EKS-optimised") and f"source: {SOURCE}\n" in written
    assert '"580.105.09"' in written and written == render(
        list(iter_accelerated(read_release_notes(edited.read_text()))), SOURCE,
        __import__("datetime").date(2026, 12, 6))


def test_refresh_refuses_a_file_that_is_not_the_notes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "notes.md"
    bad.write_text(json.dumps({"not": "notes"}))
    code, _, err = _run(capsys, "matrix", "refresh", "eks-ami", "--changelog", str(bad), "--output",
                        str(tmp_path / "out.yaml"))
    assert code == 2 and "CHANGELOG.md" in err and not (tmp_path / "out.yaml").exists()
    code, _, err = _run(capsys, "matrix", "refresh", "eks-ami", "--changelog", str(EXCERPT), "--source", "somewhere")
    assert code == 2 and "--source" in err


def test_the_generated_facts_file_carries_its_source_at_the_top_and_a_tag_per_row() -> None:
    """Generated from one file (amazon-eks-ami's CHANGELOG.md): its source at the top, each row's
    section named by its tag (the matrix data's per-record sources do not apply to it)."""
    import yaml

    from accelplane.clouds.aws.eks_ami.facts import DATA_FILE

    document = yaml.safe_load((Path(__file__).resolve().parents[2] / "accelplane" / "clouds" / "aws" / "eks_ami" /
                               DATA_FILE).read_text())
    assert str(document["source"]).startswith("github:") and all("tag" in row for row in document["releases"])
