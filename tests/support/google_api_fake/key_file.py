"""A service account key file whose `token_uri` is the Google API fake's OAuth endpoint: the real
google-auth path (a signed JWT exchanged for an access token), as a command run with
GOOGLE_APPLICATION_CREDENTIALS takes it. The key is generated per call and never leaves the test's
directory."""

from __future__ import annotations

import json
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa


def key_file(directory: Path, fake_url: str, project: str, account: str) -> Path:
    """`directory/key.json` for `account@project.iam.gserviceaccount.com`."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    path = directory / "key.json"
    path.write_text(json.dumps({"type": "service_account", "project_id": project, "private_key_id": "1",
                                "private_key": pem, "client_email": f"{account}@{project}.iam.gserviceaccount.com",
                                "client_id": "1", "token_uri": f"{fake_url}/token"}))
    return path
