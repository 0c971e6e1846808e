"""docs/aws/preflight-policy.json, the least-privilege policy shipped for `accelplane preflight`,
allows every call a full run makes and nothing more (sts:GetCallerIdentity needs no permission)."""

from __future__ import annotations

import json
from pathlib import Path

from accelplane.config.loader import StackConfig
from tests.preflight.conftest import Account, variant

POLICY = Path(__file__).resolve().parents[2] / "docs" / "aws" / "preflight-policy.json"
_PREFIX = {"service-quotas": "servicequotas"}


def test_the_policy_allows_exactly_what_a_run_calls(account: Account, fitting_prod: StackConfig,
                                                    tmp_path: Path) -> None:
    del account.quotas["L-1945791B"]  # falls back to the AWS default: that call too
    account.run("m7i.large")  # something running elsewhere: DescribeInstanceTypes for its type too
    account.preflight(fitting_prod)
    # An existing VPC: the zones of its subnets are read (DescribeSubnets).
    (tmp_path / "existing").mkdir()
    existing = variant(tmp_path / "existing", ("""      new_vpc:
        cidr: 10.20.0.0/16
        availability_zones: [us-west-2a, us-west-2b, us-west-2c]
        private_subnets: [10.20.0.0/18, 10.20.64.0/18, 10.20.128.0/18]
        public_subnets: [10.20.192.0/24, 10.20.193.0/24, 10.20.194.0/24]
        nat: per_az
""", """      existing_vpc:
        vpc_id: vpc-0123456789abcdef0
        cidr: 10.20.0.0/16
        private_subnet_ids: [subnet-0123456789abcdef0]
        public_subnet_ids: [subnet-0123456789abcdef1]
"""))
    account.preflight(existing)
    called = {f"{_PREFIX.get(s, s)}:{op}" for s, op in
              (name.split(".", 1) for name in account.clients.calls.to_json()["by_operation"])}
    [statement] = json.loads(POLICY.read_text())["Statement"]
    assert statement["Effect"] == "Allow" and statement["Resource"] == "*"
    assert sorted(statement["Action"]) == sorted(called - {"sts:GetCallerIdentity"})
