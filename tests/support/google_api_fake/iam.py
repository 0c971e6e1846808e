"""IAM's methods with semantics of their own: `serviceAccounts.keys.create` makes a user-managed
key (IAM names it `projects/P/serviceAccounts/EMAIL/keys/KEY_ID` and returns the private key
once, in `privateKeyData`; `keys.list` shows it afterwards without the private part)."""

from __future__ import annotations

import base64
import copy
import hashlib
import json

from tests.support.google_api_fake.state import Call, State
from tools import google_discovery as discovery

_VALID_AFTER = "2026-12-01T00:00:00Z"
_VALID_BEFORE = "9999-12-31T23:59:59Z"  # user-managed keys do not expire unless a policy says so


def create_key(state: State, call: Call) -> dict:
    api = discovery.load("iam", "v1")
    account_path = call.path.rsplit("/keys", 1)[0]
    account = state.existing(api, account_path)
    key_id = hashlib.sha1(f"{account_path}/{next(state._serial)}".encode()).hexdigest()  # an id, not a secret
    name = f"{account.get('name', account_path.removeprefix('v1/'))}/keys/{key_id}"
    request = call.body or {}
    key = {
        "name": name,
        "keyAlgorithm": request.get("keyAlgorithm") or "KEY_ALG_RSA_2048",
        "keyOrigin": "GOOGLE_PROVIDED",
        "keyType": "USER_MANAGED",
        "validAfterTime": _VALID_AFTER,
        "validBeforeTime": _VALID_BEFORE,
    }
    state.resources[state.key(api, f"{account_path}/keys/{key_id}")] = key
    credentials = {"type": "service_account", "private_key_id": key_id, "client_email": account.get("email", "")}
    private = base64.b64encode(json.dumps(credentials).encode()).decode()
    return {**copy.deepcopy(key), "privateKeyType": request.get("privateKeyType") or "TYPE_GOOGLE_CREDENTIALS_FILE",
            "privateKeyData": private}


def install(fake) -> None:
    fake.handle("iam.projects.serviceAccounts.keys.create", create_key)
