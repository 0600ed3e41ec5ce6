"""Command line for the course corpora: ``python -m sslviz.datasets {status,fetch,path,missing}``.

``status [NAME ...]``   table of every file: dataset, file, state, where it is (or would be)
``fetch [NAME ...]``    download what is missing (all datasets when no name is given)
``path``                print the data folder and how it was chosen, and the cache folder
``missing [NAME ...]``  print the missing or corrupt files, one per line (for scripts)

The exit code is 0 when everything requested is present (verified or, for names without a known
checksum, unverified), 1 otherwise: a missing, corrupt or unreadable file, or a folder where a
file should be (with a message saying what to do on stderr). Bad arguments (an unknown dataset
name, ``SSLVIZ_DATA`` naming no folder) give one line on stderr and exit code 2.
"""

from __future__ import annotations

import sys

from sslviz import cli
from sslviz.datasets.download import mirror_base
from sslviz.datasets.fetch import (
    UNVERIFIED,
    ChecksumMismatchError,
    DatasetMissingError,
    ensure,
    fetch,
    file_sha256,
    status,
)
from sslviz.datasets.registry import REGISTRY
from sslviz.datasets.verify import OK_STATES
from sslviz.lectures import LECTURE_DATASETS
from sslviz.paths import cache_dir, data_dir_origin


def _parser() -> cli.Parser:
    parser = cli.Parser(
        prog="python -m sslviz.datasets",
        description="Check, fetch and locate the corpora used by the sslviz notebooks.",
        epilog=f"datasets: {', '.join(REGISTRY)}. Set SSLVIZ_DATA to use a folder that "
        "already holds the files.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in [
        ("status", "show which files are present, missing or corrupt"),
        ("fetch", "download the missing files (all datasets if no NAME)"),
        ("missing", "print the missing or corrupt files, one per line"),
    ]:
        sub = commands.add_parser(name, help=text, description=text)
        sub.add_argument("names", nargs="*", metavar="NAME", help="dataset names (default: all)")
        sub.add_argument("--lectures", action="store_true",
                         help="the datasets the lectures load (sslviz.lectures), besides NAMEs")
    commands.add_parser("path", help="print the data and cache folders")
    return parser


def _status(names) -> int:
    rows = status(names)
    problems = ensure(names)
    width_dataset = max(len("dataset"), *(len(row.dataset) for row in rows))
    width_file = max(len("file"), *(len(row.file) for row in rows))
    width_state = max(len("state"), *(len(row.state) for row in rows))
    print(f"{'dataset':{width_dataset}}  {'file':{width_file}}  {'state':{width_state}}  where")
    for row in rows:
        print(f"{row.dataset:{width_dataset}}  {row.file:{width_file}}  "
              f"{row.state:{width_state}}  {row.path}")
    for row in rows:
        if row.state == UNVERIFIED:
            print(f"note: {row.path} has no published checksum; sha256 "
                  f"{file_sha256(row.path)} (UNVERIFIED)")
    for problem in problems:
        print(f"\n{problem}", file=sys.stderr)
    return 1 if problems else 0


def _fetch_command(names) -> int:
    paths = fetch(names or None)
    print(f"{len(paths)} file(s) present in {data_dir_origin()[0]}")
    return 0


def _missing(names) -> int:
    rows = [row for row in status(names) if row.state not in OK_STATES]
    for row in rows:
        print(row.file)
    return 1 if rows else 0


def _path() -> int:
    folder, origin = data_dir_origin()
    print(f"data:  {folder}  ({origin})")
    print(f"cache: {cache_dir()}")
    return 0


def _check_names(names):
    unknown = [name for name in names or () if name not in REGISTRY]
    if unknown:
        raise cli.UsageError(f"unknown dataset(s) {unknown}; choose from {', '.join(REGISTRY)}")
    data_dir_origin()  # SSLVIZ_DATA must name a folder (DataFolderError otherwise)
    mirror_base()  # SSLVIZ_MIRROR must be an https://, http:// or file:// URL (MirrorError)


@cli.command
def main(argv=None) -> int:
    """Run the command line; return the exit code (0: all requested files present, 1: some are
    not, 2: bad arguments)."""
    args = _parser().parse_args(argv)
    names = getattr(args, "names", None) or None
    if getattr(args, "lectures", False):
        names = [*dict.fromkeys([*(names or ()), *LECTURE_DATASETS])]
    _check_names(names)
    try:
        if args.command == "status":
            return _status(names)
        if args.command == "fetch":
            return _fetch_command(names)
        if args.command == "missing":
            return _missing(names)
        return _path()
    except (DatasetMissingError, ChecksumMismatchError) as exc:
        print(exc, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
