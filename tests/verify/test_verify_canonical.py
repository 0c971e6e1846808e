"""Declared and live values made comparable: symbols, policy documents, differences, wire format."""

from __future__ import annotations

import json

from accelplane.clouds.aws.verify.live_view import camel, wire
from accelplane.verify.canonical import Symbols, canonical, differences


def test_symbols_replace_whole_tokens_longest_first() -> None:
    symbols = Symbols()
    symbols.add("bucket-1", "<datasets>")
    symbols.add("arn:aws:s3:::bucket-1", "<datasets>")
    symbols.add("bucket-12", "<checkpoints>")

    assert symbols.apply("arn:aws:s3:::bucket-12/trainer/*") == "arn:aws:s3:::<checkpoints>/trainer/*"
    assert symbols.apply("arn:aws:s3:::bucket-1/corpora/*") == "<datasets>/corpora/*"
    assert symbols.apply("bucket-1x bucket-1") == "bucket-1x <datasets>"


def test_first_registration_of_a_token_wins() -> None:
    symbols = Symbols()
    symbols.add("acme-datasets-1a2b", "<bucket>", live=True)
    symbols.add("acme-datasets-1a2b", "<bucket-policy>", live=True)  # the settings' id is the bucket's name

    assert symbols.symbol_of("acme-datasets-1a2b") == "<bucket>"
    assert symbols.live["<bucket>"] == "acme-datasets-1a2b"


def test_equal_policies_in_different_forms_compare_equal() -> None:
    declared = json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Action": "s3:GetObject",
                    "Resource": "arn:aws:s3:::b/*",
                    "Principal": {"AWS": "arn:aws:iam::123456789012:root"},
                },
                {
                    "Effect": "Deny",
                    "Principal": "*",
                    "Action": ["s3:*"],
                    "Resource": ["arn:aws:s3:::b"],
                    "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                },
            ],
        }
    )
    live = {
        "Statement": [
            {
                "Effect": "Deny",
                "Principal": "*",
                "Action": "s3:*",
                "Resource": "arn:aws:s3:::b",
                "Condition": {"Bool": {"aws:SecureTransport": ["false"]}},
            },
            {
                "Resource": ["arn:aws:s3:::b/*"],
                "Action": ["s3:GetObject"],
                "Effect": "Allow",
                "Principal": {"AWS": ["arn:aws:iam::123456789012:root"]},
            },
        ],
        "Version": "2012-10-17",
    }

    assert canonical(declared) == canonical(live)
    assert differences(canonical(declared), canonical(live), path="policy") == []


def test_an_added_condition_in_a_policy_is_a_difference() -> None:
    declared = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::b"}],
    }
    live = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::b", "NotPrincipal": {"AWS": "x"}}
        ],
    }

    [difference] = differences(canonical(declared), canonical(live), path="policy")
    assert difference.path == "policy"


def test_maps_compare_on_declared_keys_unless_exact() -> None:
    declared = {"tags": {"owner": "ml"}, "labels": {"pool": "a"}}
    live = {"tags": {"owner": "ml", "aws:created-by": "eks"}, "labels": {"pool": "a", "hand": "made"}}

    [difference] = differences(declared, live, exact_paths=("labels",))
    assert (difference.path, difference.expected, difference.actual) == ("labels.hand", None, "made")


def test_lists_are_multisets_and_absent_equals_empty() -> None:
    assert differences({"subnetIds": ["b", "a"], "taints": []}, {"subnetIds": ["a", "b"]}) == []
    [difference] = differences({"instanceTypes": ["g6.xlarge"]}, {"instanceTypes": ["g6.2xlarge"]})
    assert difference.path == "instanceTypes"


def test_unset_declared_values_and_ignored_paths_are_not_compared() -> None:
    declared = {"publicAccessCidrs": None, "scalingConfig": {"minSize": 0, "desiredSize": 1}}
    live = {"publicAccessCidrs": ["0.0.0.0/0"], "scalingConfig": {"minSize": 0, "desiredSize": 4}}

    assert differences(declared, live, ignore_paths=("scalingConfig.desiredSize",)) == []


def test_heterogeneous_list_elements_keep_their_own_keys() -> None:
    declared = [
        {"Sid": "a", "Condition": {"StringEquals": {"k": "v"}}},
        {"Sid": "b", "Condition": {"StringLike": {"p": "x"}}},
    ]
    live = [
        {"Sid": "b", "Condition": {"StringLike": {"p": "x"}}},
        {"Sid": "a", "Condition": {"StringEquals": {"k": "v"}}},
    ]

    assert differences(declared, live) == []


def test_booleans_sent_as_strings_equal_booleans() -> None:
    assert canonical({"encrypted": "true", "associatePublicIpAddress": "false"}) == {
        "encrypted": True,
        "associatePublicIpAddress": False,
    }


def test_api_shapes_become_wire_format_in_the_declared_spelling() -> None:
    declared = {
        "rules": [
            {
                "applyServerSideEncryptionByDefault": {"sseAlgorithm": "aws:kms", "kmsMasterKeyId": "k"},
                "bucketKeyEnabled": True,
            }
        ]
    }
    live = [
        {
            "ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms", "KMSMasterKeyID": "k"},
            "BucketKeyEnabled": True,
        }
    ]

    assert wire(live, declared["rules"]) == declared["rules"]
    assert wire({"Tags": [{"Key": "owner", "Value": "ml"}], "ID": "x"}) == {"tags": {"owner": "ml"}, "id": "x"}
    assert [camel(k) for k in ("SSEAlgorithm", "ID", "HttpPutResponseHopLimit", "nodegroupName")] == [
        "sseAlgorithm",
        "id",
        "httpPutResponseHopLimit",
        "nodegroupName",
    ]
