"""What a stack costs: sourced, dated list prices (`prices`), the monthly estimate of an offline plan
(`estimate`), declared discounts and budgets. USD only. Works on the plan's resources, so the same
estimate serves `accelplane cost`, `preview`, `diff` and the budget rule (docs/cost.md)."""
