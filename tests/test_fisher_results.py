"""Lecture 06's paper-scale results file (sslviz.experiments.fisher_results) on a small corpus.

Every test has a private result cache (tests/conftest.py).
"""

import json
import shutil

import numpy as np
import pytest
from synthetic import topic_corpus

import sslviz.experiments.fisher_results as R
from sslviz import cli
from sslviz.code_digest import code_of
from sslviz.experiments import fisher
from sslviz.experiments.fisher import FisherSettings, fisher_grid, paper_test_folds

X, Y, _ = topic_corpus(n_docs=300, n_words=30, seed=1, n_topics=3, words_per_topic=4,
                       background=0.6, topic_rate=1.0)
FOLDS = paper_test_folds(Y, n_folds=5, seed=0)
TUNED = FisherSettings(max_iter=5, annealing=(0.1, 1.0))
PAPER = FisherSettings(max_iter=5, annealing=(0.1, 1.0), alpha=1.0, kernel_alpha=1.0, C=1.0,
                       features="tf")
SETTINGS = {"tuned": TUNED, "paper": PAPER}
SIZES = dict(sizes=[6, 30], unlabeled_sizes=[40, 120], splits=[0, 1])
METHODS = ("n-cat", "ul-cat", "counts", "linear", "nb+em", "nb")  # the order of Table 1


def run(settings=TUNED, **sizes):
    return fisher_grid(X, Y, test_folds=FOLDS, methods=METHODS, settings=settings,
                       progress=False, **{**SIZES, **sizes})


def write(path):
    return R.write_results(X, Y, FOLDS, path, settings=SETTINGS, **SIZES)


@pytest.fixture(scope="module")
def tuned_grid(empty_cache):
    """``run()``, computed once in an empty cache of its own: (the grid, the folder of the
    entries it wrote), which the tests :func:`_restore` into their private caches instead of
    refitting it."""
    with empty_cache("fisher-results-cache") as folder:
        grid = run()
    return grid, folder / "fisher"


def test_the_file_holds_what_the_grid_computed(tmp_path, result_cache, tuned_grid):
    grid, saved = tuned_grid
    _restore(result_cache, saved)  # what run() wrote
    summary = write(tmp_path / "paper.json")
    assert summary["code"] == code_of(fisher._run_job)
    assert summary["settings"]["paper"]["records"] == []  # not run
    read = R.results_grid(R.read_results(tmp_path / "paper.json"), "tuned")
    assert read.methods == METHODS
    np.testing.assert_array_equal(read.sizes, SIZES["sizes"])
    np.testing.assert_array_equal(read.unlabeled_sizes, SIZES["unlabeled_sizes"])
    np.testing.assert_allclose(read.accuracy, grid.accuracy, atol=1e-6)  # rounded to 1e-4 %
    np.testing.assert_array_equal(read.chosen, grid.chosen)
    np.testing.assert_array_equal(read.at_bound, grid.at_bound)
    # labeled-only methods: one record per labeled set, marked with 0 unlabeled posts
    records = summary["settings"]["tuned"]["records"]
    counts = [r for r in records if r["method"] == "counts"]
    assert len(counts) == 2 * 2 and {r["n_unlabeled"] for r in counts} == {0}
    assert len([r for r in records if r["method"] == "ul-cat"]) == 2 * 2 * 2


def test_with_the_papers_settings_the_linear_svm_is_the_count_svm(tmp_path):
    run(PAPER, sizes=[30])
    summary = write(tmp_path / "paper.json")
    methods = {r["method"] for r in summary["settings"]["paper"]["records"]}
    assert "counts" in methods and "linear" not in methods
    assert {r["chosen"] for r in summary["settings"]["paper"]["records"]} == {1.0}  # C, α given


def _empty(cache):
    """Another machine: an empty cache."""
    (cache / "fisher").mkdir(parents=True, exist_ok=True)
    for entry in (cache / "fisher").glob("*.npz"):
        entry.unlink()


def _restore(cache, saved):
    """Put back the cache entries of ``saved`` (a copy made after the runner wrote them): the
    same files a rerun of those jobs writes, without refitting them."""
    _empty(cache)
    for entry in saved.glob("*.npz"):
        shutil.copy2(entry, cache / "fisher" / entry.name)


def test_writing_the_results_file_never_drops_what_it_held(tmp_path, result_cache, tuned_grid):
    """The cache of every split is ``tuned_grid``'s; split 1 is recomputed once (its accuracies
    equal the file's); later, the cache of split 1 alone and then of every split are restored
    from copies instead of refitted again."""
    path = tmp_path / "paper.json"
    every_split = tuned_grid[1]
    _restore(result_cache, every_split)  # what run() wrote
    full = write(path)
    n_full = R.count_records(full)
    _empty(result_cache)
    run(splits=[1])  # it runs one split again
    split_1 = shutil.copytree(result_cache / "fisher", tmp_path / "split-1")
    again = write(path)
    assert R.read_results(path) == again
    assert R.count_records(again) == n_full
    strip = [{R._record_key(r): r["accuracy"] for r in s["settings"]["tuned"]["records"]}
             for s in (again, full)]
    assert strip[0] == strip[1]  # split 0 kept from the file, split 1 recomputed

    stale = {**full, "code": {"module": "sslviz.experiments.fisher", "digest": "0" * 16}}
    path.write_text(json.dumps(stale))
    _restore(result_cache, split_1)  # a cache of split 1 only
    assert len(list(split_1.glob("*.npz"))) < len(list(every_split.glob("*.npz")))
    with pytest.raises(cli.UsageError, match=f"holds {n_full} records; .* would hold "
                       f"{n_full // 2} .* nothing was written"):
        write(path)  # other code, not merged: it would shrink
    assert json.loads(path.read_text()) == stale
    _restore(result_cache, every_split)  # today's code: every split
    fresh = write(path)
    assert R.count_records(fresh) == n_full
    kept = tmp_path / f"paper.{'0' * 16}.json"
    assert json.loads(kept.read_text()) == stale  # but kept beside it, whole


def test_a_results_file_of_other_code_names_the_rerun():
    summary = {"code": {"module": "sslviz.experiments.fisher", "digest": "0" * 16}}
    assert R.results_code_changed(summary).endswith(R.RERUN_HINT)
    assert R.results_code_changed({"code": code_of(fisher._run_job)}) == ""


@pytest.mark.skipif(not R.RESULTS_FILE.exists(), reason="no paper-scale results file")
def test_committed_results_file_was_computed_by_todays_code():
    """Fast: compares the code recorded in the file with today's sources (no recomputation)."""
    assert R.results_code_changed(R.read_results()) == ""


def _record(size, split, method, seconds, n_unlabeled=10_000):
    return {"n_labeled": size, "n_unlabeled": 0 if method in fisher.LABELED_ONLY_METHODS
            else n_unlabeled, "split": split, "method": method, "accuracy": 50.0,
            "seconds": seconds, "chosen": 1.0, "at_bound": False}


def test_projection_charges_each_group_its_measured_time_interpolated_between_sizes():
    records = [_record(100, 0, m, 10.0) for m in fisher.FISHER_METHODS]
    records += [_record(1000, s, m, 30.0) for s in (0, 1) for m in fisher.FISHER_METHODS]
    records.append(_record(1000, 0, "ul-cat", 99.0, n_unlabeled=5000))  # another size: ignored
    summary = {"settings": {"tuned": {"records": records}}}
    times = R.job_seconds(summary, "tuned")
    assert times[("ul-cat", "nb+em"), 1000] == [60.0, 60.0]  # the two methods of one job
    assert times[("tsvm",), 100] == [10.0]
    total, remaining, n_jobs, n_done, missing = R.projection(
        summary, "tuned", sizes=(100, 550, 1000, 2000), n_splits=2)
    # per job: one-method groups 10, 20, 30, 30 s over the sizes; two-method groups twice that
    per_size = np.array([10.0, 20.0, 30.0, 30.0])
    assert missing == []
    assert n_jobs == 6 * 4 * 2 and n_done == 6 * (1 + 2)
    assert total == pytest.approx(2 * per_size.sum() * (4 + 2 * 2))
    done = (10.0 + 2 * 30.0) * (4 + 2 * 2)
    assert remaining == pytest.approx(total - done)
    # a group never measured: named, and the totals are lower bounds
    summary = {"settings": {"tuned": {"records": [r for r in records if r["method"] != "tsvm"]}}}
    assert R.projection(summary, "tuned", sizes=(100,), n_splits=2)[4] == [("tsvm",)]
    assert "never measured: [('tsvm',)]" in R.projection_text(summary, "tuned")
    empty = {"settings": {"paper": {"records": []}}}
    assert R.projection_text(empty, "paper").endswith("none yet: Table 1 (7 sizes x 5 splits) "
                                                      "is 175 jobs")  # no linear: it is counts


def test_the_summary_command_writes_the_file_from_the_cache(tmp_path, monkeypatch, capsys):
    from sslviz.experiments.__main__ import main
    from sslviz.text import CountCorpus

    corpus = CountCorpus(X, Y, ["a", "b", "c"], np.array([f"w{i}" for i in range(30)]),
                         np.array([f"d{i}" for i in range(300)]))
    monkeypatch.setattr(fisher, "load_fisher_corpus", lambda: corpus)
    monkeypatch.setattr(R, "RESULTS_FILE", tmp_path / "fisher.json")
    assert main(["fisher-table", "--sizes", "100", "--unlabeled", "50", "--splits", "0",
                 "--methods", "counts", "--n-jobs", "1"]) == 0
    capsys.readouterr()
    assert main(["fisher", "summary"]) == 0
    out = capsys.readouterr().out
    [record] = R.read_results(tmp_path / "fisher.json")["settings"]["tuned"]["records"]
    assert (record["n_labeled"], record["n_unlabeled"], record["split"], record["method"]) == (
        100, 0, 0, "counts")
    assert R.read_results(tmp_path / "fisher.json")["settings"]["paper"]["records"] == []
    assert out.startswith(f"tuned settings, {tmp_path / 'fisher.json'}:")
    assert "never measured" in out  # only the count SVM was run


def test_the_grid_of_the_file_keeps_to_the_splits_its_unlabeled_methods_ran():
    records = [_record(1000, s, m, 1.0) for s in (0, 1) for m in ("ul-cat", "counts")]
    records += [_record(size, s, "counts", 1.0) for size in (100, 1000) for s in (0, 1, 2)
                if (size, s) not in {(1000, 0), (1000, 1)}]  # another run's count SVM
    grid = R.results_grid({"settings": {"paper": {"records": records}}}, "paper")
    np.testing.assert_array_equal(grid.sizes, [1000])
    np.testing.assert_array_equal(grid.splits, [0, 1])
    np.testing.assert_array_equal(grid.table(), [[50.0, 50.0]])  # ul-cat, counts: no NaN
    wider = R.results_grid({"settings": {"paper": {"records": records}}}, "paper",
                           sizes=[100, 1000], splits=[0, 1, 2])
    assert np.isnan(wider.accuracy[1, 0, 2, 0]) and wider.accuracy[0, 0, 2, 1] == 0.5


def test_the_replication_report_reads_the_results_file():
    from sslviz.experiments import report_sources

    records = [_record(1000, s, m, 1.0) for s in (0, 1) for m in ("ul-cat", "counts", "nb+em")]
    for r in records:
        r["accuracy"] = {"ul-cat": 70.0, "counts": 60.0 + r["split"], "nb+em": 65.0}[r["method"]]
    summary = {"settings": {"tuned": {"records": records}, "paper": {"records": []}}}
    rows = report_sources._fisher_paper_rows(summary, fisher)
    assert [row.claim for row in rows] == ["1000 labels: SVM (ul-cat) above SVM (counts)",
                                           "1000 labels: SVM (ul-cat) above NB+EM (ul-cat)"]
    assert rows[0].paper == "71.0 vs 68.9"
    assert rows[0].ours.startswith("+9.5 ± 0.5 (n = 2; above on 100%)")
    with pytest.raises(cli.UsageError, match="has a layout the report does not read"):
        report_sources._fisher_paper_rows({"methods": []}, fisher)


def test_recheck_reruns_the_cheapest_cell_of_each_table():
    records = [_record(300, 0, "counts", 1.0), _record(100, 1, "counts", 1.0),
               _record(100, 2, "nb", 1.0), _record(100, 1, "n-cat", 1.0),
               _record(100, 1, "nb", 1.0), _record(100, 1, "ul-cat", 1.0, n_unlabeled=5000),
               _record(100, 1, "nb+em", 1.0), _record(100, 1, "ul-cl", 1.0)]
    planned = R.recheck_jobs(records)
    # the smallest size's first split; ul-cat+nb+em at its smallest unlabeled size (5000: only
    # ul-cat is held there), the labeled-only groups at the table's largest
    assert [(job["methods"], job["n_unlabeled"], sorted(held)) for job, held in planned] == [
        (("ul-cl",), 10_000, ["ul-cl"]), (("ul-cat", "nb+em"), 5000, ["ul-cat"]),
        (("n-cat", "nb"), 10_000, ["n-cat", "nb"]), (("counts",), 10_000, ["counts"])]
    assert {(job["n_labeled"], job["split"]) for job, _ in planned} == {(100, 1)}
    assert R.recheck_jobs([]) == []


def test_recheck_records_todays_code_only_when_the_cheapest_cells_are_unchanged(tmp_path,
                                                                              result_cache,
                                                                              tuned_grid):
    path = tmp_path / "paper.json"
    _restore(result_cache, tuned_grid[1])  # what run() wrote: sizes 6 and 30, splits 0 and 1
    run(PAPER, sizes=[30], unlabeled_sizes=[120], splits=[1])
    summary = write(path)
    stale = {**summary, "code": {"module": "sslviz.experiments.fisher", "digest": "0" * 16}}
    path.write_text(json.dumps(stale))
    assert R.results_code_changed(stale)
    assert R.recheck(stale, X, Y, FOLDS, settings=SETTINGS, path=path) == []
    rechecked = R.read_results(path)
    assert R.results_code_changed(rechecked) == ""
    assert rechecked["settings"] == summary["settings"]  # every record kept, none moved
    assert rechecked["code_checked_by"] == [
        "tuned: 6 labeled, 40 unlabeled, split 0: ul-cat+nb+em",
        "tuned: 6 labeled, 0 unlabeled, split 0: n-cat+nb",
        "tuned: 6 labeled, 0 unlabeled, split 0: linear",
        "tuned: 6 labeled, 0 unlabeled, split 0: counts",
        "paper: 30 labeled, 120 unlabeled, split 1: ul-cat+nb+em",
        "paper: 30 labeled, 0 unlabeled, split 1: n-cat+nb",
        "paper: 30 labeled, 0 unlabeled, split 1: counts"]
    assert write(path)["code_checked_by"] == rechecked["code_checked_by"]  # a summary keeps it

    for field, change in (("accuracy", 0.5), ("chosen", 1.0)):  # a number that moved
        moved = json.loads(json.dumps(stale))
        [record] = [r for r in moved["settings"]["paper"]["records"]
                    if (r["method"], r["n_labeled"]) == ("counts", 30)]
        record[field] += change
        path.write_text(json.dumps(moved))
        [difference] = R.recheck(moved, X, Y, FOLDS, settings=SETTINGS, path=path)
        assert difference.startswith(
            "paper: 30 labeled, 0 unlabeled, split 1: counts, counts: today {'accuracy': ")
        assert R.read_results(path) == moved  # the file is left as it was
    other = {**SETTINGS, "tuned": FisherSettings(max_iter=6, annealing=(0.1, 1.0))}
    [difference] = R.recheck(stale, X, Y, FOLDS, settings=other, path=path)
    assert difference.startswith("tuned settings: today {") and "'max_iter': 6" in difference
    empty = {**stale, "settings": {"tuned": {**stale["settings"]["tuned"], "records": []}}}
    assert R.recheck(empty, X, Y, FOLDS, settings=SETTINGS, path=path) == [
        "the file holds no records to re-run"]


def test_the_recheck_command_records_todays_code_or_refuses_with_the_rerun(tmp_path, monkeypatch,
                                                                          capsys):
    from sslviz.experiments.__main__ import main
    from sslviz.text import CountCorpus

    corpus = CountCorpus(X, Y, ["a", "b", "c"], np.array([f"w{i}" for i in range(30)]),
                         np.array([f"d{i}" for i in range(300)]))
    path = tmp_path / "fisher.json"
    monkeypatch.setattr(fisher, "load_fisher_corpus", lambda: corpus)
    monkeypatch.setattr(R, "RESULTS_FILE", path)
    assert main(["fisher", "recheck"]) == cli.EXIT_USAGE  # no file yet
    assert capsys.readouterr().err == (
        f"error: no records in {path} to re-run: run `{R.RUN_COMMAND}`, then "
        f"`{R.SUMMARY_COMMAND}` first\n")
    assert main(["fisher-table", "--sizes", "100", "--unlabeled", "50", "--splits", "0", "1",
                 "--methods", "counts", "nb", "--n-jobs", "1"]) == 0
    assert main(["fisher", "summary"]) == 0
    written = R.read_results(path)
    stale = {**written, "code": {"module": "sslviz.experiments.fisher", "digest": "0" * 16}}
    path.write_text(json.dumps(stale))
    capsys.readouterr()
    assert main(["fisher", "recheck", "--n-jobs", "1"]) == 0
    assert capsys.readouterr().out.endswith(
        "fisher.json now records it, re-run:\ntuned: 100 labeled, 0 unlabeled, split 0: "
        "n-cat+nb\ntuned: 100 labeled, 0 unlabeled, split 0: counts\n")
    rechecked = R.read_results(path)
    assert R.results_code_changed(rechecked) == ""
    assert rechecked["settings"] == written["settings"]

    stale["settings"]["tuned"]["records"][0]["accuracy"] += 1.0  # split 0's counts SVM
    path.write_text(json.dumps(stale))
    assert main(["fisher", "recheck", "--n-jobs", "1"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("today's code computes other numbers; the results file is unchanged:"
                          "\ntuned: 100 labeled, 0 unlabeled, split 0: counts, counts: today ")
    assert out.endswith(f"To update it: {R.RERUN_HINT}\n")
    assert R.read_results(path) == stale
