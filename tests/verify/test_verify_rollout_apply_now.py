"""`accelplane rollout … --apply-now` then `accelplane verify`: the emergency weights show as drift of
the deployed declaration, naming the rollout, until the rewritten stack file is deployed.

`--apply-now` sets the live listener weights (ModifyListener) and rewrites the stack file; `pulumi up`
has not run. Verified against the declaration that was deployed (what CI holds until the operator's
stack-file change is merged and applied), the live weights are drift, and the message names both
causes; verified against the rewritten file, the weights are as declared but not what Pulumi deployed
(the listener's `accelplane:weights` tag), still drift until `pulumi up` has run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import boto3
import pytest

from accelplane.cli import main
from accelplane.clouds.aws.clients import AwsClients
from accelplane.clouds.aws.verify.reader import AwsReader
from accelplane.config.loader import load_stack_file
from accelplane.program import offline_graph
from accelplane.verify.results import CheckId
from accelplane.verify.verification import VerifyOptions, verify
from tests.verify.conftest import canary_text, failures
from tests.verify.moto_platform import MotoPlatform

HTTPS = "acme-ml-dev-inference-https"


def test_apply_now_then_verify_reports_the_rollouts_weights_as_drift(
    live_canary: MotoPlatform,
    run_verify_canary: Any,
    boto_session: boto3.Session,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    stack_file = tmp_path / "Pulumi.dev.yaml"
    stack_file.write_text(canary_text())  # the declaration `pulumi up` deployed: l4 95 / l4-int8 5

    code = main(["rollout", "abort", "--stack-file", str(stack_file), "--service", "server", "--apply-now",
                 "--now", "2026-12-03T07:00:00Z"])

    assert code == 0, capsys.readouterr().err
    report = run_verify_canary()  # against the deployed declaration
    [changed] = [r for r in report.results if r.check == CheckId.drift_changed]
    assert (changed.name, changed.path) == (HTTPS, "defaultActions.forward.targetGroups")
    assert changed.message == (
        "service server: live weights l4 100 / l4-int8 0, declared l4 95 / l4-int8 5 (rollout l4 → l4-int8; run "
        "`pulumi up`, or the weights were applied with `accelplane rollout --apply-now`)"
    )
    assert failures(report) == [(CheckId.drift_changed, HTTPS, "defaultActions.forward.targetGroups")]
    assert report.failed

    # The rewritten stack file declares what is live now, but `pulumi up` has not deployed it: the
    # listener's `accelplane:weights` tag still holds the weights Pulumi deployed, so this is drift too.
    rewritten = load_stack_file(stack_file)
    layer = rewritten.platform.kubernetes
    assert layer is not None and [b.weight for b in layer.inference_services[0].serving_backends] == [100, 0]
    clients = AwsClients("us-east-1", session=boto_session)
    before_up = verify(rewritten, VerifyOptions(probes=0), graph=offline_graph(rewritten), reader=AwsReader(clients))
    assert failures(before_up) == [(CheckId.drift_changed, HTTPS, "tags.accelplane:weights")]
    [undeployed] = [r for r in before_up.results if r.check == CheckId.drift_changed]
    assert undeployed.message == (
        "service server: live weights l4 100 / l4-int8 0 are not deployed by Pulumi (the last `pulumi up` set "
        "l4 95 / l4-int8 5; rollout l4 → l4-int8: applied with `accelplane rollout --apply-now`?); run "
        "`pulumi up` with this stack file"
    )

    # `pulumi up` with the rewritten file deploys the listener's tags as declared: clean.
    elbv2 = boto_session.client("elbv2", region_name="us-east-1")
    elbv2.add_tags(ResourceArns=[live_canary.https_listener()],
                   Tags=[{"Key": "accelplane:weights", "Value": "l4=100 l4-int8=0"}])
    after_up = verify(rewritten, VerifyOptions(probes=0), graph=offline_graph(rewritten), reader=AwsReader(clients))
    assert failures(after_up) == []
