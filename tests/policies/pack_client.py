"""Run the CrossGuard pack the way the Pulumi CLI does, and talk to it over the analyzer protocol.

The CLI starts `pulumi-analyzer-policy-python <engine> . -virtualenv=...` in the pack directory,
which runs `python -u -m pulumi.policy <engine> .`; the pack prints the port it listens on as its
first line of output. This client then calls GetAnalyzerInfo, Configure, Analyze (one resource,
inputs) and AnalyzeStack (all resources) with the properties marshalled into protobuf Structs (so
numbers travel as doubles and unknowns as Pulumi's sentinel strings, as from the CLI).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc

from accelplane.rules.view import Resource

ROOT = Path(__file__).resolve().parents[2]
PACK_DIR = ROOT / "policies"
LEVELS = {"advisory": analyzer_pb2.ADVISORY, "mandatory": analyzer_pb2.MANDATORY,
          "disabled": analyzer_pb2.DISABLED}


@dataclass
class Pack:
    process: subprocess.Popen[bytes]
    channel: grpc.Channel
    stub: analyzer_pb2_grpc.AnalyzerStub
    startup_seconds: float

    def close(self) -> None:
        self.channel.close()
        self.process.kill()
        self.process.wait(timeout=10)


def start_pack(timeout: float = 60.0, pack_dir: Path = PACK_DIR) -> Pack:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-u", "-m", "pulumi.policy", "127.0.0.1:0", "."], cwd=pack_dir, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    line = process.stdout.readline() if process.stdout else b""
    if not line.strip().isdigit():
        process.kill()
        _, err = process.communicate(timeout=10)
        raise RuntimeError(f"policy pack did not print its port: {line!r}\n{err.decode(errors='replace')}")
    channel = grpc.insecure_channel(f"127.0.0.1:{int(line)}")
    grpc.channel_ready_future(channel).result(timeout=timeout)
    return Pack(process, channel, analyzer_pb2_grpc.AnalyzerStub(channel), time.perf_counter() - started)


def struct(props: Mapping[str, Any]) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    json_format.ParseDict(dict(props), message)
    return message


def analyze_request(resource: Resource) -> analyzer_pb2.AnalyzeRequest:
    return analyzer_pb2.AnalyzeRequest(
        urn=resource.urn, type=resource.type, name=resource.name, properties=struct(resource.props),
        options=analyzer_pb2.AnalyzerResourceOptions(protect=resource.protect, parent=resource.parent or ""),
    )


def stack_request(resources: Iterable[Resource]) -> analyzer_pb2.AnalyzeStackRequest:
    return analyzer_pb2.AnalyzeStackRequest(resources=[
        analyzer_pb2.AnalyzerResource(
            urn=r.urn, type=r.type, name=r.name, properties=struct({**r.props, **({"id": r.id} if r.id else {})}),
            options=analyzer_pb2.AnalyzerResourceOptions(protect=r.protect, parent=r.parent or ""),
            parent=r.parent or "", dependencies=list(r.dependencies),
            propertyDependencies={k: analyzer_pb2.AnalyzerPropertyDependencies(urns=list(v))
                                  for k, v in r.property_dependencies.items()},
        )
        for r in resources
    ])


def info(pack: Pack) -> analyzer_pb2.AnalyzerInfo:
    return pack.stub.GetAnalyzerInfo(empty_pb2.Empty())


def configure(pack: Pack, levels: Mapping[str, str]) -> None:
    """What the CLI sends after expanding `--policy-pack-config` (`all`, then per policy)."""
    pack.stub.Configure(analyzer_pb2.ConfigureAnalyzerRequest(policyConfig={
        name: analyzer_pb2.PolicyConfig(enforcementLevel=LEVELS[level]) for name, level in levels.items()}))


def analyze_all(pack: Pack, resources: list[Resource]) -> tuple[list[Any], list[Any]]:
    """(diagnostics, not-applicable records) of Analyze on every resource plus one AnalyzeStack."""
    diagnostics, not_applicable = [], []
    for resource in resources:
        response = pack.stub.Analyze(analyze_request(resource))
        diagnostics.extend(response.diagnostics)
        not_applicable.extend(response.not_applicable)
    response = pack.stub.AnalyzeStack(stack_request(resources))
    diagnostics.extend(response.diagnostics)
    not_applicable.extend(response.not_applicable)
    return diagnostics, not_applicable
