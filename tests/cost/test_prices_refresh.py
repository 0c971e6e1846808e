"""`accelplane prices refresh` on small extracts in the real formats: an AWS Price List EC2 offer file
(us-west-2), `aws ec2 describe-spot-price-history` output and a Cloud Billing Catalog SKU listing;
the tables it writes are valid, carry the new prices and date, and list each change."""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path

import pytest

from accelplane.cost.cloud_pricing import table_path
from accelplane.cost.prices import load_table
from tests.cost.conftest import DATA
from tests.support.cli_contract import run_cli


@pytest.fixture
def tables(tmp_path: Path) -> Path:
    for cloud in ("aws", "gcp"):
        shutil.copy(table_path(cloud), tmp_path / f"{cloud}.yaml")
    return tmp_path


def test_aws_offer_file_refreshes_instances_gp3_and_nat(tables: Path) -> None:
    outcome = run_cli(["prices", "refresh", "--aws-offer", str(DATA / "aws_ec2_offer_us-west-2.json"),
                       "--output-dir", str(tables), "--retrieved", "2026-12-01"])
    assert outcome.code == 0, outcome.err
    # Linux, shared tenancy, used capacity only: not the Windows, dedicated or unused-reservation rows.
    assert "us-west-2 p5.48xlarge: 55.04 -> 54.9" in outcome.out
    assert "m7i.2xlarge" not in outcome.out
    table = load_table(tables / "aws.yaml")
    west, east = table.regions["us-west-2"], table.regions["us-east-1"]
    assert west.instances["p5.48xlarge"].on_demand == 54.9 and west.instances["p5.48xlarge"].confirmed
    assert west.instances["g6e.2xlarge"].on_demand == 2.24208 and west.instances["g6e.2xlarge"].confirmed
    assert not west.instances["m7i.2xlarge"].confirmed  # not in the extract: left as it was
    assert east.instances["p5.48xlarge"].on_demand == 55.04  # the file is us-west-2's only
    assert west.services["ebs_gp3_gb_month"].price == 0.08 and west.services["nat_gateway_hour"].price == 0.045
    assert table.retrieved == date(2026, 12, 1)
    # The header comment (what the file is, where prices come from) survives the rewrite.
    assert (tables / "aws.yaml").read_text().startswith("# AWS list prices in USD")


def test_spot_history_becomes_a_dated_range_per_type(tables: Path) -> None:
    outcome = run_cli(["prices", "refresh", "--aws-spot-history", str(DATA / "aws_spot_history_us-west-2.json"),
                       "--output-dir", str(tables)])
    assert outcome.code == 0, outcome.err
    spot = load_table(tables / "aws.yaml").regions["us-west-2"].spot
    assert spot is not None and spot.taken == date(2026, 12, 1)
    assert spot.ranges == {"g6e.2xlarge": (0.8123, 0.9511)}  # c5.large is not a type the table prices


def test_gcp_skus_rebuild_machine_types_from_their_shapes(tables: Path) -> None:
    outcome = run_cli(["prices", "refresh", "--gcp-skus", str(DATA / "gcp_compute_skus.json"),
                       "--output-dir", str(tables), "--retrieved", "2026-12-01"])
    assert outcome.code == 0, outcome.err
    machines = load_table(tables / "gcp.yaml").regions["us-central1"].machine_types
    # n2-standard-8: 8 x $0.031611 + 32 x $0.004237 (the europe-west4 core SKU and the spot SKU are not used)
    assert machines["n2-standard-8"].on_demand == pytest.approx(8 * 0.031611 + 32 * 0.004237)
    assert machines["e2-standard-4"].on_demand == pytest.approx(4 * 0.0218113 + 16 * 0.0029233)
    assert machines["ct5p-hightpu-4t"].on_demand == pytest.approx(4 * 4.20)
    assert machines["ct5lp-hightpu-8t"].on_demand == pytest.approx(8 * 1.15)
    assert "us-central1 ct5lp-hightpu-8t: 9.6 -> 9.2" in outcome.out
    # No A3 SKU in the extract: a3-highgpu-8g keeps its price and its unconfirmed flag.
    assert machines["a3-highgpu-8g"].on_demand == 88.49 and not machines["a3-highgpu-8g"].confirmed


def test_a_stale_table_is_warned_about(tables: Path) -> None:
    fresh = run_cli(["cost", "--stack", "dev", "--as-of", "2026-12-05"])
    assert fresh.code == 0 and "WARNING" not in fresh.out
    stale = run_cli(["cost", "--stack", "dev", "--as-of", "2027-06-01"])
    assert stale.code == 0
    assert "WARNING: the aws price table is 183 days old (more than 120): run `accelplane prices refresh`" in stale.out


@pytest.mark.parametrize(("content", "expected"), [
    ("{not json", "not JSON"),
    (json.dumps({"products": {}}), "not an AWS Price List offer file: expected `products` and `terms.OnDemand`"),
    (json.dumps({"products": {}, "terms": {"OnDemand": {}}}), "expected the offer file of one region, found none"),
])
def test_an_offer_file_that_does_not_parse_is_refused(tables: Path, tmp_path: Path, content: str,
                                                       expected: str) -> None:
    bad = tmp_path / "offer.json"
    bad.write_text(content)
    before = (tables / "aws.yaml").read_text()
    outcome = run_cli(["prices", "refresh", "--aws-offer", str(bad), "--output-dir", str(tables)])
    assert outcome.code == 2
    assert expected in outcome.err and "Traceback" not in outcome.err
    assert (tables / "aws.yaml").read_text() == before  # nothing half-written


def test_a_price_table_that_does_not_parse_is_refused(tables: Path) -> None:
    text = (tables / "aws.yaml").read_text().replace("m7i.large: {on_demand: 0.1008",
                                                     "m7i.large: {on_demand: -1")
    (tables / "aws.yaml").write_text(text)
    outcome = run_cli(["cost", "--stack", "dev", "--prices-dir", str(tables)])
    assert outcome.code == 2
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "m7i.large: {on_demand: -1" in row)
    assert f"aws.yaml:{line}: regions.us-east-1.instances.m7i.large.on_demand: Input should be greater than 0" \
        in outcome.err
    (tables / "aws.yaml").write_text("currency: EUR\n")
    outcome = run_cli(["cost", "--stack", "dev", "--prices-dir", str(tables)])
    assert outcome.code == 2 and "currency: String should match pattern '^USD$'" in outcome.err


def test_no_price_list_is_refused_naming_every_clouds_options_and_nothing_is_written(tables: Path) -> None:
    before = {path.name: path.read_bytes() for path in tables.iterdir()}
    outcome = run_cli(["prices", "refresh", "--output-dir", str(tables)])
    assert outcome.code == 2
    assert "name at least one price list: --aws-offer, --aws-spot-history, --gcp-skus" in outcome.err
    assert {path.name: path.read_bytes() for path in tables.iterdir()} == before
