"""A command given `--output FILE` always writes FILE: when the input is bad (exit 2), the report in
the asked format carries the error as its result, so a CI step that uploads the report (SARIF to code
scanning, JUnit to the test tab) shows why the run failed instead of failing to find a file.

Each problem is one blocking result of the pseudo-rule `accelplane.input`, at the file and line the
problem names."""

from __future__ import annotations

from accelplane.errors import InputError
from accelplane.report.document import Item, Report, RuleInfo

INPUT_RULE = RuleInfo(
    id="accelplane.input",
    name="input-is-valid",
    description="Checks whether the command's input (stack file, state, plan, option) can be read as expected.",
    severity="high",
    enforcement="mandatory",
    remediation="Fix the file, line and field the message names; `accelplane schema` describes a stack file.",
    group="input",
)


def input_error_report(error: InputError, tool: str) -> Report:
    items, lines = [], {}
    for index, problem in enumerate(error.problems):
        where = problem.field or problem.file or "input"
        urn = f"input:{index}:{where}"
        items.append(Item(rule=INPUT_RULE.id, severity=INPUT_RULE.severity, enforcement=INPUT_RULE.enforcement,
                          urn=urn, type="input", name=where, message=str(problem), remediation=INPUT_RULE.remediation,
                          blocking=True))
        if problem.line is not None:
            lines[urn] = problem.line
    files = {problem.file for problem in error.problems if problem.file}
    return Report(tool=tool, subject="bad input", items=items, rules=[INPUT_RULE], lines=lines,
                  artifact=next(iter(files)) if len(files) == 1 else None)
