"""A missing prerequisite fails a test on any machine, as in CI (no `CI` variable decides it); only a
test marked optional skips, and the summary names it with both reasons."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

CONFTEST = '''
import pytest
from tests.support import prerequisites

@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    prerequisites.current = item
'''

TESTS = '''
import pytest
from tests.support.prerequisites import missing

def test_needs_a_tool():
    missing("frobnicate is not installed")

@pytest.mark.optional(reason="a developer without a GPU")
def test_may_do_without():
    missing("nvidia-smi is not installed")
'''


def test_a_missing_prerequisite_fails_unless_the_test_is_optional(pytester: pytest.Pytester,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)  # a developer's machine: the same verdicts as CI's
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_prerequisite=TESTS)
    pytester.makeini("[pytest]\nmarkers =\n    optional(reason): may skip\n")
    result = pytester.runpytest_inprocess("-rs", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*prerequisite missing: frobnicate is not installed*"])
    result.stdout.fnmatch_lines(["*optional (a developer without a GPU): nvidia-smi is not installed*"])
