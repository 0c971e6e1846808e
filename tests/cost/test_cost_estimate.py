"""`accelplane cost` arithmetic against figures computed by hand from the shipped price tables
(accelplane/clouds/<cloud>/prices.yaml), for prod (AWS), tpu-prod (Google Cloud) and a spot / reservation /
discount mix: every pool at minimum, desired and maximum, and the totals."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from accelplane.cost.estimate import Estimate
from tests.cost.conftest import HOURS, priced, variant

# us-west-2 On-Demand, USD per hour, and gp3 per GB-month (accelplane/clouds/aws/prices.yaml)
G6E_2XL = 2.24208
GP3 = 0.08
L40S_ON_SPOT = ("        software_profile: l40s-cuda12\n        scaling:",
                "        software_profile: l40s-cuda12\n        capacity: {type: spot}\n        scaling:")


# One node a month, worked out by hand: hourly x 730 hours + its gp3 volume (GiB x $0.08).
#   system      m7i.2xlarge    0.4032 x 730 =    294.336  + 100 GiB  8.00 =    302.336
#   train-h100  p5.48xlarge     55.04 x 730 = 40,179.20   + 1000 GiB 80.00 = 40,259.20
#   infer-l40s  g6e.2xlarge   2.24208 x 730 =  1,636.7184 + 300 GiB 24.00 =  1,660.7184
#   infer-inf2  inf2.xlarge    0.7582 x 730 =    553.486  + 300 GiB 24.00 =    577.486
#   train-trn1  trn1.32xlarge   21.50 x 730 = 15,695.00   + 1000 GiB 80.00 = 15,775.00


def test_prod_pools_at_every_size(estimate_of: Callable[[str], Estimate]) -> None:
    pools = estimate_of("prod").by_pool()
    # (minimum, desired, maximum) nodes of each pool in stacks/Pulumi.prod.yaml, times one node's month
    assert pools["system"] == pytest.approx((907.008, 907.008, 1814.016), abs=0.01)  # 3, 3, 6
    assert pools["train-h100"] == pytest.approx((0, 80518.40, 161036.80), abs=0.01)  # 0, 2, 4
    assert pools["infer-l40s"] == pytest.approx((3321.4368, 4982.1552, 19928.6208), abs=0.01)  # 2, 3, 12
    assert pools["infer-inf2"] == pytest.approx((577.486, 577.486, 4619.888), abs=0.01)  # 1, 1, 8
    assert pools["train-trn1"] == pytest.approx((0, 15775.00, 63100.00), abs=0.01)  # 0, 1, 4


def test_prod_totals_include_every_fixed_line(estimate_of: Callable[[str], Estimate]) -> None:
    estimate = estimate_of("prod")
    fixed = (0.10 * HOURS  # EKS cluster
             + 3 * 0.045 * HOURS  # NAT gateway per zone
             + 3 * 0.005 * HOURS  # their public IPv4 addresses
             + 0.0225 * HOURS  # the ALB
             + 4 * 1.00  # KMS keys: eks, data, secrets, the CloudTrail log files'
             + 2 * 0.40  # secrets: hf-token, wandb-api-key
             + 5.00 + 3 * 1.00)  # the WAF web ACL and its rules: two managed groups, one rate limit
    pools = estimate.by_pool()
    for index, size in enumerate(("minimum", "desired", "maximum")):
        expected = fixed + sum(value[index] for value in pools.values() if value)
        assert estimate.at(size) == pytest.approx(expected, abs=0.05), size
    assert estimate.at("maximum") == pytest.approx(250711.06, abs=0.05)
    assert estimate.unpriced() == []
    # Buckets are billed by what they store: a line with its rate, no fixed amount.
    bucket = next(i for i in estimate.items if i.resource == "acme-ml-checkpoints-bucket")
    assert bucket.parts == () and bucket.usage == "$0.023 per GB-month in STANDARD, by what is stored"


def test_tpu_prod_slices_are_priced_by_their_hosts(estimate_of: Callable[[str], Estimate]) -> None:
    estimate = estimate_of("tpu-prod")
    pools = estimate.by_pool()
    # train-v5p: two 2x2x4 v5p slices, each 16 chips on 4 ct5p-hightpu-4t hosts; TPU v5p $4.20 a chip-hour,
    # each host a 200 GB pd-balanced boot disk at $0.10 a GB-month.
    slice_month = 4 * (4 * 4.20) * HOURS + 4 * 200 * 0.10
    assert pools["train-v5p"] == pytest.approx((2 * slice_month,) * 3, abs=0.01)
    # infer-v5e: ct5lp-hightpu-8t (8 v5e chips at $1.20) x 1 / 2 / 6
    v5e = 8 * 1.20 * HOURS + 200 * 0.10
    assert pools["infer-v5e"] == pytest.approx((v5e, 2 * v5e, 6 * v5e), abs=0.01)
    # train-h100 on spot: the upper end of the documented range, 40 % of a3-highgpu-8g's $88.49
    spot = 0.40 * 88.49 * HOURS + 500 * 0.10
    assert pools["train-h100"] == pytest.approx((0, spot, 2 * spot), abs=0.01)
    line = next(i for i in estimate.items if i.pool == "train-h100")
    assert line.pricing == "spot" and line.spot_range == pytest.approx((0.09 * 88.49, 0.40 * 88.49))
    # system: n2-standard-8 = 8 x $0.031611 + 32 GB x $0.004237 = $0.388472 an hour
    n2 = 0.388472 * HOURS + 200 * 0.10
    assert pools["system"] == pytest.approx((2 * n2, 2 * n2, 4 * n2), abs=0.01)
    # Cloud NAT: $0.0014 per VM-hour, capped at $0.044 per gateway-hour. At maximum: 8 v5p hosts, 6 v5e,
    # 2 + 8 H100 and 4 system VMs = 28 VMs = $0.0392 an hour, under the cap.
    nat = next(i for i in estimate.items if i.kind == "Cloud NAT")
    assert nat.monthly(HOURS)[2] == pytest.approx(28 * 0.0014 * HOURS, abs=0.01)


def test_spot_reservation_and_discount_mix(tmp_path: Path) -> None:
    stack = variant(
        tmp_path,
        # infer-l40s moves to spot; train-trn1 is billed under a 28 % Savings Plan
        L40S_ON_SPOT,
        ("        software_profile: trn1-neuron\n        scaling:",
         "        software_profile: trn1-neuron\n        capacity: {type: on_demand, discount: {kind: savings_plan, "
         "percent: 28, reference: sp-0123}}\n        scaling:"),
    )
    pools = priced(stack).by_pool()
    # spot without a snapshot: the upper end of the documented range is the On-Demand price itself
    assert pools["infer-l40s"] == pytest.approx((3321.4368, 4982.1552, 19928.6208), abs=0.01)  # 2, 3, 12 nodes
    # 72 % of 15,775.00 and of 4 x 15,775.00
    assert pools["train-trn1"] == pytest.approx((0, 11358.00, 45432.00), abs=0.01)
    # the reservation pool: nodes at the On-Demand rate, with the note that the reservation bills its size
    estimate = priced(stack)
    h100 = next(i for i in estimate.items if i.pool == "train-h100")
    assert h100.pricing == "reservation" and "whether or not nodes run" in (h100.note or "")
    l40s = next(i for i in estimate.items if i.pool == "infer-l40s")
    assert l40s.spot_range == pytest.approx((0.10 * G6E_2XL, G6E_2XL))


def test_a_spot_snapshot_sets_the_range(tmp_path: Path) -> None:
    from accelplane.cli.cost import stack_estimate
    from accelplane.cost.refresh import refresh_tables
    from tests.cost.conftest import DATA

    refresh_tables({"aws": {"--aws-spot-history": [DATA / "aws_spot_history_us-west-2.json"]}}, output_dir=tmp_path,
                   retrieved="2026-12-01")
    stack = variant(tmp_path, L40S_ON_SPOT)
    estimate, _ = stack_estimate(stack, tmp_path)
    l40s = next(i for i in estimate.items if i.pool == "infer-l40s")
    assert l40s.spot_range == (0.8123, 0.9511)  # the Linux/UNIX rows of us-west-2a and 2b, not Windows
    assert estimate.by_pool()["infer-l40s"][2] == pytest.approx(12 * 0.9511 * HOURS + 12 * 300 * GP3, abs=0.01)


def test_a_type_without_a_price_is_never_counted_as_zero(tmp_path: Path) -> None:
    stack = variant(tmp_path, ("        instance_type: m7i.2xlarge", "        instance_type: m7i.8xlarge"))
    estimate = priced(stack)
    system = next(i for i in estimate.items if i.pool == "system")
    assert system.monthly(HOURS) is None and system.unpriced == ["m7i.8xlarge (no price)"]
    assert [i.resource for i in estimate.unpriced()] == ["acme-ml-system-ng"]
    assert estimate.by_pool()["system"] is None
