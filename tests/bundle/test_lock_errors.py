"""A source `bundle lock` cannot reach is named by the declaration line and field that ask for it."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest

from accelplane.bundle.locker import Lock, _lock_images
from accelplane.config.loader import load_stack_file
from accelplane.errors import InputError

ROOT = Path(__file__).resolve().parents[2]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # nothing listens once the probe is closed


def test_an_unreachable_registry_names_the_field_and_line_of_the_image(tmp_path: Path) -> None:
    text = (ROOT / "stacks" / "Pulumi.prod.yaml").read_text()
    image = re.search(r"([a-z0-9.-]+)/neuron/neuron-monitor@sha256:", text)
    assert image is not None
    port = _closed_port()
    path = tmp_path / "Pulumi.prod.yaml"
    path.write_text(text.replace(f"{image.group(1)}/", f"127.0.0.1:{port}/"))
    stack = load_stack_file(path)
    with pytest.raises(InputError) as raised:
        _lock_images(stack, Lock("prod", "2026-12-04T00:00:00Z"), lambda _message: None)
    [problem] = raised.value.problems
    assert problem.file == str(path) and problem.line is not None
    assert problem.field is not None and problem.field.endswith(".neuron_monitor_image")
    assert f"cannot reach 127.0.0.1:{port}" in problem.message
