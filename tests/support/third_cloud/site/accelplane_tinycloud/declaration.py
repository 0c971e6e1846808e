"""What only a tinycloud stack declares: the data centre, and each pool's rack."""

from __future__ import annotations

from pydantic import Field

from accelplane.declaration import NodePool, Platform


class TinyNodePool(NodePool):
    rack: str = Field(pattern=r"^r[0-9]+$", description="The rack the pool's machines stand in, e.g. r12.")


class TinyPlatform(Platform):
    """A tinycloud stack (`cloud: tiny`)."""

    datacenter: str = Field(pattern=r"^dc[0-9]+$", description="The data centre, e.g. dc1.")
    node_pools: list[TinyNodePool] = Field(  # pyright: ignore[reportIncompatibleVariableOverride]
        min_length=1, description="Machine pools."
    )
