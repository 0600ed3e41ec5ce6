"""Every command under bad input: one line on stderr, exit code 2, no traceback, no output file.

Bad arguments must fail before any corpus loads (the data folder here is empty, so a command that
loaded one would end in a missing-corpus message instead of the expected one); the missing-corpus
cases check that the library's message reaches the user as one line. ``--debug`` brings the
traceback back.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import PATIENCE_S

from sslviz import bench, cli, site
from sslviz.__main__ import main as sslviz_main
from sslviz.datasets.__main__ import main as datasets_main
from sslviz.experiments.__main__ import main as experiments_main

REPO = Path(__file__).resolve().parents[1]
MAINS = {"sslviz": sslviz_main, "experiments": experiments_main, "bench": bench.main,
         "datasets": datasets_main, "site": site.main}

# (command, argv, a piece of the one line on stderr); {tmp} is the test's working folder.
CASES = [
    # python -m sslviz
    ("sslviz", ["slides", "{tmp}/not_json.ipynb"], "not JSON"),
    ("sslviz", ["slides", "{tmp}/empty_object.ipynb"], "without a list of cells"),
    ("sslviz", ["slides", "{tmp}/no_cells.ipynb"], "has no cells"),
    ("sslviz", ["slides", "{tmp}/binary.ipynb"], "binary bytes"),
    ("sslviz", ["slides", "{tmp}/invalid.ipynb"], "not a valid notebook"),
    ("sslviz", ["export-figures", "{tmp}/not_json.ipynb"], "not JSON"),
    ("sslviz", ["export-figures", "{tmp}/binary.ipynb"], "binary bytes"),
    ("sslviz", ["export-figures", "--out", "{tmp}/plain.txt/figures"], "is a file, not a folder"),
    ("sslviz", ["export-figures", "--formats", "gif"], "choose from png,svg,pdf"),
    ("sslviz", ["export-figures", "--out", ""], "--out is empty"),
    ("sslviz", ["export-figures", "--preset", "2:1"], "invalid choice"),
    ("sslviz", ["execute", "{tmp}/empty_object.ipynb"], "without a list of cells"),
    ("sslviz", ["execute", "{tmp}/absent.ipynb"], "no notebook at"),
    ("sslviz", ["frobnicate"], "invalid choice"),
    # python -m sslviz.experiments
    ("experiments", ["fisher-table"], "python -m sslviz.datasets fetch 20newsgroups"),
    ("experiments", ["kernel-expansion", "splice"], "python -m sslviz.datasets fetch splice"),
    ("experiments", ["hybrid", "perplexity"], "python -m sslviz.datasets fetch"),
    ("experiments", ["fisher-table", "--sizes", "-3"], "--sizes must be positive, got [-3]"),
    ("experiments", ["fisher-table", "--sizes", "ten"], "invalid int value: 'ten'"),
    ("experiments", ["fisher-figure", "--unlabeled", "0"], "--unlabeled must be positive"),
    ("experiments", ["fisher-table", "--splits", "7"], "--splits must lie in 0..4"),
    ("experiments", ["fisher-table", "--n-jobs", "0"], "--n-jobs must be a number of processes"),
    ("experiments", ["fisher-table", "--tsvm-max-unlabeled", "-1"], "must be positive, got -1"),
    ("experiments", ["fisher-table", "--methods", "svm++"], "invalid choice"),
    ("experiments", ["kernel-expansion", "splice", "--n-jobs", "0"], "got 0"),
    ("experiments", ["kernel-expansion", "--seeds", "-3"], "a seed must be an integer"),
    ("experiments", ["kernel-expansion", "retina"], "splice, leukemia and/or width-study"),
    ("experiments", ["hybrid", "table", "--seeds", "-1"], "a seed must be an integer"),
    ("experiments", ["hybrid", "table", "--sizes", "0"], "--sizes must be positive"),
    ("experiments", ["hybrid", "table", "--n-jobs", "0"], "got 0"),
    ("experiments", ["hybrid", "table", "--corpora", "imdb"], "invalid choice"),
    ("experiments", ["hybrids"], "invalid choice"),
    ("experiments", ["alpha-study", "--seeds", "-1"], "a seed must be an integer"),
    ("experiments", ["alpha-study", "--max-iter", "0"], "must be a positive integer, got 0"),
    ("experiments", ["graph-criteria", "--fraction", "0"], "must be a finite number > 0, got 0"),
    ("experiments", ["graph-criteria", "--seeds", "-1"], "a seed must be an integer"),
    ("experiments", ["sigma-study", "--sizes", "1"], "--sizes must be at least 2"),
    ("experiments", ["hybrid", "table", "--selection", "best"], "invalid choice"),
    ("experiments", ["hybrid", "projection", "--selection", "best"], "invalid choice"),
    ("experiments", ["hybrid", "projection"], "python -m sslviz.datasets fetch"),
    ("experiments", ["hybrid", "projection", "--selection", "labeled-rows", "--readme",
                     "README.md"], "--readme goes with summary or table"),
    # python -m sslviz.bench
    ("bench", ["em", "--repeat", "0"], "--repeat: must be a positive integer, got 0"),
    ("bench", ["em", "--n-labeled", "-5"], "--n-labeled: must be a positive integer"),
    ("bench", ["em", "--alpha", "nan"], "--alpha: must be a finite number > 0, got nan"),
    ("bench", ["em", "--alpha", "-1"], "--alpha: must be a finite number > 0"),
    ("bench", ["em", "--seed", "-2"], "a seed must be an integer"),
    ("bench", ["em", "--stop-words", "english"], "invalid choice"),
    ("bench", ["em"], "python -m sslviz.datasets fetch 20newsgroups"),
    ("bench", ["explorers", "--steps", "0"], "--steps: must be a positive integer, got 0"),
    ("bench", ["explorers", "--steps", "-3"], "--steps: must be a positive integer, got -3"),
    ("bench", ["explorers", "--pause", "inf"], "--pause: must be a finite number >= 0"),
    ("bench", ["explorers", "{tmp}/nope.ipynb"], "no notebook at"),
    ("bench", ["explorers", "{tmp}/not_json.ipynb"], "not JSON"),
    ("bench", ["explorers", "--json", "{tmp}/missing/rows.json"], "does not exist"),
    ("bench", ["explorers", "--json", "{tmp}"], "is a folder"),
    # python -m sslviz.datasets
    ("datasets", ["status", "no-such-dataset"], "unknown dataset(s) ['no-such-dataset']"),
    ("datasets", ["fetch", "nope"], "unknown dataset(s) ['nope']"),
    ("datasets", ["pull"], "invalid choice"),
    # python -m sslviz.site
    ("site", ["{tmp}/out", "--notebooks", "{tmp}/absent.ipynb"], "no notebook at"),
    ("site", ["{tmp}/out", "--notebooks", "{tmp}/not_json.ipynb"], "not JSON"),
    ("site", ["{tmp}/out", "--notebooks"], "argument --notebooks: expected at least one argument"),
    ("site", ["{tmp}/plain.txt"], "OUT {tmp}/plain.txt: {tmp}/plain.txt is a file, not a folder"),
    ("site", ["{tmp}/out", "--pdf=yes"], "argument --pdf: ignored explicit argument 'yes'"),
    ("site", ["{tmp}/out", "--colour"], "python -m sslviz.site: error: unrecognized arguments: "
                                        "--colour"),
]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A working folder with bad notebooks in it and an empty data folder."""
    (tmp_path / "not_json.ipynb").write_text("this is not JSON")
    (tmp_path / "empty_object.ipynb").write_text("{}")
    (tmp_path / "no_cells.ipynb").write_text(json.dumps(
        {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    (tmp_path / "binary.ipynb").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "invalid.ipynb").write_text(json.dumps(
        {"cells": [{"cell_type": "code"}], "nbformat": 4, "nbformat_minor": 5}))
    (tmp_path / "plain.txt").write_text("x")
    (tmp_path / "data").mkdir()
    monkeypatch.setenv("SSLVIZ_DATA", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _files(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if "cache" not in p.relative_to(folder).parts)


def _call(main, argv):
    try:
        return main(argv)
    except SystemExit as stop:  # argparse's own errors
        return stop.code


@pytest.mark.parametrize(("command", "argv", "message"), CASES,
                         ids=[" ".join([c, *a]) for c, a, _ in CASES])
def test_bad_input_is_one_line_and_exit_2(workdir, capsys, command, argv, message):
    before = _files(workdir)
    code = _call(MAINS[command], [a.format(tmp=workdir) for a in argv])
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert len(err.strip().splitlines()) == 1, err
    assert message.format(tmp=workdir) in err and "Traceback" not in err + out
    assert _files(workdir) == before  # no output file, not even a partial one


def test_debug_shows_the_traceback(workdir):
    from sslviz.datasets.verify import DatasetMissingError

    with pytest.raises(DatasetMissingError, match="splice"):
        experiments_main(["kernel-expansion", "splice", "--debug"])
    with pytest.raises(cli.UsageError, match="not JSON"):
        sslviz_main(["--debug", "slides", str(workdir / "not_json.ipynb")])


def test_every_parser_lists_debug(capsys):
    for main, argv in [(sslviz_main, ["slides", "-h"]), (bench.main, ["em", "-h"]),
                       (experiments_main, ["-h"]), (experiments_main, ["hybrid", "-h"]),
                       (datasets_main, ["-h"]), (site.main, ["-h"])]:
        assert _call(main, argv) == 0
        assert "--debug" in capsys.readouterr().out


def test_sizes_beyond_the_corpus_are_refused_before_the_run(monkeypatch, capsys):
    """--sizes larger than a split's training posts: refused once the corpus is known."""
    from sslviz.experiments import fisher

    class Corpus:
        X = __import__("scipy.sparse").sparse.csr_matrix((50, 3))
        y = [0, 1] * 25

    monkeypatch.setattr(fisher, "load_fisher_corpus", lambda: Corpus)
    monkeypatch.setattr(fisher, "fisher_grid", lambda *a, **k: pytest.fail("the run started"))
    assert experiments_main(["fisher-table", "--sizes", "99999999", "--unlabeled", "5"]) == 2
    err = capsys.readouterr().err
    assert "exceed the 40 training posts of a split" in err and len(err.splitlines()) == 1


def test_bench_json_is_written_whole_at_the_end(monkeypatch, tmp_path, capsys):
    import sslviz.bench_explorers as explorers

    rows = [{"explorer": "x", "control": "c", "kind": "refit", "first": [0.2], "revisit": [0.1],
             "error": None, "notebook": "n"}]
    monkeypatch.setattr(explorers, "bench_notebooks", lambda *a, **k: rows)
    target = tmp_path / "rows.json"
    assert bench.main(["explorers", "--json", str(target)]) == 0
    assert json.loads(target.read_text()) == rows
    assert [p.name for p in tmp_path.iterdir()] == ["rows.json"]  # no temporary file left


def test_write_text_leaves_no_partial_file(tmp_path, monkeypatch):
    from sslviz.notebook_files import write_text

    target = tmp_path / "out.json"
    target.write_text("old")

    def fail(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="No space"):
        write_text(target, "new")
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_files_a_command_writes_are_readable_by_others_under_umask_022(tmp_path):
    import nbformat

    from sslviz.notebook_files import write_notebook, write_text

    previous = os.umask(0o022)
    try:
        write_text(tmp_path / "rows.json", "[]")
        write_notebook(nbformat.v4.new_notebook(), tmp_path / "student.ipynb")
    finally:
        os.umask(previous)
    modes = {p.name: p.stat().st_mode & 0o777 for p in tmp_path.iterdir()}
    assert modes == {"rows.json": 0o644, "student.ipynb": 0o644}


@pytest.mark.parametrize("module", ["sslviz", "sslviz.experiments", "sslviz.bench",
                                    "sslviz.datasets", "sslviz.site"])
def test_python_dash_m_prints_one_line(tmp_path, module):
    """The real entry points (``python -m``) go through the same error path."""
    argv = {"sslviz": ["slides", "x.ipynb"], "sslviz.experiments": ["kernel-expansion", "splice"],
            "sslviz.bench": ["explorers", "--steps", "0"], "sslviz.datasets": ["status", "nope"],
            "sslviz.site": ["out", "--notebooks", "x.ipynb"]}
    env = {**os.environ, "SSLVIZ_DATA": str(tmp_path), "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-m", module, *argv[module]], capture_output=True,
                            text=True, env=env, cwd=tmp_path, timeout=PATIENCE_S)
    assert result.returncode == 2, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_a_commands_error_path_imports_no_nbformat():
    """Importing nbformat takes seconds (jsonschema builds its format grammars): the one-line
    error path of every command and the modules the commands import at start leave it for the
    notebook readers and writers that need it."""
    code = ("import sys\nfrom sslviz import cli, deck, notebook_files, slides, site\n"
            "cli.is_user_error(ValueError())\nprint(sorted(m for m in sys.modules "
            "if m.split('.')[0] in ('nbformat', 'jsonschema')))")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                            timeout=PATIENCE_S)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def _run_script():
    spec = importlib.util.spec_from_file_location("run_script_commands", REPO / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_run_py_bad_command_is_one_line(capsys):
    assert _run_script().main(["serve"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown command 'serve'" in err


def test_run_py_unwritable_environment_is_one_line(monkeypatch, capsys):
    run_script = _run_script()

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied", "/venv/.sslviz-stamp")

    monkeypatch.setattr(run_script, "ensure_environment", refuse)
    assert run_script.main(["test"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Permission denied" in err


@pytest.mark.parametrize("command", [["execute"], ["slides"]])
def test_a_notebook_that_cannot_be_written_back_is_refused_before_the_run(workdir, capsys,
                                                                          monkeypatch, command):
    """execute and slides write the notebook back: refused first if that cannot succeed
    (simulated: the tests may run as root, for whom permissions do not stop writes)."""
    import nbformat

    path = workdir / "ok.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")]), path)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == path
                        else real_access(p, mode))
    before = path.read_bytes()
    assert sslviz_main([*command, str(path)]) == 2
    err = capsys.readouterr().err
    assert "cannot be written" in err and len(err.strip().splitlines()) == 1
    assert path.read_bytes() == before


def test_bench_explorers_a_failing_notebook_is_one_line_and_exit_1(monkeypatch, tmp_path,
                                                                  capsys):
    import sslviz.bench_explorers as explorers
    from sslviz.deck import NotebookFailed

    def fail(*args, **kwargs):
        raise NotebookFailed("x.ipynb: code cell 3 failed; run the notebook to see why:\n"
                             "ZeroDivisionError: division by zero")

    monkeypatch.setattr(explorers, "bench_notebooks", fail)
    target = tmp_path / "rows.json"
    assert bench.main(["explorers", "--json", str(target)]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "code cell 3 failed" in err
    assert not target.exists()
