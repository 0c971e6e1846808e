"""`accelplane prices refresh`: rebuild the price tables from price lists a user downloaded.

`--aws-offer FILE` (repeatable): an AWS Price List bulk offer file for EC2 in one region
(`https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/<region>/index.json`);
`--aws-spot-history FILE`: the JSON of `aws ec2 describe-spot-price-history`; `--gcp-skus FILE`
(repeatable): a Cloud Billing Catalog SKU listing (`GET .../v1/services/<id>/skus`, all pages in one
`skus` array or one file per page). Writes the refreshed tables to `--output-dir` (default: the
shipped tables, to review and commit) and prints each price that changed. Nothing is fetched.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from accelplane.errors import EXIT_OK, InputError
from accelplane.input_files import is_dir, is_file


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("prices", help="price tables: rebuild them from downloaded price lists",
                                   description=__doc__.split("\n\n")[0] if __doc__ else None)
    actions = parser.add_subparsers(dest="prices_action", required=True, metavar="refresh")
    refresh = actions.add_parser("refresh", help="rebuild the tables from AWS offer files and Cloud Billing SKUs",
                                 description=__doc__.split("\n\n", 1)[1] if __doc__ else None)
    refresh.add_argument("--aws-offer", type=Path, action="append", default=[], metavar="FILE")
    refresh.add_argument("--aws-spot-history", type=Path, action="append", default=[], metavar="FILE")
    refresh.add_argument("--gcp-skus", type=Path, action="append", default=[], metavar="FILE")
    refresh.add_argument("--output-dir", type=Path, metavar="DIR", help="where to write aws.yaml and gcp.yaml")
    refresh.add_argument("--retrieved", metavar="YYYY-MM-DD", help="the day the files were downloaded (default: today)")
    refresh.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # Start-up time: only this command loads these.
    from accelplane.cost.refresh import refresh_tables

    for option, paths in (("--aws-offer", args.aws_offer), ("--aws-spot-history", args.aws_spot_history),
                          ("--gcp-skus", args.gcp_skus)):
        for path in paths:
            if not is_file(path):
                raise InputError.single("no such file", file=str(path), field=option)
    if not (args.aws_offer or args.aws_spot_history or args.gcp_skus):
        raise InputError.single("name at least one price list: --aws-offer, --aws-spot-history or --gcp-skus",
                                file="accelplane prices refresh")
    if args.output_dir is not None and not is_dir(args.output_dir):
        raise InputError.single("no such directory", file=str(args.output_dir), field="--output-dir")
    for line in refresh_tables(aws_offers=args.aws_offer, aws_spot=args.aws_spot_history, gcp_skus=args.gcp_skus,
                               output_dir=args.output_dir, retrieved=args.retrieved):
        print(line)
    return EXIT_OK
