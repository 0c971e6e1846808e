"""Plain text for terminals and CI logs, laid out like `pulumi preview`: a tree by component."""

from __future__ import annotations

from accelplane.diff.cost import text_section
from accelplane.diff.plan_diff import PlanDiff, ResourceDiff, ServiceRollout, SoftwareChange, plan_counts
from accelplane.diff.values import change_lines, plural, pool_text, show, weight_text
from accelplane.report.document import Item

_STATUS_SYMBOL = {"added": "+", "removed": "-", "changed": "~"}
_ARTIFACT_SYMBOL = {"add": "+", "remove": "-", "change": "~"}


def render_table(diff: PlanDiff) -> str:
    summary = diff.summary()
    lines = [f"accelplane diff: stack {diff.stack}, base revision {diff.base_label} → {diff.head}", ""]
    lines.append(f"Resources: {plan_counts(summary)}, {summary['unchanged']} unchanged "
                 f"({diff.base_resources} → {diff.head_resources})")
    for component, members in diff.components():
        lines.append(f"  {component.label}")
        for resource in members:
            lines.extend(resource_lines(resource))

    lines += ["", "Software profiles:"]
    if not diff.software:
        lines.append("  no version changes")
    for change in diff.software:
        lines.extend(_software(change))

    lines += ["", "Rollout:"]
    if not diff.rollout:
        lines.append("  no inference service changes")
    for service in diff.rollout:
        lines.extend(_rollout(service))

    if diff.artifacts is not None:
        lines += ["", f"Artifacts ({diff.lock_file}):"]
        if not diff.artifacts:
            lines.append("  no artifact changes")
        for artifact in diff.artifacts:
            detail = "; ".join(artifact.details())
            suffix = f": {detail}" if detail else ""
            lines.append(f"  {_ARTIFACT_SYMBOL[artifact.op]} {artifact.artifact.label}{suffix}")

    if diff.cost is not None:
        lines += ["", *text_section(diff.cost)]

    lines += ["", f"Findings introduced ({len(diff.introduced)}):"]
    lines.extend(_finding(item, "BLOCKING" if item.blocking else item.enforcement) for item in diff.introduced)
    lines.append(f"Findings resolved ({len(diff.resolved)}):")
    lines.extend(_finding(item, "waived" if item.waived else "resolved") for item in diff.resolved)
    for note in diff.notes:
        lines.append(f"note: {note}")
    lines.append("")
    if diff.passed:
        lines.append("PASSED: the change introduces no blocking finding")
    else:
        lines.append(f"FAILED: the change introduces {plural(len(diff.blocking), 'blocking finding')} (mandatory)")
    return "\n".join(lines) + "\n"


def resource_lines(resource: ResourceDiff) -> list[str]:
    """A resource's line and what changes: a replacement names its cause and cost, a creation its
    key inputs, a multi-line text its changed lines."""
    title = f"    {resource.symbol} {resource.type}  {resource.name}"
    if resource.replaces:
        title += f"  [{resource.op.upper()}: {', '.join(resource.forced_by)}]"
    lines = [title]
    if resource.meaning:
        lines.append(f"          ! {resource.meaning}")
    for change in resource.changes:
        lines.extend(change_lines(change, "          "))
    lines.extend(f"          {path}: {show(value)}" for path, value in resource.key_inputs)
    return lines


def _software(change: SoftwareChange) -> list[str]:
    symbol = _STATUS_SYMBOL[change.status]
    if change.status == "removed":
        return [f"  {symbol} {change.title}: removed (profile {change.profile[0]})"]
    old_profile, new_profile = change.profile
    profile = new_profile if old_profile in (None, new_profile) else f"{old_profile} → {new_profile}"
    old_accelerator, accelerator = change.accelerator
    if old_accelerator not in (None, accelerator):
        accelerator = f"{old_accelerator} → {accelerator}"
    head = f"  {symbol} {change.title}: profile {profile}"
    if accelerator:
        head += f", {accelerator}"
    if change.verdict:
        head += f"; matrix: {change.verdict}"
    lines = [head]
    if change.status == "added":
        lines.append("        " + ", ".join(f"{version.key} {version.new}" for version in change.changes))
        lines.extend(f"        {verdict} {rule}: {message}" for rule, verdict, message in change.verdict_findings)
        return lines
    for version in change.changes:
        if version.old is None:
            lines.append(f"        {version.key}: + {version.new}")
        elif version.new is None:
            lines.append(f"        {version.key}: - {version.old}")
        else:
            flag = "  (downgrade)" if version.downgrade else ""
            lines.append(f"        {version.key}: {version.old} → {version.new}{flag}")
    lines.extend(f"        {verdict} {rule}: {message}" for rule, verdict, message in change.verdict_findings)
    return lines


def _rollout(service: ServiceRollout) -> list[str]:
    symbol = _STATUS_SYMBOL[service.status]
    policy = f" (baseline {service.baseline}, canary {service.canary})" if service.baseline else ""
    lines = [f"  {symbol} service {service.service}{policy}" + (": removed" if service.status == "removed" else "")]
    names = max((len(b.name) for b in service.backends), default=0)
    pools = max((len(pool_text(b)) for b in service.backends), default=0)
    weights = max((len(weight_text(b.weight)) for b in service.backends), default=0)
    for backend in service.backends:
        weight = weight_text(backend.weight)
        row = f"      {backend.name:<{names}}  {pool_text(backend):<{pools}}  weight {weight:<{weights}}"
        if backend.verdict:
            row += f"  matrix: {backend.verdict}"
        lines.append(row.rstrip())
        lines.extend(f"          {verdict} {rule}: {message}" for rule, verdict, message in backend.verdict_findings)
    lines.extend(f"      not one rollout step (AP-RO-004): {problem}" for problem in service.problems)
    lines.extend(f"      parity: {reason}" for reason in service.parity)
    return lines


def _finding(item: Item, status: str) -> str:
    text = f"  {status:<9} {item.severity:<8} {item.rule:<11} {item.name}: {item.message}"
    if item.waived and item.waiver_reason:
        text += f" (waived: {item.waiver_reason})"
    return text
