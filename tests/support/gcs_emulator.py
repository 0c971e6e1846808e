"""A real Cloud Storage JSON API on 127.0.0.1: gcp-storage-emulator (PyPI), in memory.

It serves the same `storage/v1` paths google-api-python-client calls (buckets, objects, uploads,
rewrites, bucket IAM policies), so verify and the checkpoint drill read it through the same client
code as Cloud Storage itself. What it does not do, and the tests rely on only where said: it
enforces no IAM (a stored policy is returned as stored) and no retention on delete.

One process serves a test session; `GcsEmulator.wipe()` empties it between tests.
"""

from __future__ import annotations

import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.mirror.servers import _served, free_port


@dataclass(frozen=True)
class GcsEmulator:
    url: str  # the API root, as `--api-endpoint storage=URL` takes it

    def wipe(self) -> None:
        urllib.request.urlopen(f"{self.url}/wipe", timeout=10).close()

    def client(self) -> Any:
        """A plain google-api-python-client for the emulator (anonymous, as it checks no tokens)."""
        from google.auth.credentials import AnonymousCredentials
        from googleapiclient import discovery

        return discovery.build(
            "storage",
            "v1",
            credentials=AnonymousCredentials(),
            client_options={"api_endpoint": self.url},
            static_discovery=True,
            cache_discovery=False,
        )


    def upload(self, bucket: str, name: str, data: bytes, metadata: dict[str, str] | None = None) -> dict:
        """Write an object as a trainer would (`objects.insert` with the bytes)."""
        from googleapiclient.http import MediaInMemoryUpload

        body = {"name": name, **({"metadata": metadata} if metadata else {})}
        request = self.client().objects().insert(bucket=bucket, body=body, media_body=MediaInMemoryUpload(data))
        # google-api-python-client builds upload URLs with the discovery document's https scheme.
        request.uri = request.uri.replace("https://", "http://", 1)
        return request.execute()


@contextmanager
def gcs_emulator(work: Path, project_number: str) -> Iterator[GcsEmulator]:
    port = free_port()
    executable = Path(sys.executable).with_name("gcp-storage-emulator")
    argv = [str(executable), "start", "--host", "127.0.0.1", "--port", str(port), "--in-memory", "--quiet",
            "--project-number", project_number]
    with _served(argv, f"http://127.0.0.1:{port}/", work / f"gcs-{port}.log"):
        yield GcsEmulator(f"http://127.0.0.1:{port}")
