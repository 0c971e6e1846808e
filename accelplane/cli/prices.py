"""`accelplane prices refresh`: rebuild the price tables from price lists a user downloaded.

Each installed cloud names the price lists it reads (one option each, repeatable; see each option's
help). Writes the refreshed tables to `--output-dir` (default: the shipped tables, to review and
commit) and prints each price that changed. Nothing is fetched.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from accelplane.cost.price_lists import installed_price_lists
from accelplane.errors import EXIT_OK, InputError
from accelplane.input_files import is_dir, is_file


def _dest(flag: str) -> str:
    return "price_list_" + flag.lstrip("-").replace("-", "_")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("prices", help="price tables: rebuild them from downloaded price lists",
                                   description=__doc__.split("\n\n")[0] if __doc__ else None)
    actions = parser.add_subparsers(dest="prices_action", required=True, metavar="refresh")
    refresh = actions.add_parser("refresh", help="rebuild the tables from the clouds' downloaded price lists",
                                 description=__doc__.split("\n\n", 1)[1] if __doc__ else None)
    for facet in installed_price_lists():
        group = refresh.add_argument_group(f"price lists of cloud: {facet.cloud}")
        for price_list in facet.lists:
            group.add_argument(price_list.flag, dest=_dest(price_list.flag), type=Path, action="append", default=[],
                               metavar="FILE", help=price_list.help)
    refresh.add_argument("--output-dir", type=Path, metavar="DIR", help="where to write <cloud>.yaml per cloud")
    refresh.add_argument("--retrieved", metavar="YYYY-MM-DD", help="the day the files were downloaded (default: today)")
    refresh.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # Start-up time: only this command loads these.
    from accelplane.cost.refresh import refresh_tables

    files = {facet.cloud: {item.flag: getattr(args, _dest(item.flag)) for item in facet.lists}
             for facet in installed_price_lists()}
    for given in files.values():
        for option, paths in given.items():
            for path in paths:
                if not is_file(path):
                    raise InputError.single("no such file", file=str(path), field=option)
    if not any(paths for given in files.values() for paths in given.values()):
        flags = [item.flag for facet in installed_price_lists() for item in facet.lists]
        raise InputError.single(f"name at least one price list: {', '.join(flags) or 'no installed cloud reads one'}",
                                file="accelplane prices refresh")
    if args.output_dir is not None and not is_dir(args.output_dir):
        raise InputError.single("no such directory", file=str(args.output_dir), field="--output-dir")
    for line in refresh_tables(files, output_dir=args.output_dir, retrieved=args.retrieved):
        print(line)
    return EXIT_OK
