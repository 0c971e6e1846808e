"""Malformed `accelplane rollout` options are refused naming the option (exit 2), never a traceback,
and a refused command leaves the stack file as it was.

Values are drawn from odd text and plausible values, passed as `--option=value`. Prometheus URLs
that pass validation point at a closed loopback port and AWS has no credentials (conftest), so no
draw reaches a real service: the command stops at the first unreachable endpoint, exit 2.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.rollout.conftest import stack_text
from tests.support.cli_contract import ANY_VERDICT, run_and_check
from tests.support.fuzz_settings import fuzz_settings
from tests.support.mutations import TRICKY_TEXT
from tests.support.prometheus.server import free_port

ODD = st.one_of(
    st.sampled_from([t for t in TRICKY_TEXT if "\x00" not in t]),
    st.text(st.characters(exclude_characters="\x00", exclude_categories=("Cs",)), max_size=30),
    st.sampled_from(["-h", "--", "-", ".", "..", "/", "x" * 300, "0", "-1", "nan", "inf", "1e309"]),
)
CLOSED = f"http://127.0.0.1:{free_port()}"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("rollout-fuzz")


# The autouse AWS isolation (conftest) is function-scoped: the same for every draw, so reuse is fine.
@settings(parent=fuzz_settings(60), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(draw=st.data())
def test_malformed_rollout_options_are_refused_naming_the_option(workspace: Path, draw: st.DataObject) -> None:
    path = workspace / "Pulumi.canary.yaml"
    path.write_text(stack_text())
    before = path.read_bytes()
    command = draw.draw(st.sampled_from(["status", "advance", "abort"]), label="command")
    argv = ["rollout", command, f"--stack-file={path}"]
    options = [
        ("--service", st.one_of(st.just("server"), ODD)),
        ("--prometheus-url", st.one_of(st.just(CLOSED), st.sampled_from(["ftp://x", "http://", "http://[::1"]), ODD)),
        ("--now", st.one_of(st.sampled_from(["2026-12-03T07:00:00Z", "2026-02-30T00:00:00Z"]), ODD)),
        ("--timeout", st.one_of(st.sampled_from(["1", "0.5", "601"]), ODD)),
        ("--endpoint-url", st.one_of(st.just(CLOSED), ODD)),
    ]
    if command == "status":
        options += [("--format", st.one_of(st.sampled_from(["table", "json", "markdown"]), ODD)),
                    ("--output", st.sampled_from([str(workspace / "out.md"), str(workspace), "/dev/full"]))]
    given_names = [str(path), "--prometheus-url"]  # a missing URL is named too
    for option, values in options:
        if option == "--service" or draw.draw(st.booleans(), label=f"give {option}"):
            value = draw.draw(values, label=option)
            argv.append(f"{option}={value}")
            given_names += [option, value]
    outcome = run_and_check(argv, names=given_names, expect=ANY_VERDICT)
    if outcome.code == 2:
        assert path.read_bytes() == before, outcome
