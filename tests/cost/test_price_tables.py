"""The shipped price tables: valid, sourced, dated, and covering what the stacks and catalogs name."""

from __future__ import annotations

from fnmatch import fnmatch

import pytest

from accelplane.clouds.gcp import catalog as gcp_catalog
from accelplane.config.loader import load_stack
from accelplane.cost.cloud_pricing import builtin_table
from tests.support.stack_files import STACKS_DIR

# The stacks that declare a platform (a migration stack has no pools of its own).
STACKS = sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in STACKS_DIR.glob("Pulumi.*.yaml")
                if "accelplane:platform:" in p.read_text())


@pytest.mark.parametrize("stack", STACKS)
def test_every_example_stacks_pool_has_a_price_in_its_region_or_says_why_not(stack: str) -> None:
    platform = load_stack(stack).platform
    table = builtin_table(platform.cloud)
    prices = table.region(platform.region)
    assert prices is not None, f"{stack}: no prices for {platform.region}"
    unpriced = [p.instance_type for p in platform.node_pools if prices.hourly(p.instance_type) is None]
    # Only ironwood-dev's TPU7x has no public list price yet: listed, with the reason, as unpriced.
    assert all(any(fnmatch(kind, key) for key in table.unpriced) for kind in unpriced), unpriced


def test_every_gcp_catalog_machine_type_is_priced_or_says_why_not() -> None:
    table = builtin_table("gcp")
    priced = set(table.regions["us-central1"].machine_types)
    said = {name for name in gcp_catalog.machine_types() if any(fnmatch(name, key) for key in table.unpriced)}
    missing = sorted(gcp_catalog.machine_types() - priced - said)
    assert missing == [], "price these machine types or list them under `unpriced` with the reason"
    assert priced.isdisjoint(said), "a priced machine type is also listed as unpriced"
    # n2-standard-32 from N2's rates: 32 vCPUs x $0.031611 + 128 GB x $0.004237
    assert table.regions["us-central1"].machine_types["n2-standard-32"].on_demand == pytest.approx(
        32 * 0.031611 + 128 * 0.004237)


@pytest.mark.parametrize("cloud", ["aws", "gcp"])
def test_tables_are_usd_dated_and_every_row_names_a_public_source(cloud: str) -> None:
    table = builtin_table(cloud)
    assert table.currency == "USD" and table.retrieved.year >= 2026 and table.max_age_days > 0
    assert all(source.url.startswith("https://") for source in table.sources.values())
    # A TPU VM's price is its chips' (the shapes the refresh builds it from agree with the table).
    for name, shape in table.shapes.items():
        row = table.regions["us-central1"].machine_types.get(name) if cloud == "gcp" else None
        if row is not None and shape.tpu:
            per_chip = {"v5e": 1.20, "v5p": 4.20, "v6e": 2.70, "v4": 3.22}[shape.tpu]
            assert row.on_demand == pytest.approx(shape.chips * per_chip), name


def test_a_price_keeps_every_published_digit() -> None:
    """p4d.24xlarge was typed 21.96 where the price list says 21.957642: a rounded figure is a wrong one
    (over a month of 730 hours, $16,029.08 rather than $16,030.80, for every such node)."""
    table = builtin_table("aws")
    row = table.regions["us-east-1"].instances["p4d.24xlarge"]
    assert row.on_demand == 21.957642
    assert round(row.on_demand * 730, 2) == 16029.08


def test_every_aws_instance_type_the_matrix_names_is_priced_or_says_why_not() -> None:
    """prod's L40S pool moved to p5.4xlarge (the matrix's own type for one H100) read `no price` with no
    reason. Every instance type the matrix names for an accelerator, each EC2 size of a family glob, has
    a price or a line under `unpriced` with the reason, and never both."""
    from accelplane.clouds.aws import catalog as aws_catalog
    from accelplane.matrix.loader import load

    table = builtin_table("aws")
    priced = set(table.regions["us-east-1"].instances)
    named = {pattern for accelerator in load().accelerators.values()
             for pattern in getattr(accelerator, "instance_types", ()) or () if "." in pattern}
    assert {"p5.4xlarge", "p5e.48xlarge", "trn2.*"} <= named
    concrete = {name for name in aws_catalog.ec2_instance_types() if any(fnmatch(name, p) for p in named)}
    said = {name for name in concrete if any(fnmatch(name, key) for key in table.unpriced)}
    assert sorted(concrete - priced - said) == [], "price these instance types or list them under `unpriced`"
    assert priced.isdisjoint(said), sorted(priced & said)
