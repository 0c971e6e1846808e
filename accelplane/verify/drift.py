"""Drift: every declared resource exists live with the declared settings, and nothing extra.

For each declared resource of a type the cloud verifies, its matched live resource (the cloud's live
view) is compared property by property after both sides are made canonical (`canonical`):
references as symbols, documents normalised. What is compared is what the declaration sets, minus
what cannot or must not be compared, per type (`Spec`, from the cloud's `DriftMapping`):

- `ignore`: inputs that are not settings of the live resource (naming, provider behaviour,
  create-only inputs) and what the program leaves to others (an autoscaler's desired size);
- `read`: the inputs the cloud's reader reads live for the type; a declared input outside it is
  reported once per resource as not verified (`drift.unverifiable`, a skip, never a pass);
- `optional`: inputs some API versions (and emulators) leave out of a response; when absent
  they are not verified rather than drifted;
- `exact`: maps where an extra live key is drift too (node labels);
- `defaults`: the desired state of what the program leaves unset. The offline graph holds every
  input the program sets, so that is compared as it is; an input the program does not send at all
  is the cloud's default, and a hand-made change to it is drift too. `ABSENT` means "no value": any
  live value is drift.

What the generic comparison cannot say well (an ALB forward's weights, one readable result per
forward) the cloud's mapping takes out of the comparison (`comparable`) and judges itself
(`extra_results`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from accelplane.rules.view import Resource
from accelplane.verify.canonical import Symbols, canonical, differences, symbol
from accelplane.verify.declared import DeclaredPlatform
from accelplane.verify.live import LiveView
from accelplane.verify.results import CheckId, CheckResult, Status, Subject

_NAMING = frozenset({"name", "namePrefix", "bucketPrefix", "nodeGroupNamePrefix"})


class _Absent:
    def __repr__(self) -> str:
        return "(not set)"


ABSENT: Any = _Absent()  # a default that is no value at all


@dataclass(frozen=True)
class Spec:
    read: frozenset[str]
    ignore: frozenset[str] = frozenset()
    optional: frozenset[str] = frozenset()
    exact: frozenset[str] = frozenset()
    defaults: Mapping[str, Any] = field(default_factory=dict)  # dotted input path -> the cloud's default


def spec(
    read: Iterable[str],
    ignore: Iterable[str] = (),
    optional: Iterable[str] = (),
    exact: Iterable[str] = (),
    defaults: Mapping[str, Any] | None = None,
) -> Spec:
    return Spec(frozenset(read), frozenset(ignore) | _NAMING, frozenset(optional), frozenset(exact), defaults or {})


class DriftMapping:
    """What one cloud tells the drift engine: the spec per verified type, and its special cases."""

    cloud_label: str = "the cloud"  # how a default is attributed in messages ("AWS default 3600")
    global_kind: str = "global"  # what global types are called ("IAM")
    specs: Mapping[str, Spec] = {}

    def comparable(self, type_token: str, key: str, value: Any) -> Any:
        """The value of input `key` as the generic comparison sees it (both sides)."""
        return value

    def extra_results(
        self, declared: DeclaredPlatform, view: LiveView, resource: Resource, live: Resource, unread: set[str],
        where: Subject,
    ) -> list[CheckResult]:
        """What the cloud judges itself for one matched resource (`unread`: inputs not read live)."""
        return []

    def describe_unexpected(self, live: Resource, props: Mapping[str, Any]) -> str:
        """A live resource nobody declared, in a few words (a rule's ports and peer, …)."""
        return live.id or ""

    def is_global(self, type_token: str) -> bool:
        """True for types that exist once for every region (AWS IAM)."""
        return False


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _at(props: Mapping[str, Any], path: str) -> Any:
    value: Any = props
    for part in path.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value


def _empty(value: Any) -> bool:
    return value is None or value == [] or value == {} or value == ""


def _default_drift(
    declared: Mapping[str, Any],
    live: Mapping[str, Any],
    spec: Spec,
    unread: set[str],
    symbols: Symbols,
    where: Subject,
    cloud_label: str,
) -> list[CheckResult]:
    """Inputs the program leaves unset whose live value is no longer the cloud's default."""
    out: list[CheckResult] = []
    for path, default in sorted(spec.defaults.items()):
        root = path.split(".", 1)[0]
        if root not in spec.read or root in unread or _at(declared, path) is not None:
            continue  # not read, or the program sets it (compared as declared)
        value = _at(live, path)
        if default is ABSENT:
            if _empty(value):
                continue
        elif value is None or not differences(canonical(default), canonical(value, symbols), path=path):
            continue  # not reported by the API, or still the default
        actual = canonical(value, symbols)
        out.append(
            CheckResult(
                CheckId.drift_changed,
                Status.failed,
                f"{path}: not set by the program ({cloud_label} default {_short(default)}), live {_short(actual)}",
                path=path,
                expected=None if default is ABSENT else default,
                actual=actual,
                **where,
            )
        )
    return out


def stack_missing(
    declared: DeclaredPlatform, view: LiveView, mapping: DriftMapping, *, read_errors: int, account: str, region: str
) -> CheckResult | None:
    """One failed result when nothing of the stack is deployed in this account and region, else None.

    A wrong profile, account or region, or a stack before its first `pulumi up`, would otherwise be
    reported as every declared resource missing. Only said when the reads succeeded (access denied
    could hide what is there) and nothing regional matched or carries the platform's identity; global
    types (AWS IAM) of the stack deployed in another region do not count as "deployed here".
    """
    if read_errors or view.unreadable or view.unexpected:
        return None
    regional = [r for r in declared.resources if r.type in mapping.specs and not mapping.is_global(r.type)]
    if not regional or any(not mapping.is_global(live.type) for live in view.matched.values()):
        return None
    message = (
        f"stack {declared.stack} not found in account {account} region {region}: nothing of it is deployed there "
        "(is this the right account/region? has `pulumi up` run?)"
    )
    global_found = sum(1 for live in view.matched.values() if mapping.is_global(live.type))
    if global_found:
        message += (f"; {global_found} of its {mapping.global_kind} resources exist ({mapping.global_kind} is "
                    "global): is it deployed in another region?")
    return CheckResult(
        CheckId.stack_missing,
        Status.failed,
        message,
        type="pulumi:pulumi:Stack",
        name=declared.stack,
        path="resources",
        expected=len(regional),
        actual=0,
    )


def drift_results(declared: DeclaredPlatform, view: LiveView, mapping: DriftMapping) -> list[CheckResult]:
    results: list[CheckResult] = []
    unread_symbols = _unread_symbols(declared, view)  # once per run: every resource's inputs are checked against it
    for resource in declared.resources:
        spec_of_type = mapping.specs.get(resource.type)
        if spec_of_type is not None and resource.urn not in view.not_read:
            results += _resource_results(declared, view, mapping, resource, spec_of_type, unread_symbols)
    results += _unexpected_results(view, mapping)
    for type_token, count in sorted(view.unverified.items()):
        results.append(
            CheckResult(
                CheckId.coverage,
                Status.skipped,
                f"{count} declared {type_token} not verified by this command"
                + (f" ({view.unverified_reason[type_token]})" if type_token in view.unverified_reason
                   else " (Kubernetes objects need cluster access)" if type_token.startswith("kubernetes:") else ""),
                type=type_token,
            )
        )
    return results


def _resource_results(
    declared: DeclaredPlatform, view: LiveView, mapping: DriftMapping, resource: Resource, spec_of_type: Spec,
    unread_symbols: tuple[str, ...],
) -> list[CheckResult]:
    """One declared resource: unreadable, missing, or compared input by input."""
    where: Subject = {"type": resource.type, "name": resource.name, "urn": resource.urn}
    if resource.urn in view.unreadable:
        return [CheckResult(CheckId.read_error, Status.failed, f"not verified: {view.unreadable[resource.urn]}",
                            **where)]
    live = view.matched.get(resource.urn)
    if live is None:
        reason = view.missing_reason.get(resource.urn)
        return [CheckResult(
            CheckId.drift_missing,
            Status.failed,
            f"declared {resource.type.rsplit(':', 1)[-1]} {resource.name} does not exist live"
            + (f": {reason}" if reason else ""),
            **where,
        )]
    unread = view.unreadable_props.get(resource.urn, set())
    changed, unverifiable = _changed_inputs(resource, live, spec_of_type, unread, view.symbols, mapping, where,
                                            unread_symbols)
    changed += _default_drift(resource.props, live.props, spec_of_type, unread, view.symbols, where,
                              mapping.cloud_label)
    changed += mapping.extra_results(declared, view, resource, live, unread, where)
    results = list(changed)
    if unverifiable:
        results.append(
            CheckResult(
                CheckId.drift_unverifiable,
                Status.skipped,
                f"not verified (not reported by the API or not read): {', '.join(sorted(unverifiable))}",
                **where,
            )
        )
    if not changed:
        results.append(
            CheckResult(CheckId.drift_matched, Status.passed, f"matches the declaration (live id {live.id})", **where)
        )
    return results


def _unread_symbols(declared: DeclaredPlatform, view: LiveView) -> tuple[str, ...]:
    """The symbols of declared resources that could not be read: a reference to one has no live id to
    compare with, so an input holding it is not verified, never "changed"."""
    return tuple(symbol(r.name) for r in declared.resources if r.urn in view.unreadable)


def _refers_to_unread(value: Any, unread_symbols: tuple[str, ...]) -> bool:
    text = value if isinstance(value, str) else json.dumps(value, default=str, sort_keys=True)
    return any(sym in text or sym[:-1] + "." in text for sym in unread_symbols)


def _changed_inputs(
    resource: Resource, live: Resource, spec_of_type: Spec, unread: set[str], symbols: Symbols,
    mapping: DriftMapping, where: Subject, unread_symbols: tuple[str, ...] = (),
) -> tuple[list[CheckResult], list[str]]:
    """Declared inputs whose live value differs, and those that could not be verified (not read, or
    referring to a resource whose read failed)."""
    changed: list[CheckResult] = []
    unverifiable: list[str] = []
    for key, value in resource.props.items():
        if key in spec_of_type.ignore or value is None:
            continue
        if (key not in spec_of_type.read or key in unread
                or (key in spec_of_type.optional and live.props.get(key) is None)):
            unverifiable.append(key)
            continue
        declared_value = mapping.comparable(resource.type, key, value)
        live_value = mapping.comparable(resource.type, key, live.props.get(key))
        if unread_symbols and _refers_to_unread(canonical(declared_value, symbols), unread_symbols):
            unverifiable.append(key)
            continue
        for difference in differences(
            canonical(declared_value, symbols),
            canonical(live_value, symbols),
            path=key,
            exact_paths=spec_of_type.exact,
            ignore_paths=spec_of_type.ignore,
        ):
            changed.append(
                CheckResult(
                    CheckId.drift_changed,
                    Status.failed,
                    f"{difference.path}: declared {_short(difference.expected)}, live {_short(difference.actual)}",
                    path=difference.path,
                    expected=difference.expected,
                    actual=difference.actual,
                    **where,
                )
            )
    return changed, unverifiable


def _unexpected_results(view: LiveView, mapping: DriftMapping) -> list[CheckResult]:
    results = []
    for unexpected in view.unexpected:
        live = unexpected.resource
        props = canonical(dict(live.props), view.symbols)
        results.append(
            CheckResult(
                CheckId.drift_unexpected,
                Status.failed,
                f"{unexpected.reason}: {mapping.describe_unexpected(live, props)}",
                type=live.type,
                name=live.name,
                urn=live.urn,
                actual=props,
            )
        )
    return results
