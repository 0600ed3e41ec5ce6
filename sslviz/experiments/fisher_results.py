"""Lecture 06's paper-scale runs as a small results file: what the cache holds, summarised.

``python -m sslviz.experiments fisher table`` computes cells of Table 1 at the paper's scale into
the result cache (:mod:`sslviz.experiments.fisher_command`); ``python -m sslviz.experiments fisher
summary`` reads that cache -- it computes nothing -- and writes :data:`RESULTS_FILE`: for each of
the two settings (:data:`SETTINGS`: chosen on the labeled posts, and the paper's), one record per
labeled size, unlabeled size, split and method that is in the cache, with its accuracy, the
seconds it took, and the α or C it used. The lecture reads that file, so a reader sees the run
without its cache; the cells not run are listed with the measured time per job and the projected
time of the rest (:func:`projection`).

The file records the code that computed it (``"code"``: :func:`sslviz.code_digest.code_of` of the
job function, as in every cache key); a test fails with :data:`RERUN_HINT` when that code has
changed since (:func:`results_code_changed`). Writing never loses a record
(:func:`write_results`): what the file holds and this machine's cache lacks is kept.
When a change should not move a number, ``python -m sslviz.experiments fisher recheck``
(:func:`recheck`) re-runs the cheapest cell of each table (smallest labeled size, first split)
with today's code: only if every accuracy and chosen α or C comes out the same does it record
today's code, with the cells it re-ran (``"code_checked_by"``); otherwise the tables must be
rerun.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..cache import data_digest
from ..code_digest import code_of
from ..paths import STORED_RESULTS
from . import fisher, results_file
from .fisher import (
    FISHER_METHODS,
    LABELED_ONLY_METHODS,
    METHOD_GROUPS,
    PAPER_FIGURE_1_UNLABELED,
    PAPER_N_SPLITS,
    PAPER_N_UNLABELED,
    PAPER_SETTINGS,
    PAPER_SIZES,
    FisherGrid,
    FisherSettings,
)
from .runner import run_jobs

RESULTS_FILE = STORED_RESULTS / "fisher_paper_scale.json"
RUN_COMMAND = "python -m sslviz.experiments fisher table"
SUMMARY_COMMAND = "python -m sslviz.experiments fisher summary"
RERUN_HINT = (f"rerun the cells the file holds with `{RUN_COMMAND}` (and `--paper-settings`), "
              f"then `{SUMMARY_COMMAND}`, and re-execute lecture 06")
#: The two tables of the file: every α and C chosen on the labeled posts (the default of the
#: command), and the paper's fixed settings (``--paper-settings``).
SETTINGS = {"tuned": FisherSettings(), "paper": PAPER_SETTINGS}
#: The unlabeled sizes a summary looks for: Figure 1's, the lecture's 5,000 and Table 1's 10,000.
UNLABELED_SIZES = tuple(sorted({*PAPER_FIGURE_1_UNLABELED, 5000, PAPER_N_UNLABELED}))
#: What identifies one record of the file.
RECORD_KEY = ("n_labeled", "n_unlabeled", "split", "method")


def _jobs(settings, sizes, unlabeled_sizes, splits):
    """Every job a run of these sizes could have cached; a group of labeled-only methods once
    per labeled set (its cache key has no unlabeled size)."""
    run = fisher._methods_to_run(FISHER_METHODS, settings)
    jobs = []
    for size in sizes:
        for split in splits:
            for group in METHOD_GROUPS:
                if not set(group) & set(run):
                    continue
                labeled_only = set(group) <= set(LABELED_ONLY_METHODS)
                for n_unlabeled in ((max(unlabeled_sizes),) if labeled_only
                                    else unlabeled_sizes):
                    jobs.append({"n_labeled": int(size), "n_unlabeled": int(n_unlabeled),
                                 "split": int(split), "methods": group})
    return jobs


def cached_records(X, y, test_folds, settings, *, sizes=PAPER_SIZES,
                   unlabeled_sizes=UNLABELED_SIZES, splits=range(PAPER_N_SPLITS)):
    """The records of every job of :func:`fisher.fisher_grid` the cache holds, computing nothing.

    One record per method of a cached job: labeled size, unlabeled size (0 for a method of
    :data:`LABELED_ONLY_METHODS`: it does not depend on them), split, method, accuracy (%), the
    seconds it took, the α or C it used and whether that choice stopped at a bound.
    """
    digest = data_digest(X, np.asarray(y), *[np.asarray(fold) for fold in test_folds])
    jobs = _jobs(settings, sizes, unlabeled_sizes, splits)
    results = run_jobs(fisher._run_job, jobs, kind="fisher", cached_only=True,
                       key=lambda job: fisher._job_key(job, digest, settings))
    records = []
    for job, result in zip(jobs, results, strict=True):
        if result is None:
            continue
        for g, method in enumerate(job["methods"]):
            labeled_only = method in LABELED_ONLY_METHODS
            records.append({
                "n_labeled": job["n_labeled"], "n_unlabeled": 0 if labeled_only
                else job["n_unlabeled"], "split": job["split"], "method": method,
                "accuracy": round(float(result["accuracy"][g]) * 100, 4),
                "seconds": round(float(result["seconds"][g]), 1),
                "chosen": float(result["chosen"][g]), "at_bound": bool(result["at_bound"][g])})
    return sorted(records, key=_record_key)


def _record_key(record):
    return tuple(record[name] for name in RECORD_KEY)


def summarise(X, y, test_folds, *, settings=SETTINGS, **sizes):
    """The results file's content for this machine's cache (``sizes``: as
    :func:`cached_records`)."""
    return {"code": code_of(fisher._run_job), "result_version": fisher.RESULT_VERSION,
            "command": RUN_COMMAND, "settings": {
                name: {"values": value.group_key(FISHER_METHODS),
                       "records": cached_records(X, y, test_folds, value, **sizes)}
                for name, value in settings.items()}}


def count_records(summary):
    """How many records ``summary`` (the results file) holds over its settings."""
    return sum(len(entry["records"]) for entry in summary["settings"].values())


def merge_results(summary, previous):
    """``summary`` with every record of ``previous`` (computed by the same code) it lacks;
    ``previous``'s ``code_checked_by`` is kept."""
    merged = json.loads(json.dumps(summary))
    if "code_checked_by" in previous:
        merged["code_checked_by"] = previous["code_checked_by"]
    for name, entry in previous["settings"].items():
        target = merged["settings"].setdefault(name, json.loads(json.dumps(entry)))
        have = {_record_key(record) for record in target["records"]}
        target["records"] += [record for record in entry["records"]
                              if _record_key(record) not in have]
        target["records"].sort(key=_record_key)
    return merged


def write_results(X, y, test_folds, path=RESULTS_FILE, **options):
    """Summarise the cache (:func:`summarise`) into ``path`` (JSON, written atomically).

    Nothing the file held is lost (:func:`.results_file.settle`): its records that this
    machine's cache lacks are kept when the file was computed by today's code; a summary of
    today's code that would hold fewer records than a file of other code is refused
    (:class:`sslviz.cli.UsageError`, nothing written); a file of other code that is replaced is
    first copied to ``<name>.<its digest>.json``. Returns the summary written.
    """
    def refusal(held, would_hold):
        return (f"{Path(path).name} holds {held} records; the summary of this machine's cache "
                f"would hold {would_hold} (the file was computed by other code, so its records "
                f"cannot be merged): nothing was written. Run `{RUN_COMMAND}` for the missing "
                "cells first")

    summary = results_file.settle(summarise(X, y, test_folds, **options), read_results(path),
                                  path, merge=merge_results, count=count_records,
                                  refusal=refusal, what=Path(path).name)
    results_file.write_json(path, summary)
    return summary


def read_results(path=RESULTS_FILE):
    """The results file as a dict, or ``None`` when no paper-scale run was summarised."""
    return results_file.read_json(path)


def results_code_changed(summary):
    """``""`` when ``summary`` (the results file) was computed by today's code, else why not."""
    recorded, today = summary.get("code"), code_of(fisher._run_job)
    if recorded == today:
        return ""
    return (f"the code behind {RESULTS_FILE.name} changed (recorded {recorded}, today {today}): "
            f"{RERUN_HINT}")


def recheck_jobs(records):
    """The jobs that recompute the cheapest cell of one table's ``records``: the smallest
    labeled size, its first split; per group of methods (:data:`METHOD_GROUPS`) recorded there,
    one job at the smallest unlabeled size it records (a labeled-only group at the table's
    largest, as the table command runs it; its result does not depend on it).

    Returns ``[(job, {method: record})]``, the records each job recomputes.
    """
    if not records:
        return []
    size = min(r["n_labeled"] for r in records)
    split = min(r["split"] for r in records if r["n_labeled"] == size)
    cell = [r for r in records if (r["n_labeled"], r["split"]) == (size, split)]
    largest = max(r["n_unlabeled"] for r in records)
    planned = []
    for group in METHOD_GROUPS:
        held = [r for r in cell if r["method"] in group]
        if not held:
            continue
        n_unlabeled = min(r["n_unlabeled"] for r in held)
        job = {"n_labeled": size, "n_unlabeled": n_unlabeled or largest, "split": split,
               "methods": group}
        planned.append((job, {r["method"]: r for m in group for r in held
                              if r["method"] == m and r["n_unlabeled"] == n_unlabeled}))
    return planned


def _recheck_difference(record, result, g):
    """``""`` when job result ``result``'s method ``g`` has ``record``'s numbers (accuracy to
    0.001 points, the same α or C and edge), else what moved."""
    today = {"accuracy": round(float(result["accuracy"][g]) * 100, 4),
             "chosen": float(result["chosen"][g]), "at_bound": bool(result["at_bound"][g])}
    same = (np.isclose(today["accuracy"], record["accuracy"], rtol=0, atol=1e-3)
            and np.isclose(today["chosen"], record["chosen"], rtol=1e-9, atol=0)
            and today["at_bound"] == record["at_bound"])
    return "" if same else (f"today {today}, file " + str({name: record[name]
                                                            for name in today}))


def _cell_name(name, held):
    """How ``code_checked_by`` names the records ``held`` (one job's) of table ``name``."""
    record = next(iter(held.values()))
    return (f"{name}: {record['n_labeled']} labeled, {record['n_unlabeled']} unlabeled, "
            f"split {record['split']}: " + "+".join(held))


def recheck(summary, X, y, test_folds, *, settings=SETTINGS, n_jobs=1, path=RESULTS_FILE):
    """Re-run the cheapest cell of each table of ``summary`` (the results file;
    :func:`recheck_jobs`) with today's code and ``settings``.

    Returns the differences (``[]``: every accuracy the same to 0.001 points, every α or C and
    edge the same, and each table's settings those the file records); only then is today's
    code written into the file at ``path``, with the cells re-run (``"code_checked_by"``), its
    records untouched.
    """
    digest = data_digest(X, np.asarray(y), *[np.asarray(fold) for fold in test_folds])
    differences, checked = [], []
    for name, entry in summary["settings"].items():
        values = json.loads(json.dumps(settings[name].group_key(FISHER_METHODS)))
        if entry["values"] != values:
            differences.append(f"{name} settings: today {values}, file {entry['values']}")
            continue
        planned = recheck_jobs(entry["records"])
        if not planned:
            continue
        results = run_jobs(fisher._run_job, [job for job, _ in planned], kind="fisher",
                           n_jobs=n_jobs,
                           key=lambda job, s=settings[name]: fisher._job_key(job, digest, s),
                           shared={"X": X, "y": y, "test_folds": test_folds,
                                   "settings": settings[name]},
                           description=f"recheck {name}")
        for (job, held), result in zip(planned, results, strict=True):
            checked.append(_cell_name(name, held))
            for g, method in enumerate(job["methods"]):
                moved = method in held and _recheck_difference(held[method], result, g)
                if moved:
                    differences.append(f"{checked[-1]}, {method}: {moved}")
    if not checked and not differences:
        differences.append("the file holds no records to re-run")
    if not differences:
        results_file.write_json(path, {**summary, "code": code_of(fisher._run_job),
                                       "result_version": fisher.RESULT_VERSION,
                                       "code_checked_by": checked})
    return differences


def results_grid(summary, name, *, sizes=None, unlabeled_sizes=None, splits=None):
    """The records of settings ``name`` as a :class:`~sslviz.experiments.fisher.FisherGrid`.

    Default axes: the sizes, unlabeled sizes and splits at which a method that uses the
    unlabeled posts was run (a labeled-only record can come from another run that shares its
    cache entry, e.g. the lecture's count SVM at C = 1). NaN where a cell was not run; a
    labeled-only method's record fills every unlabeled size of its labeled set.
    """
    records = summary["settings"][name]["records"]
    run = [r for r in records if r["method"] not in LABELED_ONLY_METHODS] or records
    sizes = sorted({r["n_labeled"] for r in run}) if sizes is None else list(sizes)
    unlabeled_sizes = (sorted({r["n_unlabeled"] for r in records} - {0})
                       if unlabeled_sizes is None else list(unlabeled_sizes))
    splits = sorted({r["split"] for r in run}) if splits is None else list(splits)
    methods = tuple(m for m in FISHER_METHODS if any(r["method"] == m for r in records))
    shape = (len(sizes), len(unlabeled_sizes), len(splits), len(methods))
    arrays = {field: np.full(shape, np.nan) for field in ("accuracy", "seconds", "chosen",
                                                          "at_bound")}
    for r in records:
        if r["n_labeled"] not in sizes or r["split"] not in splits:
            continue
        i, k, m = sizes.index(r["n_labeled"]), splits.index(r["split"]), methods.index(
            r["method"])
        columns = (range(len(unlabeled_sizes)) if r["n_unlabeled"] == 0 else
                   [unlabeled_sizes.index(r["n_unlabeled"])]
                   if r["n_unlabeled"] in unlabeled_sizes else [])
        for j in columns:
            arrays["accuracy"][i, j, k, m] = r["accuracy"] / 100
            arrays["seconds"][i, j, k, m] = r["seconds"]
            arrays["chosen"][i, j, k, m] = r["chosen"]
            arrays["at_bound"][i, j, k, m] = float(r["at_bound"])
    return FisherGrid(np.array(sizes), np.array(unlabeled_sizes), np.array(splits), methods,
                      **arrays)


def job_seconds(summary, name, n_unlabeled=PAPER_N_UNLABELED):
    """Measured seconds per job of settings ``name`` at ``n_unlabeled`` posts.

    Returns ``{(group, n_labeled): [seconds of each split whose every method is in]}``; a job's
    time is the sum of its methods' (a shared model is charged to one of them).
    """
    records = summary["settings"][name]["records"]
    seconds = {}
    for r in records:
        if r["n_unlabeled"] in (0, n_unlabeled):
            seconds[r["method"], r["n_labeled"], r["split"]] = r["seconds"]
    times = {}
    for group in METHOD_GROUPS:
        cells = {(size, split) for method, size, split in seconds if method in group}
        for size, split in sorted(cells):
            if all((m, size, split) in seconds for m in group):
                times.setdefault((group, size), []).append(
                    sum(seconds[m, size, split] for m in group))
    return times


def projection(summary, name, *, sizes=PAPER_SIZES, n_splits=PAPER_N_SPLITS,
               n_unlabeled=PAPER_N_UNLABELED):
    """The projected time of Table 1 under settings ``name``: every size, ``n_splits`` splits.

    Each group of methods (:data:`METHOD_GROUPS`; with the paper's settings the linear SVM is the
    count SVM) is charged, at a size it was not measured at, the mean time of its measured jobs
    interpolated linearly between the measured sizes around it, outside them the nearest
    measured size's (an estimate). Returns ``(total, remaining, n_jobs, n_done, missing)``:
    seconds for every job and for those not yet in the file, the number of jobs and of those
    done, and the groups never measured (they add nothing: the totals are then lower bounds).
    """
    times = job_seconds(summary, name, n_unlabeled)
    run = fisher._methods_to_run(FISHER_METHODS, SETTINGS[name])
    total = remaining = 0.0
    n_jobs = n_done = 0
    missing = []
    for group in METHOD_GROUPS:
        if not set(group) & set(run):
            continue
        measured = sorted(size for g, size in times if g == group)
        n_jobs += len(sizes) * n_splits
        if not measured:
            missing.append(group)
            continue
        means = [float(np.mean(times[group, size])) for size in measured]
        for size in sizes:
            per_job = float(np.interp(size, measured, means))
            done = min(len(times.get((group, size), [])), n_splits)
            total += n_splits * per_job
            remaining += (n_splits - done) * per_job
            n_done += done
    return total, remaining, n_jobs, n_done, missing


def duration(seconds):
    """``"42 min"`` below two hours, else ``"3.5 h"``."""
    minutes = seconds / 60
    return f"{minutes:.0f} min" if minutes < 120 else f"{minutes / 60:.1f} h"


def projection_text(summary, name):
    """The measured seconds per job (mean over splits) and the projection of Table 1."""
    times = job_seconds(summary, name)
    lines = [f"{name} settings, measured seconds per job at {PAPER_N_UNLABELED:,} unlabeled "
             "posts (mean over the splits run):"]
    for (group, size), values in sorted(times.items(), key=lambda item: (item[0][1],
                                                                         item[0][0])):
        lines.append(f"  {size:>5} labeled, {'+'.join(group):<12} {np.mean(values):7.0f} s "
                     f"({len(values)} split{'s' * (len(values) > 1)})")
    total, remaining, n_jobs, n_done, missing = projection(summary, name)
    if not times:
        lines.append(f"  none yet: Table 1 ({len(PAPER_SIZES)} sizes x {PAPER_N_SPLITS} "
                     f"splits) is {n_jobs} jobs")
        return "\n".join(lines)
    bound = "at least " if missing else ""
    lines.append(f"  Table 1 ({len(PAPER_SIZES)} sizes x {PAPER_N_SPLITS} splits, {n_jobs} jobs,"
                 f" {n_done} done): {bound}{duration(total)} in all, {bound}{duration(remaining)}"
                 " left, on one process (a size not measured is charged the time interpolated "
                 "between measured sizes, beyond them the nearest one's: an estimate)"
                 + (f"; never measured: {missing}" if missing else ""))
    return "\n".join(lines)
