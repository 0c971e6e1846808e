"""Lambda permissions the stack declares on a function it does not own (a secret's rotation function):
the statement of the function's resource policy that grants the declared principal the declared action,
matched by content (the statement id is autonamed)."""

from __future__ import annotations

from typing import Any

from accelplane.clouds.aws.verify.live_inventory import UNREADABLE
from accelplane.clouds.aws.verify.live_view.core import ViewCore

PERMISSION = "aws:lambda/permission:Permission"
SECRETS_MANAGER = "secretsmanager.amazonaws.com"


def _principal(statement: dict[str, Any]) -> Any:
    principal = statement.get("Principal")
    return principal.get("Service") or principal.get("AWS") if isinstance(principal, dict) else principal


def _condition(statement: dict[str, Any], operator: str, key: str) -> Any:
    block = (statement.get("Condition") or {}).get(operator) or {}
    return next((value for name, value in block.items() if name.lower() == key.lower()), None)


def _props(statement: dict[str, Any]) -> dict[str, Any]:
    return {
        "action": statement.get("Action"),
        "function": statement.get("Resource"),
        "principal": _principal(statement),
        "sourceArn": _condition(statement, "ArnLike", "AWS:SourceArn"),
        "sourceAccount": _condition(statement, "StringEquals", "AWS:SourceAccount"),
    }


class LambdaPermissionReader(ViewCore):
    """Each declared permission's statement; a statement letting Secrets Manager invoke the function for
    any secret (no SourceArn) is unexpected, whoever added it."""

    def _lambda_permissions(self) -> None:
        claimed: set[tuple[str, str]] = set()
        for resource in self.declared.of_type(PERMISSION):
            function = str(resource.props.get("function"))
            statements = self.inv.function_policies.get(function)
            if statements is UNREADABLE:
                self._unreadable([resource], "lambda:GetPolicy failed")
                continue
            if not statements:
                self.view.missing_reason[resource.urn] = (
                    f"{function} has no resource policy (or no longer exists): nothing may invoke it"
                )
                continue
            wanted = self.symbols.apply(str(resource.props.get("sourceArn") or ""))
            candidates = [s for s in statements if (function, str(s.get("Sid"))) not in claimed
                          and _principal(s) == resource.props.get("principal")
                          and s.get("Action") == resource.props.get("action")]
            candidates.sort(key=lambda s: self.symbols.apply(str(_props(s)["sourceArn"] or "")) != wanted)
            if not candidates:
                continue
            statement = candidates[0]
            claimed.add((function, str(statement.get("Sid"))))
            self._live(resource, resource.type, f"{function}#{statement.get('Sid')}", _props(statement))
        for function, statements in self.inv.function_policies.items():
            for statement in statements or []:
                if (function, str(statement.get("Sid"))) in claimed or _principal(statement) != SECRETS_MANAGER:
                    continue
                if _props(statement)["sourceArn"] is None:
                    self._unexpected(
                        self._live(None, PERMISSION, f"{function}#{statement.get('Sid')}", _props(statement)),
                        "Secrets Manager may invoke the rotation function for any secret (no SourceArn)",
                    )
