"""Secrets that rotate (issue 49): prod's W&B key through Secrets Manager rotation, tpu-prod's Hugging Face
token through Secret Manager's rotation schedule.

Expectations are written from the services' documents: RotateSecret (`RotationLambdaARN`,
`RotationRules.AutomaticallyAfterDays` 1-1000) and Lambda AddPermission (`Principal`, `SourceArn`), checked
against botocore's models; Secret Manager's v1 `Rotation` (`nextRotationTime` RFC 3339 "Zulu",
`rotationPeriod` a duration in seconds, "Secret.topics must be set to configure rotation") and Pub/Sub's
`roles/pubsub.publisher` for Secret Manager's service agent.
"""

from __future__ import annotations

from pathlib import Path

from accelplane.engine.graph import OfflineGraph
from tests.support.botocore_models import invalid
from tests.support.stack_files import edit_problems

FUNCTION = "arn:aws:lambda:us-west-2:444455556666:function:acme-rotate-wandb-key"
PROD_ROTATION = """        rotation_days: 30
        rotation_function: arn:aws:lambda:us-west-2:444455556666:function:acme-rotate-wandb-key
"""
TPU_ROTATION = """        rotation_days: 90
        first_rotation: "2027-01-04T09:00:00Z"
"""


def test_prod_rotates_the_wandb_key_every_30_days_through_its_function(prod_graph: OfflineGraph) -> None:
    secret = prod_graph.named("acme-ml-secrets-wandb-api-key")
    [rotation] = prod_graph.by_type("aws:secretsmanager/secretRotation:SecretRotation")
    assert rotation.inputs["secretId"] == secret.outputs["id"]
    assert rotation.inputs["rotationLambdaArn"] == FUNCTION
    assert rotation.inputs["rotationRules"] == {"automaticallyAfterDays": 30}
    assert not invalid("secretsmanager", "RotateSecret", {
        "SecretId": secret.outputs["arn"], "RotationLambdaARN": FUNCTION,
        "RotationRules": {"AutomaticallyAfterDays": 30}})
    # The token rotated by hand at Hugging Face has none.
    hf = prod_graph.named("acme-ml-secrets-hf-token")
    assert all(r.inputs["secretId"] != hf.outputs["id"]
               for r in prod_graph.by_type("aws:secretsmanager/secretRotation:SecretRotation"))


def test_secrets_manager_may_invoke_the_function_for_this_secret_only_before_rotation_starts(
        prod_graph: OfflineGraph) -> None:
    secret = prod_graph.named("acme-ml-secrets-wandb-api-key")
    [permission] = prod_graph.by_type("aws:lambda/permission:Permission")
    assert {k: permission.inputs.get(k) for k in ("action", "function", "principal", "sourceArn", "sourceAccount")} == {
        "action": "lambda:InvokeFunction", "function": FUNCTION, "principal": "secretsmanager.amazonaws.com",
        "sourceArn": secret.outputs["arn"], "sourceAccount": None}
    assert not invalid("lambda", "AddPermission", {
        "FunctionName": FUNCTION, "StatementId": "rotation", "Action": "lambda:InvokeFunction",
        "Principal": "secretsmanager.amazonaws.com", "SourceArn": secret.outputs["arn"]})
    # RotateSecret calls the function at once: the permission must exist first.
    [rotation] = prod_graph.by_type("aws:secretsmanager/secretRotation:SecretRotation")
    assert permission.urn in rotation.dependencies


def test_tpu_prod_asks_for_a_new_hugging_face_token_every_90_days_on_the_rotation_topic(
        tpu_prod_graph: OfflineGraph) -> None:
    [topic] = tpu_prod_graph.by_type("gcp:pubsub/topic:Topic")
    assert topic.inputs["name"] == "acme-tpu-secrets-rotation"
    secret = tpu_prod_graph.named("acme-tpu-secrets-hf-token")
    assert secret.inputs["topics"] == [{"name": topic.outputs["id"]}]
    # 90 days = 90 x 86400 s = 7776000 s; the first notification at the declared time, in UTC.
    assert secret.inputs["rotation"] == {"nextRotationTime": "2027-01-04T09:00:00Z", "rotationPeriod": "7776000s"}
    oauth = tpu_prod_graph.named("acme-tpu-secrets-iap-oauth-client")
    assert "rotation" not in oauth.inputs and "topics" not in oauth.inputs


def test_only_secret_manager_s_agent_may_publish_on_the_topic_before_a_secret_names_it(
        tpu_prod_graph: OfflineGraph) -> None:
    [topic] = tpu_prod_graph.by_type("gcp:pubsub/topic:Topic")
    [publisher] = tpu_prod_graph.by_type("gcp:pubsub/topicIAMMember:TopicIAMMember")
    agent = tpu_prod_graph.by_type("gcp:projects/serviceIdentity:ServiceIdentity")
    [secret_manager] = [a for a in agent if a.inputs["service"] == "secretmanager.googleapis.com"]
    assert {k: publisher.inputs[k] for k in ("topic", "role", "member")} == {
        "topic": topic.outputs["id"], "role": "roles/pubsub.publisher",
        "member": f"serviceAccount:{secret_manager.outputs['email']}"}
    assert publisher.urn in tpu_prod_graph.named("acme-tpu-secrets-hf-token").dependencies


def test_a_rotation_period_needs_what_rotates_on_each_cloud(tmp_path: Path) -> None:
    aws = edit_problems(tmp_path, (PROD_ROTATION, "        rotation_days: 30\n"))
    assert [field for field, _ in aws] == ["accelplane:platform.secrets[1]"], aws
    assert "rotation_days and rotation_function go together" in aws[0][1]
    gcp = edit_problems(tmp_path, (TPU_ROTATION, "        rotation_days: 90\n"), stack="tpu-prod")
    assert "rotation_days and first_rotation go together" in gcp[0][1], gcp
    # A start without an offset is ambiguous; Secrets Manager's range is 1-1000 days.
    naive_start = "        rotation_days: 90\n        first_rotation: '2027-01-04T09:00'\n"
    naive = edit_problems(tmp_path, (TPU_ROTATION, naive_start), stack="tpu-prod")
    assert [field for field, _ in naive] == ["accelplane:platform.secrets[1].first_rotation"], naive
    too_long = edit_problems(tmp_path, (PROD_ROTATION, PROD_ROTATION.replace("30", "1001")))
    assert [field for field, _ in too_long] == ["accelplane:platform.secrets[1].rotation_days"], too_long


def test_each_cloud_refuses_the_other_s_rotation_key(tmp_path: Path) -> None:
    aws = edit_problems(tmp_path, (PROD_ROTATION, PROD_ROTATION + "        first_rotation: 2027-01-04T09:00:00Z\n"))
    assert [field for field, _ in aws] == ["accelplane:platform.secrets[1].first_rotation"], aws
    gcp = edit_problems(tmp_path, (TPU_ROTATION, TPU_ROTATION + f"        rotation_function: {FUNCTION}\n"),
                        stack="tpu-prod")
    assert [field for field, _ in gcp] == ["accelplane:platform.secrets[1].rotation_function"], gcp
