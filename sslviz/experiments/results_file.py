"""A results file of paper-scale runs: the rules by which a summary of the cache replaces it.

Lectures 06 and 09 summarise their paper-scale runs (hours of CPU) into small JSON files
(:mod:`.fisher_results`, :mod:`.hybrid_results`), each recording the code that computed it
(``"code"``: :func:`sslviz.code_digest.code_of` of the job function). Writing one follows three
rules (:func:`settle`), so that nothing computed is lost:

1. what the file holds and this machine's cache lacks is kept when the file was computed by
   today's code (the caller's ``merge``; :func:`merged`);
2. a summary that would still hold fewer records than the file (a file of other code) is
   refused with the counts (:class:`sslviz.cli.UsageError`), nothing written;
3. a file of other code that is replaced is first kept beside it, as
   ``<name>.<its digest>.json`` (its numbers no longer match the code, but they were hours of
   computing).
"""

from __future__ import annotations

import json
from pathlib import Path

from .. import cli
from .._io import atomic_write

__all__ = ["keep_beside", "merged", "read_json", "settle", "write_json"]


def read_json(path):
    """The JSON file at ``path`` as a dict, or ``None`` when there is no such file."""
    path = Path(path)
    if not path.exists():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def write_json(path, data):
    """Write ``data`` to ``path`` as indented JSON ending in a newline, atomically."""
    with atomic_write(path, "w") as file:
        json.dump(data, file, indent=1)
        file.write("\n")


def merged(summary, previous, merge):
    """``merge(summary, previous)`` when both were computed by the same code, else ``summary``
    (``previous`` may be ``None``: no file yet)."""
    if previous is not None and previous.get("code") == summary["code"]:
        return merge(summary, previous)
    return summary


def settle(summary, previous, path, *, merge, count, refusal, what):
    """What to write in place of ``previous`` (the file's content at ``path``, or ``None``):
    ``summary`` after the three rules of the module docstring.

    ``merge(summary, previous)`` adds back what ``previous`` holds; ``count(content)`` counts
    records; ``refusal(held, would_hold)`` is the message of the refusal; ``what`` names the
    file (or its entry) in the message saying where a file of other code was kept.
    """
    summary = merged(summary, previous, merge)
    if previous is None:
        return summary
    if count(summary) < count(previous):
        raise cli.UsageError(refusal(count(previous), count(summary)))
    if previous.get("code") != summary["code"]:
        keep = keep_beside(path, previous)
        print(f"{what} was computed by other code; kept as {keep.name}")
    return summary


def keep_beside(path, previous):
    """Write ``previous`` beside ``path`` as ``<stem>.<its code digest>.json``; returns where."""
    digest = (previous.get("code") or {}).get("digest", "unknown-code")
    keep = Path(path).with_name(f"{Path(path).stem}.{digest}.json")
    write_json(keep, previous)
    return keep
