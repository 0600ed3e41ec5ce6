"""Results of the lectures' long sweeps, stored with the project.

Some sweeps take minutes on two cores (the Fisher-kernel grid, the hybrid tables at lecture scale,
the graph methods on Senseval words...). A student's first "Run All" should not wait for them, so
the project keeps their results in ``sslviz/stored_results/cache/``
(:func:`sslviz.paths.store_dir`, package data): entries in the result cache's own format, each
holding the key it was computed for (the data's digest, every setting, the code's digest).
:class:`sslviz.cache.ResultCache` reads an entry there when the user's cache has none; a change
of data, setting or code changes the key, so a stale stored entry is never used -- the lecture
then computes the result itself.

``python -m sslviz.experiments store [NOTEBOOK ...]`` makes the store: it runs each lecture top to
bottom in a fresh kernel with an empty cache and the store switched off (so every result is
computed), then keeps the entries of the kinds its :class:`sslviz.lectures.Lecture` record names
(:data:`sslviz.lectures.STORED_KINDS`), and
records them in ``MANIFEST.json`` (which lecture stored which file, and the code behind each
kind: the computing module and its :func:`sslviz.code_digest.code_digest`, read from the entries'
keys). ``--check`` runs the same computation and compares it with the store instead of writing:
the stored numbers are what the code computes today; a stored entry that is damaged or missing is
a difference too. The store folder and its manifest are checked (:func:`check_store`) before any
lecture runs.

Every entry's key holds the digest of the code that computed it, so an entry made by older code is
never read. :func:`stale_kinds` compares the manifest's digests with today's sources, without
computing anything: the test suite runs it, and names the command that rebuilds a stale lecture.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import sys
import time
import zipfile
from pathlib import Path

import numpy as np

from .. import cli
from .._io import atomic_write
from ..cache import stored_key
from ..code_digest import PACKAGE_ROOT, code_digest
from ..lectures import CORPUS_KINDS, STORED_KINDS
from ..paths import store_dir

MANIFEST = "MANIFEST.json"
MAX_STORE_BYTES = 20_000_000  # the store lives in git: a test keeps it small
MAX_ENTRY_BYTES = 300_000  # results, not data: a corpus's derivatives stay in the user's cache

__all__ = ["MANIFEST", "MAX_ENTRY_BYTES", "MAX_STORE_BYTES", "STORED_KINDS", "check_notebook",
           "check_store", "main", "read_code", "read_manifest", "stale_kinds", "store_notebook"]


COMMAND = "python -m sslviz.experiments store"


def _manifest(store):
    path = Path(store or store_dir()) / MANIFEST
    if not path.is_file():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def check_store(store, *, writing):
    """Refuse, before any lecture runs, a store folder the command may not use: a file, a folder
    holding files it did not write (no ``MANIFEST.json``), a damaged manifest, or (``writing``)
    a folder that cannot be written."""
    if writing:
        cli.writable_folder(store, option="SSLVIZ_STORE")
    store = Path(store)
    if store.exists() and not store.is_dir():
        raise cli.UsageError(f"SSLVIZ_STORE {store} is a file, not a folder")
    if not store.is_dir():
        return
    manifest = store / MANIFEST
    if not manifest.is_file():
        if any(store.iterdir()):
            raise cli.UsageError(f"SSLVIZ_STORE {store} holds files `{COMMAND}` did not write "
                                 f"(it has no {MANIFEST}): name a new or empty folder")
        return
    restore = f"restore it (git checkout {manifest}) or name an empty folder"
    try:
        made_by = json.loads(manifest.read_text(encoding="utf-8")).get("made_by")
    except (OSError, UnicodeDecodeError, ValueError, AttributeError) as error:
        raise cli.UsageError(f"{manifest} is damaged ({type(error).__name__}): {restore}") \
            from None
    if made_by != COMMAND:
        raise cli.UsageError(f"{manifest} was not written by `{COMMAND}`: {restore}")


def read_manifest(store=None) -> dict:
    """``{notebook stem: {kind: [file names]}}`` of the store (empty if there is none)."""
    return _manifest(store).get("notebooks", {})


def read_code(store=None) -> dict:
    """``{notebook stem: {kind: {module: digest}}}``: the code behind each stored kind."""
    return _manifest(store).get("code", {})


def stale_kinds(store=None, root=PACKAGE_ROOT) -> list[str]:
    """What in the store was computed by code that has changed since (one line each, with the
    command that rebuilds it); empty when every stored kind matches the sources under ``root``.

    Reads the manifest only: nothing is computed."""
    code, problems = read_code(store), []
    for stem, kinds in read_manifest(store).items():
        rebuild = f"rerun `python -m sslviz.experiments store notebooks/{stem}.ipynb`"
        for kind in kinds:
            recorded = code.get(stem, {}).get(kind)
            if not recorded:
                problems.append(f"{stem}: stored kind {kind!r} has no code digest: {rebuild}")
                continue
            changed = sorted(module for module, digest in recorded.items()
                             if _digest_or_none(module, root) != digest)
            if changed:
                problems.append(f"{stem}: the code behind stored kind {kind!r} changed "
                                f"({', '.join(changed)}, or a module it imports): {rebuild}")
    return problems


def _digest_or_none(module, root):
    try:
        return code_digest(module, root)
    except ValueError:  # the module is gone
        return None


def _run_fresh(notebook, kinds, cache=None):
    """Run ``notebook`` on an empty cache (or on ``cache``, a folder only this lecture filled);
    yields once ``(seconds, {kind: {file name: path}})``, the files of what it stored, which
    exist until the loop over this generator ends."""
    from ..bench_notebooks import environment, private_cache, time_cells

    context = (private_cache(link_corpora=True, use_store=False) if cache is None else
               _given_cache(environment, cache))
    with context as folder:
        seconds = sum(time_cells(Path(notebook).resolve()))
        made = {kind: {p.name: p for p in sorted((folder / kind).glob("*.npz"))}
                for kind in kinds}
        others = sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.is_symlink()
                        and p.name not in (*kinds, *CORPUS_KINDS))
        if others:
            print(f"{Path(notebook).name}: also computed, not stored: {', '.join(others)}")
        yield seconds, made


@contextlib.contextmanager
def _given_cache(environment, folder):
    with environment({"SSLVIZ_CACHE": str(folder), "SSLVIZ_STORE": ""}):
        yield Path(folder)


def _kinds_of(notebook):
    stem = Path(notebook).stem
    if stem not in STORED_KINDS:
        raise cli.UsageError(f"{Path(notebook).name} stores no results (lectures that do: "
                             f"{', '.join(sorted(STORED_KINDS))})")
    return stem, STORED_KINDS[stem]


def store_notebook(notebook, *, store=None, cache=None) -> dict:
    """Compute ``notebook``'s stored kinds afresh and put them in the store; ``{kind: n files}``.

    ``cache``: run the lecture on this cache folder instead of an empty one -- a folder that this
    lecture alone filled (``SSLVIZ_CACHE=DIR SSLVIZ_STORE= python -m sslviz execute NOTEBOOK``),
    so that its long jobs are not computed twice; every entry of a stored kind there is stored,
    and entries of one kind made by two versions of the code are refused. Files this lecture
    stored before and no lecture uses now are removed.
    """
    stem, kinds = _kinds_of(notebook)
    store = Path(store or store_dir())
    start = time.perf_counter()
    for seconds, made in _run_fresh(notebook, kinds, cache):  # noqa: B007 (used after the loop)
        made_by = {kind: _code_of_entries(files.values()) for kind, files in made.items()}
        for kind, files in made.items():
            (store / kind).mkdir(parents=True, exist_ok=True)
            for name, path in files.items():
                with atomic_write(store / kind / name) as out, open(path, "rb") as source:
                    shutil.copyfileobj(source, out)
    manifest, code = read_manifest(store), read_code(store)
    old = manifest.get(stem, {})
    manifest[stem] = {kind: sorted(files) for kind, files in made.items()}
    code[stem] = made_by
    _remove_unused(store, old, manifest)
    _write_manifest(store, manifest, code)
    print(f"{Path(notebook).name}: stored {sum(map(len, made.values()))} results "
          f"({seconds:.0f} s of cells, {time.perf_counter() - start:.0f} s in all)")
    return {kind: len(files) for kind, files in made.items()}


def _remove_unused(store, old, manifest):
    used = {(kind, name) for kinds in manifest.values() for kind, names in kinds.items()
            for name in names}
    for kind, names in old.items():
        for name in names:
            if (kind, name) not in used:
                (store / kind / name).unlink(missing_ok=True)


def _code_of_entries(paths):
    """``{module: digest}`` of the code that computed the entry files ``paths``."""
    code = {}
    for path in paths:
        recorded = stored_key(path).get("code")
        if recorded is None:
            raise ValueError(f"{path} was cached without the code that computed it; its writer "
                             "must pass code= to ResultCache")
        if code.setdefault(recorded["module"], recorded["digest"]) != recorded["digest"]:
            raise ValueError(f"entries of {recorded['module']} computed by two versions of its "
                             "code; run the lecture again on an empty cache")
    return dict(sorted(code.items()))


def _write_manifest(store, manifest, code):
    text = json.dumps({"made_by": COMMAND,
                       "notebooks": dict(sorted(manifest.items())),
                       "code": dict(sorted(code.items()))}, indent=1, sort_keys=True)
    with atomic_write(Path(store) / MANIFEST, "w") as handle:
        handle.write(text + "\n")


def check_notebook(notebook, *, store=None) -> list[str]:
    """Compute ``notebook``'s stored kinds afresh and compare with the store; the differences
    (empty: the store holds exactly what the code computes)."""
    stem, kinds = _kinds_of(notebook)
    store = Path(store or store_dir())
    listed = read_manifest(store).get(stem, {})
    problems = []
    for _, made in _run_fresh(notebook, kinds):
        for kind in kinds:
            fresh, stored = made[kind], set(listed.get(kind, ()))
            problems += [f"{kind}/{n}: computed, not stored" for n in sorted(set(fresh) - stored)]
            problems += [f"{kind}/{n}: stored, not computed" for n in sorted(stored - set(fresh))]
            for name in sorted(stored & set(fresh)):
                if not (store / kind / name).is_file():
                    problems.append(f"{kind}/{name}: listed in {MANIFEST}, missing from the "
                                    "store")
                    continue
                difference = _difference(fresh[name], store / kind / name)
                if difference:
                    problems.append(f"{kind}/{name}: {difference}")
    return problems


def _arrays(path):
    with np.load(path, allow_pickle=False) as entry:
        return {name: entry[name] for name in entry.files}


def _difference(fresh_path, stored_path):
    """'' if the two entries hold the same arrays (floats to 1e-9 relative), else what differs
    (a stored entry that cannot be read is damaged)."""
    try:
        b = _arrays(stored_path)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        return (f"the stored entry is damaged ({type(error).__name__}): rerun `{COMMAND}` for "
                "this lecture or restore the file from git")
    a = _arrays(fresh_path)
    if sorted(a) != sorted(b):
        return f"arrays {sorted(a)} != {sorted(b)}"
    for name, x in a.items():
        y = b[name]
        same = (x.shape == y.shape and (np.allclose(x, y, rtol=1e-9, atol=0, equal_nan=True)
                if x.dtype.kind in "fc" else np.array_equal(x, y)))
        if not same:
            return f"array {name!r} differs"
    return ""


def _parser():
    parser = cli.Parser(
        prog="python -m sslviz.experiments store",
        description="Run lectures on an empty cache and store the results of their long sweeps "
        "in sslviz/stored_results/cache (what a first Run All reads), or --check them.")
    parser.add_argument("notebooks", nargs="*", metavar="NOTEBOOK",
                        help="lecture notebooks (default: every lecture that stores results)")
    parser.add_argument("--check", action="store_true",
                        help="recompute and compare with the store; exit 1 on a difference")
    parser.add_argument("--cache", type=_existing_folder, metavar="DIR",
                        help="run the one lecture named on this cache folder instead of an empty "
                        "one: a folder that lecture alone filled (SSLVIZ_CACHE=DIR SSLVIZ_STORE= "
                        "python -m sslviz execute NOTEBOOK), so its jobs are not computed twice")
    return parser


def _existing_folder(text):
    if not Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is not a folder (the cache folder the "
                                         "lecture filled)")
    return Path(text)


def _default_notebooks():
    folder = Path(__file__).resolve().parents[2] / "notebooks"
    return [folder / f"{stem}.ipynb" for stem in STORED_KINDS]


@cli.command
def main(argv=None):
    """``python -m sslviz.experiments store [NOTEBOOK ...] [--check]``."""
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    cli.require_classroom("python -m sslviz.experiments store")
    notebooks = cli.check_distinct(cli.checked_notebooks(args.notebooks)
                                   or _default_notebooks(), what="notebooks")
    for notebook in notebooks:
        _kinds_of(notebook)  # refuse a lecture without stored kinds before any run
    if args.cache is not None and (args.check or len(notebooks) != 1):
        raise cli.UsageError("--cache stores one lecture from the cache folder it filled: name "
                             "exactly one NOTEBOOK, without --check")
    if store_dir() is None:
        raise cli.UsageError("no store folder: run from a source checkout or set SSLVIZ_STORE")
    check_store(store_dir(), writing=not args.check)
    from ..notebook_files import NotebookFailed

    try:
        return _store(notebooks, args.cache) if not args.check else _check(notebooks)
    except NotebookFailed as error:  # a cell raised or the kernel died: one line, exit 1
        print(f"error: {cli.one_line(error)}", file=sys.stderr)
        return 1


def _store(notebooks, cache=None):
    for notebook in notebooks:
        store_notebook(notebook, cache=cache)
    return 0


def _check(notebooks):
    failed = 0
    for notebook in notebooks:
        problems = check_notebook(notebook)
        print(f"{Path(notebook).name}: " + ("the store matches" if not problems else
                                            f"{len(problems)} differences"))
        for problem in problems:
            print(f"  {problem}")
        failed += bool(problems)
    return 1 if failed else 0
