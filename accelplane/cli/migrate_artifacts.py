"""`accelplane migrate artifacts --stack NAME --source-bucket NAME --target-bucket NAME`: the target end's
restore drill for the migration's model files (accelplane/migration/artifacts_drill.py). The bucket
names are the ends' stack outputs (`pulumi stack output buckets --stack <end>`). Exit 0 when the copy is
proven, 1 when it is not, 2 on bad input; the report is written where `migrate advance` reads it."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime

from accelplane.cli.connection_args import add_connection_arguments, connections_of
from accelplane.cli.instant_arg import instant
from accelplane.cli.migration_args import clouds_of, migration_of
from accelplane.cli.stack_args import add_stack_arguments
from accelplane.errors import EXIT_FINDINGS, EXIT_OK, InputError

HERE = "accelplane migrate artifacts"


def register(actions: argparse._SubParsersAction) -> None:
    description = ("prove the model's files at the target end before the first step: every object listed at the "
                   "same size, a sample compared by CRC32C")
    sub = actions.add_parser("artifacts", help=description, description=description)
    add_stack_arguments(sub)
    for role in ("source", "target"):
        sub.add_argument(f"--{role}-bucket", required=True, metavar="NAME",
                         help=f"the {role} end's bucket of the declared role (`pulumi stack output buckets --stack "
                         f"<{role} stack>`)")
    add_connection_arguments(sub)
    sub.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    sub.add_argument("--now", type=instant, help=argparse.SUPPRESS)  # the report's time, for tests and reruns
    sub.set_defaults(handler=_run, migrate_command="artifacts")


def _run(args: argparse.Namespace) -> int:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.cloud_support import cloud_facet
    from accelplane.migration.artifacts_drill import drill, report, report_uri
    from accelplane.migration.parity_command import write_file
    from accelplane.rollout.parity.storage import OBJECT_STORE_GROUP, CloudObjectStore

    stack = migration_of(args)
    artifacts = stack.migration.artifacts
    if artifacts is None:
        raise InputError.single("the migration declares no artifacts to prove", file=str(stack.path),
                                field="accelplane:migration.artifacts")
    connections = connections_of(args, clouds_of(stack), "migrate artifacts")
    stores, uris = [], []
    for role, prefix in (("source", artifacts.source_prefix), ("target", artifacts.target_prefix)):
        end = getattr(stack, role)
        facet = cloud_facet(OBJECT_STORE_GROUP, end.platform.cloud, CloudObjectStore)
        if facet is None:
            raise InputError.single(f"the {end.platform.cloud} cloud of stack {end.stack!r} offers no object store",
                                    file=HERE, field=f"--{role}-bucket")
        stores.append(facet.open(end.platform, connections[end.platform.cloud]))
        uris.append(f"{facet.schemes[0]}://{getattr(args, f'{role}_bucket')}/{prefix}")
    result = drill(stores[0], uris[0], stores[1], uris[1], artifacts.sample)
    if result.problems and not result.objects:
        raise InputError.single("; ".join(result.problems), file=HERE, field="--source-bucket")
    found = report(stack, result, args.now or datetime.now(UTC))
    uri = report_uri(stack)
    write_file(stack, uri, (json.dumps(found, indent=2, sort_keys=True) + "\n").encode(), connections)
    print(json.dumps(found, indent=2, sort_keys=True) if args.format == "json" else _text(found, uri))
    return EXIT_OK if result.passed else EXIT_FINDINGS


def _text(found: dict, uri: str) -> str:
    lines = [f"restore drill of migration {found['migration']}: {found['source']} → {found['target']}",
             f"  {found['objects']} objects at the source; missing at the target: {len(found['missing'])}; "
             f"another size: {len(found['resized'])}"]
    lines += [f"  missing: {key}" for key in found["missing"][:10]]
    lines += [f"  resized: {line}" for line in found["resized"][:10]]
    lines += [f"  {'same' if item['same'] else 'DIFFERENT'}: {item['key']} ({item['source']} / {item['target']})"
              for item in found["compared"]]
    lines += [f"  problem: {problem}" for problem in found["problems"]]
    lines.append(f"{found['verdict'].upper()}: wrote {uri}")
    return "\n".join(lines)
