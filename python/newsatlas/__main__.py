"""`python -m newsatlas resolve --input IN.parquet --output OUT.parquet [--lat COL --lon COL | --geometry COL]`:
the CLI's `resolve --input` for Parquet and GeoParquet files, which the Swift CLI cannot read (no Parquet
library on Debian 12 for it), through pyarrow. Exit status as the CLI's: 0, 64 a bad command line, 65 bad data
(rows that failed, the others written; a file that cannot be read as points), 66 an input that cannot be opened,
73 an output that cannot be written."""

import argparse
import os
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m newsatlas",
        description="Resolve every point of a Parquet or GeoParquet file to its news country, batch by batch.")
    commands = parser.add_subparsers(dest="command", required=True)
    resolve = commands.add_parser("resolve", help="add the news country of each row's point")
    resolve.add_argument("--input", required=True, help="a Parquet file (GeoParquet WKB points, or lat/lon columns)")
    resolve.add_argument("--output", required=True, help="the Parquet file to write")
    resolve.add_argument("--lat", help="the latitude column (with --lon)")
    resolve.add_argument("--lon", help="the longitude column (with --lat)")
    resolve.add_argument("--geometry", help="the WKB geometry column (default: GeoParquet's primary column)")
    resolve.add_argument("--threads", type=int, default=None, help="cores that answer each batch (default all)")
    resolve.add_argument("--news-countries", choices=["newsapi", "world"], default="newsapi",
                         help="NewsAPI's 54 (default) or every country GDELT covers")
    try:
        options = parser.parse_args(argv)
    except SystemExit as exit:
        return 64 if exit.code not in (0, None) else 0
    from . import parquet
    if not os.path.isfile(options.input):
        print(f"newsatlas: Cannot open {options.input}: no such file.", file=sys.stderr)
        return 66
    try:
        summary = parquet.resolve_file(options.input, options.output, lat=options.lat, lon=options.lon,
                                       geometry=options.geometry, threads=options.threads,
                                       news_countries=options.news_countries)
    except ImportError as error:
        print(str(error), file=sys.stderr)
        return 69
    except OSError as error:
        print(f"newsatlas: Cannot write {options.output}: {error.strerror or error}.", file=sys.stderr)
        return 73
    except Exception as error:  # noqa: BLE001  (pyarrow's ArrowInvalid for a file that is no Parquet, ValueError)
        print(f"newsatlas: {str(error).splitlines()[0] if str(error) else type(error).__name__}", file=sys.stderr)
        return 65
    if summary.failed:
        print(f"newsatlas: {summary.failed} of {summary.rows} rows failed (the first is row {summary.first_failed}); "
              "their error column says why.", file=sys.stderr)
        return 65
    return 0


if __name__ == "__main__":
    sys.exit(main())
