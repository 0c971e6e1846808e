"""accelplane reads the installed entry points itself (every command asks for them at start, and
importlib.metadata's scan costs ten times as much): the result must be importlib.metadata's."""

from __future__ import annotations

from importlib.metadata import entry_points

from accelplane.cloud_support import _installed_entry_points, _parse_entry_points, entry_points_in


def test_every_installed_entry_point_is_read_as_importlib_metadata_reads_it() -> None:
    ours = {(p.group, p.name, p.value) for p in _installed_entry_points()}
    theirs = {(p.group, p.name, p.value) for p in entry_points()}
    assert ours == theirs
    assert {p.group for p in _installed_entry_points() if p.group.startswith("accelplane.")} >= {
        "accelplane.clouds", "accelplane.pricing", "accelplane.rules", "accelplane.connections"}


def test_an_entry_point_loads_the_attribute_it_names() -> None:
    from accelplane.clouds.aws.support import SUPPORT

    assert entry_points_in("accelplane.clouds")["aws"].load() is SUPPORT


def test_the_file_format_comments_blank_lines_and_spacing() -> None:
    text = "# a comment\n[accelplane.clouds]\n\n  tiny =  accelplane_tinycloud:SUPPORT  \n; another\n[other]\nx=y:z\n"
    assert [(p.group, p.name, p.value, p.module) for p in _parse_entry_points(text)] == [
        ("accelplane.clouds", "tiny", "accelplane_tinycloud:SUPPORT", "accelplane_tinycloud"),
        ("other", "x", "y:z", "y"),
    ]
