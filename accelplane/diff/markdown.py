"""Markdown for a pull-request comment a reviewer reads in a minute.

Order: verdict and summary line; software-profile changes (the usual reason for a platform PR);
inference services' rollouts (weights per backend, each backend's matrix verdict, AP-RO-004);
findings introduced (blocking first) and resolved; then one table per component with the input
changes folded in `<details>`. GitHub refuses comments over 65,536 characters: a longer diff first
drops its folded input changes, then the per-resource rows (components keep their counts) and
caps the findings tables, and says so; the table and JSON formats always have everything.
"""

from __future__ import annotations

from accelplane.diff.cost import markdown_section
from accelplane.diff.plan_diff import (
    OPS,
    Component,
    PlanDiff,
    ResourceDiff,
    ServiceRollout,
    SoftwareChange,
    plan_counts,
)
from accelplane.diff.values import change_lines, plural, pool_text, show, weight_text
from accelplane.report.document import Item

COMMENT_LIMIT = 60_000  # GitHub's limit is 65,536; leave room for what CI adds around it
_MAX_PATHS_IN_TABLE = 3
_MAX_PATH = 48
_VERDICT_ICON = {"compatible": "✅", "warn": "⚠️", "conditional": "⚠️", "incompatible": "❌", "invalid": "❌"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    text = _cell(text)
    return f"`` {text} ``" if "`" in text else f"`{text}`"


_FULL, _NO_DETAILS, _COUNTS_ONLY = range(3)
_MAX_FINDING_ROWS = 50  # when even the tables do not fit


def render_markdown(diff: PlanDiff) -> str:
    for level in (_FULL, _NO_DETAILS, _COUNTS_ONLY):
        text = _render(diff, level)
        if len(text) <= COMMENT_LIMIT:
            return text
    cut = text.rfind("\n", 0, COMMENT_LIMIT - 200)
    return text[:cut] + "\n\n_…cut to fit a comment._\n"


def _render(diff: PlanDiff, level: int) -> str:
    details = level == _FULL
    summary = diff.summary()
    if diff.passed:
        verdict = "✅ no blocking finding introduced"
    else:
        verdict = f"❌ {plural(len(diff.blocking), 'blocking finding')} introduced"
    lines = [
        f"### accelplane diff: stack `{diff.stack}` — {verdict}",
        "",
        f"Base `{diff.base_ref}` ({diff.base_commit[:7]}) → {diff.head}: **{plan_counts(summary)}** "
        f"({diff.base_resources} → "
        f"{diff.head_resources} resources) · findings: **{len(diff.introduced)} introduced**, "
        f"{len(diff.resolved)} resolved · software: {plural(len(diff.software), 'version set')} changed"
        + (f" · rollout: {plural(len(diff.rollout), 'service')} changed" if diff.rollout else "")
        + (f" · artifacts: {plural(len(diff.artifacts), 'change')}" if diff.artifacts is not None else ""),
    ]
    for note in diff.notes:
        lines += ["", f"_Note: {_cell(note)}_"]
    lines += _replacements(diff)
    lines += _software_section(diff, details) + _rollout_section(diff, details)
    if diff.artifacts:
        symbols = {"add": "+", "remove": "-", "change": "~"}
        lines += ["", f"#### Artifacts ({_code(diff.lock_file or '')})", "", "| | Artifact | Change |", "|---|---|---|"]
        shown = diff.artifacts if level != _COUNTS_ONLY else diff.artifacts[:_MAX_FINDING_ROWS]
        for c in shown:
            detail = "; ".join(c.details()) or c.artifact.checksum
            lines.append(f"| {symbols[c.op]} | {_cell(c.artifact.label)} | {_cell(detail)} |")
    if diff.cost is not None:
        lines += markdown_section(diff.cost, details=details)
    rows = _MAX_FINDING_ROWS if level == _COUNTS_ONLY else None
    if diff.introduced:
        lines += ["", "#### Findings introduced", "", *_findings_table(diff.introduced, rows)]
    if diff.resolved:
        lines += ["", f"<details><summary>Findings resolved ({len(diff.resolved)})</summary>", "",
                  *_findings_table(diff.resolved, rows), "", "</details>"]
    if diff.resources:
        lines += ["", "#### Resources"]
        for component, members in diff.components():
            lines += ["", *_component(component, members, details, rows=level != _COUNTS_ONLY)]
    else:
        lines += ["", "No resource changes."]
    if level != _FULL:
        left_out = "input changes" if level == _NO_DETAILS else "input changes, resources and findings"
        lines += ["", f"_Some {left_out} are left out to fit a comment: run `accelplane diff --stack "
                  f"{diff.stack} --base {diff.base_ref}` to see them all._"]
    return "\n".join(lines) + "\n"


def _software_section(diff: PlanDiff, details: bool) -> list[str]:
    """The version sets that changed, and (full detail) each new set's matrix findings."""
    lines: list[str] = []
    if not diff.software:
        return lines
    lines += ["", "#### Software profiles", "", "| Target | Change | Matrix (new set) |", "|---|---|---|"]
    lines += [_software_row(change) for change in diff.software]
    explained = [c for c in diff.software if c.verdict_findings or c.status == "added"]
    if explained and details:
        lines += ["", f"<details><summary>Version sets and matrix findings ({len(explained)})</summary>", ""]
        for change in explained:
            lines.append(f"- **{_cell(change.title)}**")
            if change.status == "added":
                lines.append("  - " + ", ".join(f"{_cell(v.key)} {_code(v.new or '')}" for v in change.changes))
            lines += [f"  - {verdict_} `{rule}`: {_cell(message)}"
                      for rule, verdict_, message in change.verdict_findings]
        lines += ["", "</details>"]
    return lines


def _rollout_section(diff: PlanDiff, details: bool) -> list[str]:
    """Each service's backends before and after, the step and parity problems, and (full detail) the backends'
    matrix findings."""
    lines: list[str] = []
    if not diff.rollout:
        return lines
    lines += ["", "#### Rollout", "", "| Service | Backend | Pool | Weight | Matrix (working tree) |",
              "|---|---|---|---|---|"]
    for service in diff.rollout:
        lines += _rollout_rows(service)
    explained = [(s, b) for s in diff.rollout for b in s.backends if b.verdict_findings]
    stepless = [s for s in diff.rollout if s.problems]
    for service in stepless:
        lines += ["", *(f"❌ `AP-RO-004` service {_code(service.service)}: not one rollout step: {_cell(p)}"
                        for p in service.problems)]
    for service in (s for s in diff.rollout if s.parity):
        lines += ["", *(f"⚠️ parity of service {_code(service.service)}: {_cell(reason)}"
                        for reason in service.parity)]
    if explained and details:
        lines += ["", f"<details><summary>Matrix findings of the backends ({len(explained)})</summary>", ""]
        for service, backend in explained:
            lines.append(f"- **{_cell(service.service)} / {_cell(backend.name)}**")
            lines += [f"  - {verdict_} `{rule}`: {_cell(message)}"
                      for rule, verdict_, message in backend.verdict_findings]
        lines += ["", "</details>"]
    return lines


def _software_row(change: SoftwareChange) -> str:
    target = f"{_code(change.name)} ({change.kind})" if change.kind != "cluster add-ons" else change.kind
    if change.status == "removed":
        what = f"removed (profile {_code(change.profile[0] or '')})"
    elif change.status == "added":
        what = f"new, profile {_code(change.profile[1] or '')}"
        if change.accelerator[1]:
            what += f" on {_code(change.accelerator[1])}"
    else:
        parts = []
        if change.profile[0] != change.profile[1]:
            parts.append(f"profile {_code(change.profile[0] or '')} → {_code(change.profile[1] or '')}")
        if change.accelerator[0] != change.accelerator[1]:
            parts.append(f"accelerator {_code(change.accelerator[0] or '')} → {_code(change.accelerator[1] or '')}")
        for version in change.changes:
            old = _code(version.old) if version.old is not None else "(none)"
            new = _code(version.new) if version.new is not None else "(none)"
            parts.append(f"{_cell(version.key)} {old} → {new}" + (" **(downgrade)**" if version.downgrade else ""))
        what = "<br>".join(parts)
    verdict = f"{_VERDICT_ICON.get(change.verdict, '')} {change.verdict}".strip() if change.verdict else "—"
    return f"| {target} | {what} | {verdict} |"


def _rollout_rows(service: ServiceRollout) -> list[str]:
    title = _code(service.service) + (f" ({service.status})" if service.status != "changed" else "")
    if service.baseline:
        title += f"<br>baseline {_code(service.baseline)}, canary {_code(service.canary or '?')}"
    rows = []
    for index, backend in enumerate(service.backends):
        weight = weight_text(backend.weight)
        if backend.weight[0] != backend.weight[1]:
            weight = f"**{weight}**"
        verdict = (f"{_VERDICT_ICON.get(backend.verdict, '')} {backend.verdict}".strip() if backend.verdict
                   else "—")
        rows.append(f"| {title if index == 0 else ''} | {_code(backend.name)} | {_code(pool_text(backend))} | "
                    f"{_cell(weight)} | {verdict} |")
    return rows


def _short(path: str) -> str:
    """The end of a long input path (the part that says what changed); the details have it whole."""
    if len(path) <= _MAX_PATH:
        return path
    tail = path[-(_MAX_PATH - 1):]
    cut = tail.find(".")
    return "…" + (tail[cut + 1 :] if cut > 0 else tail)


def _replacements(diff: PlanDiff) -> list[str]:
    """Every replacement named first, with what forces it and what it costs: the reviewer's first read;
    then every pool updated in place by recreating all its nodes (it reads as `~`, and is not harmless)."""
    replaced = [r for r in diff.resources if r.replaces]
    rolled = [r for r in diff.resources if not r.replaces and r.op == "update" and r.meaning]
    lines: list[str] = []
    if rolled:
        lines += ["", f"#### ⚠️ {plural(len(rolled), 'pool')} with every node recreated", ""]
        lines += [f"- `~` {_code(r.name)} ({_code(r.type)}): **{_cell(r.meaning or '')}**" for r in rolled]
    if not replaced:
        return lines
    lines += ["", f"#### ⚠️ {plural(len(replaced), 'replacement')}", ""]
    for resource in replaced:
        how = ("deleted, then created anew" if resource.op == "delete-before-replace"
               else "created anew, then the old one deleted")
        lines.append(f"- `{resource.symbol}` {_code(resource.name)} ({_code(resource.type)}): {how}, because "
                     + ", ".join(_code(path) for path in resource.forced_by) + " changed"
                     + (f". **{_cell(resource.meaning)}**" if resource.meaning else ""))
    return lines


def _findings_table(items: list[Item], limit: int | None = None) -> list[str]:
    lines = ["| Severity | Rule | Resource | Finding |", "|---|---|---|---|"]
    for item in items[:limit]:
        level = "**blocking**" if item.blocking else ("waived" if item.waived else item.enforcement)
        message = item.message + (f" (waived: {item.waiver_reason})" if item.waived and item.waiver_reason else "")
        lines.append(f"| {item.severity}, {level} | `{item.rule}` | {_code(item.name)} | {_cell(message)} |")
    if limit is not None and len(items) > limit:
        lines.append(f"| | | | … {len(items) - limit} more |")
    return lines


def _component(component: Component, members: list[ResourceDiff], details: bool, rows: bool = True) -> list[str]:
    title = "Stack" if component.is_stack else f"`{component.type.rsplit(':', 1)[-1]}` {_cell(component.name)}"
    counts = ", ".join(f"{sum(1 for r in members if r.op == op)} {op}" for op in OPS
                       if any(r.op == op for r in members))
    if not rows:
        return [f"**{title}** ({counts})"]
    lines = [f"**{title}** ({counts})", "", "| | Resource | Type | Changed inputs |", "|---|---|---|---|"]
    for resource in members:
        paths = [change.path for change in resource.changes]
        shown = ", ".join(_code(_short(p)) for p in paths[:_MAX_PATHS_IN_TABLE])
        if len(paths) > _MAX_PATHS_IN_TABLE:
            shown += f", … {len(paths) - _MAX_PATHS_IN_TABLE} more"
        lines.append(f"| {resource.symbol} | {_code(resource.name)} | {_code(resource.type)} | {shown} |")
    detailed = [r for r in members if r.changes or r.key_inputs]
    if details and detailed:
        changes = sum(len(r.changes) for r in detailed)
        created = sum(1 for r in detailed if r.key_inputs)
        parts = [plural(changes, "input change") if changes else "",
                 f"key inputs of {plural(created, 'new resource')}" if created else ""]
        lines += ["", f"<details><summary>{', '.join(p for p in parts if p)}</summary>", "", "```"]
        for resource in detailed:
            lines.append(f"{resource.symbol} {resource.name}")
            for change in resource.changes:
                lines.extend(change_lines(change, "    "))
            lines.extend(f"    {path}: {show(value)}" for path, value in resource.key_inputs)
        lines += ["```", "", "</details>"]
    return lines
