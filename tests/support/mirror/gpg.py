"""A throw-away gpg key in its own GNUPGHOME, to sign a mirror's Release as an operator's key would."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def make_key(home: Path) -> tuple[str, Path]:
    """(fingerprint, exported public keyring) of a new unprotected signing key under `home`."""
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    env = {**os.environ, "GNUPGHOME": str(home)}
    subprocess.run(
        [
            "gpg",
            "--batch",
            "--passphrase",
            "",
            "--quick-gen-key",
            "accelplane mirror test <mirror@accelplane.invalid>",
            "ed25519",
            "sign",
            "1d",
        ],
        check=True,
        capture_output=True,
        env=env,
    )
    listing = subprocess.run(
        ["gpg", "--batch", "--with-colons", "--list-secret-keys"], check=True, capture_output=True, text=True, env=env
    ).stdout
    fingerprint = next(line.split(":")[9] for line in listing.splitlines() if line.startswith("fpr:"))
    keyring = home / "mirror.gpg"
    exported = subprocess.run(["gpg", "--batch", "--export", fingerprint], check=True, capture_output=True, env=env)
    keyring.write_bytes(exported.stdout)
    return fingerprint, keyring
