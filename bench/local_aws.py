"""The environment of a benchmark against the local AWS stand-ins (moto on 127.0.0.1): fake credentials,
no profile, config file or instance metadata of this machine, and no AMI catalogue for moto to load."""

from __future__ import annotations

import os


def use_local_aws() -> None:
    """Set before boto3 is imported: botocore reads these once."""
    for variable in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL"):
        os.environ.pop(variable, None)
    os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_DEFAULT_REGION="us-west-2",
                      AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull,
                      AWS_EC2_METADATA_DISABLED="true", MOTO_EC2_LOAD_DEFAULT_AMIS="false")
