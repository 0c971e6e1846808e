"""`MigrationStack`: a validated migration stack and the two stacks it joins."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accelplane.config.keys import MIGRATION_KEY
from accelplane.config.loader import StackConfig
from accelplane.config.yaml_source import PathPart, YamlDocument
from accelplane.declaration.base import Environment
from accelplane.declaration.migration import Migration


@dataclass(frozen=True)
class MigrationStack:
    """A validated migration stack and its two ends."""

    stack: str
    path: Path
    project: str
    migration: Migration
    source: StackConfig
    target: StackConfig
    config: dict[str, Any]  # the file's whole `config:` block
    document: YamlDocument | None = field(default=None, compare=False, repr=False)

    def line_of(self, *parts: PathPart) -> int | None:
        """Line of `accelplane:migration.<parts>` in the stack file (the nearest declared parent)."""
        return self.document.line_of(["config", MIGRATION_KEY, *parts]) if self.document else None

    @property
    def environment(self) -> Environment:
        """The stricter of the two ends' environments: a migration touching prod is a prod change."""
        order = [Environment.dev, Environment.staging, Environment.prod]
        return max(self.source.platform.environment, self.target.platform.environment, key=order.index)
