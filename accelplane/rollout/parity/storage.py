"""Where golden sets and parity reports live: a path in the project, or the cloud's object store.

A path is relative to the project directory (the one holding `Pulumi.yaml`; the stack file's own
directory outside a project). `s3://` and `gs://` URIs go to the stack's cloud
(`CloudSupport.object_store`), with the same connection options as the rest of `rollout`.
"""

from __future__ import annotations

import os
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from accelplane.cloud_support import Connection, cloud_facet
from accelplane.config.loader import StackConfig
from accelplane.config.project import project_around
from accelplane.declaration import Platform
from accelplane.errors import InputError


@dataclass(frozen=True)
class ObjectEntry:
    """One object under a listed prefix."""

    key: str  # below the prefix
    size: int


class ObjectStore(ABC):
    @abstractmethod
    def read(self, uri: str) -> bytes | None:
        """The object's bytes; None when there is none."""

    @abstractmethod
    def write(self, uri: str, data: bytes) -> None: ...

    def entries(self, uri: str) -> list[ObjectEntry]:
        """Every object under the prefix `uri` (`scheme://bucket/prefix/`), by key below it, in key order
        (a migration's restore drill compares two of them)."""
        raise StoreError(f"{uri}: this store cannot list objects")

    def crc32c(self, uri: str) -> int | None:
        """The whole object's CRC32C as the store keeps it, or None where it keeps none (the caller then
        hashes the bytes: `hashed_crc32c`)."""
        return None

    def hashed_crc32c(self, uri: str) -> int | None:
        """The CRC32C of the object's bytes, read and hashed here; None when there is no object. A store
        whose objects may be large (model shards of many GiB) streams them rather than holding them."""
        import google_crc32c  # start-up time: only a restore drill hashes objects

        data = self.read(uri)
        return None if data is None else int(google_crc32c.value(data))


class StoreError(Exception):
    """An object that cannot be read or written (the message says which and why)."""


class LocalStore(ObjectStore):
    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, uri: str) -> Path:
        return self.root / uri

    def read(self, uri: str) -> bytes | None:
        try:
            return self.path(uri).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as error:
            raise StoreError(f"cannot read {self.path(uri)}: {error.strerror}") from None

    def write(self, uri: str, data: bytes) -> None:
        target = self.path(uri)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=target.parent, delete=False) as handle:  # never half a file
                handle.write(data)
            os.replace(handle.name, target)
        except OSError as error:
            raise StoreError(f"cannot write {target}: {error.strerror}") from None


def project_root(stack: StackConfig) -> Path:
    project = project_around(stack.path.parent)
    return project.root if project is not None else stack.path.parent


OBJECT_STORE_GROUP = "accelplane.object_stores"


@dataclass(frozen=True)
class CloudObjectStore:
    """A cloud's object store for parity files: its `accelplane.object_stores` entry point, with the URI
    schemes it serves (`s3`, `gs`)."""

    cloud: str
    schemes: tuple[str, ...]
    open: Callable[[Platform, Connection], ObjectStore]


def serves(uri: str, stack: StackConfig) -> bool:
    """Whether `store_for` can reach `uri` for this stack: a path, or a scheme its cloud's store serves."""
    scheme, sep, _ = uri.partition("://")
    if not sep:
        return True
    facet = cloud_facet(OBJECT_STORE_GROUP, stack.platform.cloud, CloudObjectStore)
    return facet is not None and scheme in facet.schemes


def store_for(uri: str, stack: StackConfig, connection: Connection) -> ObjectStore:
    """The store holding `uri`; `InputError` for a scheme the stack's cloud does not serve."""
    scheme, sep, _ = uri.partition("://")
    if not sep:
        return LocalStore(project_root(stack))
    facet = cloud_facet(OBJECT_STORE_GROUP, stack.platform.cloud, CloudObjectStore)
    store = facet.open(stack.platform, connection) if facet and scheme in facet.schemes else None
    if store is None:
        raise InputError.single(f"{uri}: a {stack.platform.cloud} stack keeps parity files in a path or "
                                "its own object store", file=str(stack.path), field="rollout.parity")
    return store
