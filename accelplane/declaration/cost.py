"""What a stack declares about its cost: a monthly budget, a discount a pool is billed at, how long a
pool may idle, and when an experiment pool expires (docs/cost.md)."""

from __future__ import annotations

from datetime import date
from enum import StrEnum

from pydantic import Field

from accelplane.declaration.base import Model


class JudgedAt(StrEnum):
    """Which size of every pool a budget is judged at."""

    maximum = "maximum"
    desired = "desired"


class DiscountKind(StrEnum):
    savings_plan = "savings_plan"  # AWS Savings Plans (EC2 Instance or Compute)
    committed_use = "committed_use"  # Google Cloud committed use discounts


class Budget(Model):
    """A monthly budget in USD: `check` fails when the stack would cost more (AP-COST-001) and warns
    at `warn_at`; the program also creates the cloud's own budget (AWS Budgets, Cloud Billing budget)
    that alerts at the same fraction on actual spend."""

    monthly_usd: float = Field(gt=0, le=1e9, description="Monthly amount in USD (USD only).")
    judged_at: JudgedAt = Field(default=JudgedAt.maximum, description="maximum (default) or desired pool sizes.")
    warn_at: float = Field(default=0.8, gt=0, lt=1, description="Warn when the cost reaches this fraction.")
    notify: list[str] = Field(
        default_factory=list,
        max_length=10,
        description="E-mail addresses the cloud's budget alerts (AWS); Google Cloud alerts the billing "
        "account's admins.",
    )
    billing_account: str | None = Field(
        default=None,
        pattern=r"^[0-9A-F]{6}-[0-9A-F]{6}-[0-9A-F]{6}$",
        description="Google Cloud: the billing account the budget belongs to (required on gcp).",
    )


class PriceDiscount(Model):
    """A discount the pool's nodes are billed at: the rate of a Savings Plan or committed use
    discount the buyer holds (the plan sets it; the price tables carry list prices only)."""

    kind: DiscountKind = Field(description="savings_plan (AWS) or committed_use (Google Cloud).")
    percent: float = Field(gt=0, lt=100, description="Percent off the On-Demand price, e.g. 28.")
    reference: str | None = Field(default=None, max_length=256, description="The plan or commitment, for reviewers.")


class IdlePolicy(Model):
    """When a pool's accelerators count as idle: utilisation below `below_percent` over `for_hours`
    (the alert, and `accelplane cost idle`). Default per environment: docs/cost.md."""

    below_percent: float = Field(gt=0, le=100, description="Utilisation (GPU, NeuronCore, TPU duty cycle), %.")
    for_hours: int = Field(ge=1, le=720, description="Hours the utilisation stays below before it counts.")


class Expiry(Model):
    """A development or experiment pool's owner and end: the pool carries both as node labels, and
    `check` fails it after `expires` (AP-COST-002, judged at --as-of)."""

    owner: str = Field(pattern=r"^[a-z0-9]([-a-z0-9_.]{0,61}[a-z0-9])?$", description="Team or person (a label value).")
    expires: date = Field(description="Last day the pool may exist, YYYY-MM-DD.")
