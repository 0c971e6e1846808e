"""What a command says when Google's Application Default Credentials cannot be had (standard library
only: every command that reads Google Cloud imports it, the light ones included)."""

from __future__ import annotations

import os

NO_CREDENTIALS = (
    "no Google Cloud credentials: run `gcloud auth application-default login`, or set "
    "GOOGLE_APPLICATION_CREDENTIALS to a service account key or a workload identity federation "
    "config (CI: google-github-actions/auth)"
)


def credentials_problem(error: Exception) -> str:
    """What is wrong with the credentials, for google.auth's DefaultCredentialsError: the file
    GOOGLE_APPLICATION_CREDENTIALS names when it is set (missing, or not a credentials file google-auth
    reads, in google-auth's own words: they name the file and what it expected, never its contents),
    else that there are none. A malformed or missing file used to read "no Google Cloud credentials"."""
    path = os.environ.get("GOOGLE_APPLICATION_CREDENTIALS")
    if not path:
        return NO_CREDENTIALS
    if not os.path.exists(path):
        return (f"GOOGLE_APPLICATION_CREDENTIALS names {path}, which does not exist: point it at a service account "
                "key or a workload identity federation config, or unset it to use `gcloud auth "
                "application-default login`")
    words = " ".join(str(error).split())[:300]
    return (f"GOOGLE_APPLICATION_CREDENTIALS names {path}, which google-auth cannot use as credentials: {words} "
            "(a service account key or a workload identity federation config is JSON with a `type`)")
