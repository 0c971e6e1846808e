"""What `advance` and `abort` write: only the weight scalars and `since` change, byte for byte
everything else (comments, order, quoting, flow mappings, CRLF, a byte-order mark); nothing is
written when the result would not validate."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from accelplane.config.loader import load_stack_file
from accelplane.rollout import steps
from tests.rollout.conftest import stack_text, write_stack

NOW = "2026-12-03T07:00:00Z"
ABORTED = ('{at: "2026-12-03T07:00:00Z", action: abort, weights: {l4: 100, l40s: 0}, '
           'reason: "aborted: the baseline \'l4\' takes every request"}')
HISTORY = f"            history:\n              - {ABORTED}\n"  # what an abort adds after `since`


def _unchanged_outside(before: str, after: str, changed: set[int], inserted: set[int]) -> None:
    """`after` is `before` with lines `changed` (1-based, in `after`) altered and `inserted` added."""
    kept = [line for number, line in enumerate(after.split("\n"), 1) if number not in inserted]
    old = before.split("\n")
    assert len(kept) == len(old)
    for number, (was, now) in enumerate(zip(old, kept, strict=True), 1):
        if was != now:
            assert number + sum(1 for i in inserted if i <= number) in changed, f"line {number} changed: {now!r}"
            # Only the weight's digits differ.
            assert re.sub(r"weight: \d+", "weight: N", was) == re.sub(r"weight: \d+", "weight: N", now)


def test_abort_changes_only_the_weights_and_adds_since_keeping_every_comment(tmp_path: Path, rollout: Any) -> None:
    path = write_stack(tmp_path)
    before = path.read_text()
    result = rollout("abort", "--stack-file", path, "--service", "server", "--now", NOW)
    assert result.code == 0, result.err
    after = path.read_text()
    since_line = after.split("\n").index(f'            since: "{NOW}"') + 1
    history = {since_line + 1, since_line + 2}  # `history:` and the abort's entry
    _unchanged_outside(before, after, {since_line, *history, *_weight_lines(after)}, {since_line, *history})
    assert "# the baseline keeps the rest" in after and "# Walk the canary up" in after
    stack = load_stack_file(path)
    service = stack.platform.kubernetes.inference_services[0]  # type: ignore[union-attr]
    assert steps.weights(service) == {"l4": 100, "l40s": 0} and service.rollout.since == NOW  # type: ignore[union-attr]
    assert f"wrote {path}" in result.out and "l40s 5% -> 0%" in result.out


def _weight_lines(text: str) -> set[int]:
    return {number for number, line in enumerate(text.split("\n"), 1) if "weight: " in line}


def test_an_existing_since_is_replaced_in_place(tmp_path: Path, rollout: Any) -> None:
    since = "            bake: 2s\n            since: 2026-12-01T00:00:00Z  # last step\n"
    path = write_stack(tmp_path, **{"            bake: 2s\n": since})
    before = path.read_text()
    assert rollout("advance", "--stack-file", path, "--service", "server", "--start", "--now", NOW).code == 2  # at 5%
    assert rollout("abort", "--stack-file", path, "--service", "server", "--now", NOW).code == 0
    after = path.read_text()
    assert f'since: "{NOW}"  # last step' in after
    assert before.replace("since: 2026-12-01T00:00:00Z  # last step\n", f'since: "{NOW}"  # last step\n{HISTORY}') \
        .replace("weight: 95 ", "weight: 100 ").replace("weight: 5,", "weight: 0,") == after


def test_start_gives_an_idle_canary_the_first_step_in_a_flow_style_rollout(tmp_path: Path, rollout: Any) -> None:
    text = stack_text(**{"weight: 95   #": "weight: 100   #", "weight: 5,": "weight: 0,"})
    block = text[text.index("          rollout:\n"):text.index("            prometheus: {")]
    text = text.replace(block, "          rollout: {baseline: l4, canary: l40s, steps: [5, 25, 50, 100], bake: 2s,\n"
                               "                    metrics: prometheus}\n")
    path = write_stack(tmp_path, text=text.replace("            prometheus: {histogram: http_request_duration_seconds, "
                                                   "status_label: code}\n", ""))
    before = path.read_text()
    held = rollout("advance", "--stack-file", path, "--service", "server", "--prometheus-url", "http://127.0.0.1:9")
    assert held.code == 0 and "takes 0% of the requests" in held.out and path.read_text() == before
    started = rollout("advance", "--stack-file", path, "--service", "server", "--start", "--now", NOW)
    assert started.code == 0, started.err
    started_entry = (f'{{at: "{NOW}", action: start, weights: {{l4: 95, l40s: 5}}, '
                     'reason: "rollout started: the canary \'l40s\' takes its first step"}')
    assert path.read_text() == before.replace(
        "rollout: {baseline", f'rollout: {{since: "{NOW}", history: [{started_entry}], baseline') \
        .replace("weight: 100   #", "weight: 95   #").replace("weight: 0,", "weight: 5,")


def test_crlf_line_endings_and_a_byte_order_mark_are_kept(tmp_path: Path, rollout: Any) -> None:
    path = tmp_path / "Pulumi.canary.yaml"
    original = b"\xef\xbb\xbf" + stack_text().replace("\n", "\r\n").encode()
    path.write_bytes(original)
    assert rollout("abort", "--stack-file", path, "--service", "server", "--now", NOW).code == 0
    after = path.read_bytes()
    assert after.startswith(b"\xef\xbb\xbf") and b"\n" not in after.replace(b"\r\n", b"")
    since = (f'            since: "{NOW}"\r\n' + HISTORY.replace("\n", "\r\n")
             + "            baseline: l4\r\n").encode()
    assert after == original.replace(b"weight: 95 ", b"weight: 100 ").replace(b"weight: 5,", b"weight: 0,") \
        .replace(b"            baseline: l4\r\n", since)


def test_weights_that_would_not_validate_are_never_written(tmp_path: Path, rollout: Any,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_stack(tmp_path)
    before = path.read_bytes()
    mode = path.stat().st_mode
    monkeypatch.setattr(steps, "aborted", lambda service: {"l4": 90, "l40s": 0})  # sums to 90
    result = rollout("abort", "--stack-file", path, "--service", "server", "--now", NOW)
    assert result.code == 2 and "weights to sum to 100" in result.err and "nothing written" in result.err, result.err
    assert path.read_bytes() == before and path.stat().st_mode == mode
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize(("written", "becomes"), [
    ("since: null", f'since: "{NOW}"'),
    ("since:", f'since: "{NOW}"'),
    ("since: ~   # none yet", f'since: "{NOW}"   # none yet'),
    ("since:   # none yet", f'since: "{NOW}"   # none yet'),
    ("since: '2026-12-01T00:00:00Z'", f'since: "{NOW}"'),
])
def test_since_is_written_over_any_form_of_the_old_value(tmp_path: Path, rollout: Any, written: str,
                                                          becomes: str) -> None:
    path = write_stack(tmp_path, **{"            bake: 2s\n": f"            bake: 2s\n            {written}\n"})
    before = path.read_text()
    assert rollout("abort", "--stack-file", path, "--service", "server", "--now", NOW).code == 0
    assert path.read_text() == before.replace(f"            {written}\n", f"            {becomes}\n{HISTORY}") \
        .replace("weight: 95 ", "weight: 100 ").replace("weight: 5,", "weight: 0,")


def test_each_written_decision_joins_a_bounded_history_after_since(tmp_path: Path, rollout: Any) -> None:
    """abort and advance --start write their decision as one line each, newest last, right after
    `since`; past the limit the oldest drops off; everything else in the file stays as it was."""
    from accelplane.declaration import ROLLOUT_HISTORY_LIMIT

    path = write_stack(tmp_path)
    before = path.read_text()
    assert rollout("abort", "--stack-file", path, "--service", "server", "--now", NOW).code == 0
    after = path.read_text().split("\n")
    since = after.index(f'            since: "{NOW}"')
    assert after[since + 1] == "            history:"
    assert after[since + 2].startswith(f'              - {{at: "{NOW}", action: abort, weights: {{l4: 100, l40s: 0}}')
    for minute in range(ROLLOUT_HISTORY_LIMIT + 2):
        moment = f"2026-12-03T08:{minute:02d}:00Z"
        command = ("advance", "--start") if minute % 2 == 0 else ("abort",)
        assert rollout(*command, "--stack-file", path, "--service", "server", "--now", moment).code == 0
    history = load_stack_file(path).platform.kubernetes.inference_services[0].rollout.history  # type: ignore
    assert len(history) == ROLLOUT_HISTORY_LIMIT and history[-1].at == "2026-12-03T08:11:00Z"
    assert [r.action.value for r in history[-2:]] == ["start", "abort"]
    assert history[-2].weights == {"l4": 95, "l40s": 5} and "first step" in (history[-2].reason or "")
    text = path.read_text()
    assert "# the baseline keeps the rest" in text and "# Walk the canary up" in text
    kept = [line for line in text.split("\n") if "since:" not in line and "history:" not in line
            and not line.strip().startswith("- {at:") and "weight: " not in line]
    assert kept == [line for line in before.split("\n") if "weight: " not in line]


def test_a_hand_written_flow_history_is_rewritten_in_place(tmp_path: Path, rollout: Any) -> None:
    old = '{at: "2026-12-01T00:00:00Z", action: advance, weights: {l4: 95, l40s: 5}}'
    path = write_stack(tmp_path, **{"            bake: 2s\n": f"            bake: 2s\n            history: [{old}]\n"})
    assert rollout("abort", "--stack-file", path, "--service", "server", "--now", NOW).code == 0
    history = load_stack_file(path).platform.kubernetes.inference_services[0].rollout.history  # type: ignore
    assert [(r.at, r.action.value) for r in history] == [("2026-12-01T00:00:00Z", "advance"), (NOW, "abort")]
