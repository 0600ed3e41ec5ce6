"""``python -m sslviz``: the instructor's commands (also installed as ``sslviz``).

``export-figures [NOTEBOOK ...]``  run the lectures and save every explorer's figure for slides
``slides [NOTEBOOK ...]``          write the slide metadata derived from the headings (``--check``
                                   only reports notebooks whose metadata is missing or stale)
``execute NOTEBOOK ...``           re-run lectures top to bottom (claims strict) and write them back
                                   in their committed form (no timestamps, no widget state)
``student NOTEBOOK ... --out DIR``  write the lectures without their worked solutions (default
                                   ``student/``; a folder of notebooks is accepted)
``cache --size`` / ``--prune SIZE``  report the result cache's size / remove its least recently
                                   used entries down to SIZE (e.g. ``500MB``)

Exit codes: 0 success, 1 a notebook failed or is not ready as slides, 2 bad arguments (a file
that is not a notebook, an output folder that cannot be written; one line on stderr, the
traceback only with ``--debug``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sslviz import cli
from sslviz.export import FORMATS


def _parser():
    parser = cli.Parser(prog="python -m sslviz",
                                     description="Figures and slides of the sslviz lectures.")
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser(
        "export-figures", help="run the notebooks and save every explorer's figure",
        description="Run the notebooks without a browser and save the figure of every explorer "
        "(at the values it opens with) as PNG, SVG and PDF, for a slide deck.")
    export.add_argument("notebooks", nargs="*", metavar="NOTEBOOK",
                        help="notebook files (default: all of notebooks/)")
    export.add_argument("--out", default="figures", help="output folder (default: ./figures)")
    export.add_argument("--preset", default="16:9", choices=["16:9", "4:3", "screen"],
                        help="slide size; 'screen' keeps the size on screen (default: 16:9)")
    export.add_argument("--formats", default=",".join(FORMATS),
                        help="comma-separated, from png,svg,pdf (default: all three)")
    export.add_argument("--projector", action="store_true",
                        help="large fonts, thick lines, colour-blind-safe colours")
    slides = commands.add_parser(
        "slides", help="write slide metadata into the notebooks",
        description="Derive each cell's slide type from the notebook's headings and write it.")
    slides.add_argument("notebooks", nargs="*", metavar="NOTEBOOK",
                        help="notebook files (default: all of notebooks/)")
    slides.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 if a notebook is not ready as slides")
    execute = commands.add_parser(
        "execute", help="re-run notebooks and write them back in their committed form",
        description="Run each notebook top to bottom in a fresh kernel with claims strict, drop "
        "execution timestamps, progress-bar widgets and widget state, apply the slide metadata "
        "and write it back (atomically; nothing is written when a cell fails).")
    execute.add_argument("notebooks", nargs="+", metavar="NOTEBOOK", help="notebook files")
    student = commands.add_parser(
        "student", help="write the notebooks without their worked solutions",
        description="Write each notebook without its cells tagged 'solution' (the exercises "
        "stay), atomically, for students.")
    student.add_argument("notebooks", nargs="+", metavar="NOTEBOOK",
                         help="notebook files or folders of notebooks")
    student.add_argument("--out", default="student", help="output folder (default: ./student)")
    cache = commands.add_parser(
        "cache", help="report the result cache's size or prune it",
        description="The result cache (SSLVIZ_CACHE, default ~/.cache/sslviz): its size by kind, "
        "or remove the entries unused for longest until it fits a size. The results stored "
        "with the project are never touched.")
    action = cache.add_mutually_exclusive_group(required=True)
    action.add_argument("--size", action="store_true", help="print the size of each kind")
    action.add_argument("--prune", metavar="SIZE", type=_size,
                        help="remove the least recently used entries until the cache holds at "
                        "most SIZE (e.g. 500MB, 2GB, 0)")
    return parser


def _size(text):
    from sslviz.cache import parse_size

    try:
        return parse_size(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _cache(args) -> int:
    from sslviz.cache import cache_size, format_size, prune
    from sslviz.paths import cache_dir, store_dir

    folder = cache_dir()
    if args.prune is not None:
        try:
            removed = prune(args.prune, folder)
        except ValueError as error:  # the store named as the cache
            raise cli.UsageError(str(error)) from None
        freed = sum(size for _, size in removed)
        print(f"removed {len(removed)} entries ({format_size(freed)}), least recently used first")
    sizes = cache_size(folder)
    total = sum(size for _, size in sizes.values())
    entries = sum(count for count, _ in sizes.values())
    print(f"result cache {folder}: {format_size(total)} in {entries} entries")
    if args.size:
        width = max(map(len, sizes), default=0)
        for kind, (count, size) in sizes.items():
            print(f"  {kind:<{width}} {count:>5} entries {format_size(size):>10}")
        store = store_dir()
        if store is not None:
            stored = cache_size(store)
            print(f"stored results {store} (read-only, never pruned): "
                  f"{format_size(sum(size for _, size in stored.values()))}")
    return 0


def _student(args) -> int:
    from sslviz.solutions import write_student_versions

    for line in write_student_versions(args.notebooks, args.out):
        print(line)
    return 0


def _execute(args) -> int:
    from sslviz.deck import execute_in_place
    from sslviz.notebook_files import NotebookFailed

    paths = cli.check_distinct(cli.checked_notebooks(args.notebooks), what="notebooks")
    for path in paths:  # each is written back: check first
        cli.writable_file(path, option="NOTEBOOK")
    for path in paths:
        try:
            execute_in_place(Path(path))
        except NotebookFailed as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        print(f"executed {path}")
    return 0


EXPORT_COMMAND = "python -m sslviz export-figures"


def _check_formats(text):
    formats = tuple(f.strip().lower() for f in text.split(",") if f.strip())
    unknown = [f for f in formats if f not in FORMATS]
    if unknown or not formats:
        raise cli.UsageError(f"--formats {text!r}: choose from {','.join(FORMATS)}")
    return formats


def _export(args) -> int:
    from sslviz.deck import export_figures
    from sslviz.notebook_files import NotebookFailed

    formats = _check_formats(args.formats)
    cli.check_distinct(cli.checked_notebooks(args.notebooks), what="notebooks")
    cli.check_output_folder(args.out, command=EXPORT_COMMAND)
    cli.mark_output_folder(args.out, EXPORT_COMMAND)
    preset = None if args.preset == "screen" else args.preset
    try:
        paths = export_figures(args.notebooks or None, args.out, preset=preset, formats=formats,
                               projector=args.projector)
    except NotebookFailed as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    folder = Path(args.out).resolve()
    print(f"{len(paths)} files written to {folder}")
    return 0


def _slides(args) -> int:
    import nbformat

    from sslviz.deck import default_notebooks
    from sslviz.slides import slide_problems, update_notebooks

    paths = cli.check_distinct(cli.checked_notebooks(args.notebooks) or default_notebooks(),
                               what="notebooks")
    if not args.check:
        for path in paths:
            cli.writable_file(path, option="NOTEBOOK")
        for path in update_notebooks(paths):
            print(f"updated {path}")
    failed = 0
    for path in paths:
        for problem in slide_problems(nbformat.read(path, as_version=4)):
            print(f"{path.name}: {problem}", file=sys.stderr)
            failed = 1
    return failed


@cli.command
def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "cache":
        return _cache(args)
    cli.require_classroom(f"python -m sslviz {args.command}")
    if args.command == "export-figures":
        return _export(args)
    if args.command == "execute":
        return _execute(args)
    if args.command == "student":
        return _student(args)
    return _slides(args)


if __name__ == "__main__":
    sys.exit(main())
