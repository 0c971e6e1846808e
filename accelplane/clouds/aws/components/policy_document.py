"""IAM policy documents built as plain data, serialised once.

Statements are written as dicts in the IAM JSON grammar; values may be Pulumi Outputs (ARNs),
so `to_json` resolves them with `Output.json_dumps` instead of formatting strings inside `apply`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pulumi

Statement = Mapping[str, Any]


def policy_json(statements: Sequence[Statement]) -> pulumi.Output[str]:
    return pulumi.Output.json_dumps({"Version": "2012-10-17", "Statement": list(statements)})


def service_trust(service: str) -> pulumi.Output[str]:
    """Trust policy letting one AWS service principal assume the role."""
    return policy_json([{"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"}])


def service_account_trust(
    provider_arn: pulumi.Input[str], issuer_host: pulumi.Output[str], namespace: str, service_account: str
) -> pulumi.Output[str]:
    """Trust policy for IRSA: only this service account, only with the STS audience."""
    subject = f"system:serviceaccount:{namespace}:{service_account}"
    return policy_json(
        [
            {
                "Effect": "Allow",
                "Principal": {"Federated": provider_arn},
                "Action": "sts:AssumeRoleWithWebIdentity",
                # Keys embed the issuer host, known only once the cluster exists.
                "Condition": issuer_host.apply(
                    lambda host: {"StringEquals": {f"{host}:sub": subject, f"{host}:aud": "sts.amazonaws.com"}}
                ),
            }
        ]
    )
