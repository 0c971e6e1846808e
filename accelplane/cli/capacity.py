"""`accelplane capacity offerings --stack NAME --pool POOL`: what scarce accelerator capacity the pool
could get, from its cloud's own offers, read-only (accelplane/capacity/offerings.py; each cloud's offers
in docs/capacity.md): where, when, how many and, where the cloud names one, the price. Nothing is bought.
Exit codes: 0 offers found, 1 none for the question asked, 2 bad input or no credentials.

`accelplane capacity sync --stack NAME [--apply]`: each pool on bought capacity sized to the capacity's
life (none before it is active, the declared size while it is, none again before it ends;
accelplane/capacity/sync.py). Exit codes: 0 every pool in step (or set with --apply), 1 a pool differs
and --apply was not given, 2 bad input, no credentials or a read that failed.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime, timedelta

from accelplane.cli.connection_args import add_connection_arguments, connection_of
from accelplane.cli.instant_arg import instant
from accelplane.cli.stack_args import add_stack_arguments, require_stack
from accelplane.errors import EXIT_FINDINGS, EXIT_OK, InputError
from accelplane.option_types import at_least

HERE = "accelplane capacity offerings"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("capacity", help="scarce accelerator capacity: what a pool could get (read-only), "
                                   "pools following what was bought",
                                   description=__doc__.split("\n\n")[0] if __doc__ else None)
    actions = parser.add_subparsers(dest="capacity_action", required=True, parser_class=type(parser))
    sub = actions.add_parser("offerings", help="the cloud's offers for a pool: machine type, count, dates, price",
                             description="The cloud's offers for the pool's machine type: what a purchase or a "
                             "future reservation would get, read-only.")
    add_stack_arguments(sub)
    sub.add_argument("--pool", required=True, metavar="NAME", help="the node pool (node_pools[].name)")
    sub.add_argument("--count", type=at_least(1), metavar="N", help="machines (default: the pool's scaling.max)")
    sub.add_argument("--days", type=at_least(1), default=1, metavar="D", help="how long, in days (default 1)")
    sub.add_argument("--from", dest="earliest", type=instant, metavar="TIME",
                     help="earliest start, UTC (e.g. 2026-12-10T00:00:00Z; default: now)")
    sub.add_argument("--within", type=at_least(1), default=14, metavar="DAYS",
                     help="latest start, in days after --from (default 14)")
    add_connection_arguments(sub)
    sub.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    sub.add_argument("--now", type=instant, help=argparse.SUPPRESS)  # for tests and reruns
    sub.set_defaults(handler=_offerings)
    sync = actions.add_parser("sync", help="size each pool on bought capacity to the capacity's life",
                              description="Reads each pool's bought capacity (state, start, end) and its live size; "
                              "with --apply sets the size the capacity's life calls for.")
    add_stack_arguments(sync)
    sync.add_argument("--apply", action="store_true", help="set the sizes (default: say what would be set)")
    add_connection_arguments(sync)
    sync.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    sync.add_argument("--now", type=instant, help=argparse.SUPPRESS)  # for tests and reruns
    sync.set_defaults(handler=_sync)


def _offerings(args: argparse.Namespace) -> int:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.capacity.offerings import OfferingQuery, offerings_of
    from accelplane.suggest import did_you_mean

    stack = require_stack(args)
    platform = stack.platform
    pool = next((p for p in platform.node_pools if p.name == args.pool), None)
    if pool is None:
        names = [p.name for p in platform.node_pools]
        raise InputError.single(f"no pool {args.pool!r}{did_you_mean(args.pool, names)} (pools: {', '.join(names)})",
                                file=HERE, field="--pool")
    facet = offerings_of(platform.cloud)
    if facet is None:
        raise InputError.single(f"the {platform.cloud} cloud offers no capacity offerings", file=str(stack.path),
                                line=stack.line_of("cloud"), field="cloud")
    earliest = args.earliest or args.now or datetime.now(UTC)
    query = OfferingQuery(pool=pool, count=args.count or pool.scaling.max, hours=args.days * 24, earliest=earliest,
                          latest=earliest + timedelta(days=args.within))
    problem = facet.query_problem(query)
    if problem:
        raise InputError.single(f"{facet.title}: {problem}", file=HERE, field="--days")
    offers, where = facet.find(platform, query, connection_of(args, platform.cloud, "capacity offerings"))
    offers.sort(key=lambda offer: (not offer.in_pool_zones, offer.start, offer.upfront_usd or 0.0))
    data = {"stack": stack.stack, "pool": pool.name, "where": where, "source": facet.title,
            "asked": {"machine": pool.instance_type, "count": query.count, "hours": query.hours,
                      "start_from": earliest.strftime("%Y-%m-%dT%H:%M:%SZ"),
                      "start_by": query.latest.strftime("%Y-%m-%dT%H:%M:%SZ")},
            "offerings": [{"kind": o.kind, "id": o.offering_id, "zone": o.zone, "in_pool_zones": o.in_pool_zones,
                           "start": o.start.strftime("%Y-%m-%dT%H:%M:%SZ"), "end": o.end.strftime("%Y-%m-%dT%H:%M:%SZ"),
                           "hours": round(o.hours, 2), "machine": o.machine, "count": o.count,
                           "upfront_usd": o.upfront_usd, "per_machine_hour_usd": o.per_machine_hour_usd,
                           "declaration": facet.declaration(o) if facet.declaration and o.offering_id else None}
                          for o in offers]}
    print(json.dumps(data, indent=2, sort_keys=True) if args.format == "json" else _text(data))
    return EXIT_OK if offers else EXIT_FINDINGS


def _text(data: dict) -> str:
    asked = data["asked"]
    lines = [f"{data['source']} for pool {data['pool']} of {data['stack']} ({data['where']}): {asked['count']}x"
             f"{asked['machine']} for {asked['hours']} h, starting {asked['start_from']} to {asked['start_by']}"]
    if not data["offerings"]:
        lines.append("  none offered for that: try other dates (--from, --within), fewer machines or another length")
    for offer in data["offerings"]:
        price = (f"${offer['upfront_usd']:,.2f} upfront (${offer['per_machine_hour_usd']:,.4f} per machine-hour)"
                 if offer["upfront_usd"] is not None else "no price in the answer")
        zone = offer["zone"] + ("" if offer["in_pool_zones"] else " (not a zone of the pool)")
        lines.append(f"  {offer['start']} → {offer['end']} in {zone}: {offer['count']}x{offer['machine']}, {price}"
                     + (f" [{offer['id']}]" if offer["id"] else ""))
    first = next((o for o in data["offerings"] if o["declaration"] and o["in_pool_zones"]), None)
    if first is not None:
        lines.append(f"To buy {first['id']}, declare under the pool (`pulumi up` buys it; docs/capacity.md):")
        lines.extend(f"    {line}" for line in first["declaration"].splitlines())
    return "\n".join(lines)


def _sync(args: argparse.Namespace) -> int:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.capacity.sync import plan_rows, sync_of

    stack = require_stack(args)
    platform = stack.platform
    facet = sync_of(platform.cloud)
    if facet is None:
        raise InputError.single(f"the {platform.cloud} cloud has no bought capacity for pools to follow",
                                file=str(stack.path), line=stack.line_of("cloud"), field="cloud")
    if not facet.pools(platform):
        raise InputError.single(f"no pool of the stack is on bought capacity ({facet.declared_as})",
                                file=str(stack.path), field="node_pools")
    connection = connection_of(args, platform.cloud, "capacity sync")
    found, where = facet.read(platform, connection)
    now = args.now or datetime.now(UTC)
    rows = plan_rows(found, now, args.apply)
    pools = {entry.pool.name: entry.pool for entry in found}
    for row in rows:
        if row.action == "set":
            facet.resize(platform, connection, pools[row.pool], row.size)
    data = {"stack": stack.stack, "where": where, "now": _utc(now), "applied": args.apply,
            "pools": [{"pool": r.pool, "capacity": r.what, "state": r.state, "start": _utc(r.start), "end": _utc(r.end),
                       "live_size": r.live_size, "size": r.size, "why": r.why, "action": r.action,
                       "idle_machines": r.idle, "idle_usd_per_hour": r.idle_hour_usd} for r in rows]}
    print(json.dumps(data, indent=2, sort_keys=True) if args.format == "json" else _sync_text(data))
    return EXIT_FINDINGS if any(r.action == "would set" for r in rows) else EXIT_OK


def _utc(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if moment else None


def _sync_text(data: dict) -> str:
    lines = [f"Pools on bought capacity of {data['stack']} ({data['where']}) at {data['now']}:"]
    for row in data["pools"]:
        live = "not created" if row["live_size"] is None else str(row["live_size"])
        action = {"none": "in step", "set": f"set to {row['size']}", "would set": f"would set {row['size']} (--apply)"}
        lines.append(f"  {row['pool']}: {row['capacity']}, {row['why']}; live {live}: {action[row['action']]}")
        if row["idle_machines"]:
            cost = f", ${row['idle_usd_per_hour']:,.2f} an hour" if row["idle_usd_per_hour"] is not None else ""
            lines.append(f"    idle committed capacity: {row['idle_machines']} machine(s) billed unused{cost}")
    return "\n".join(lines)
