"""A command never destroys what it did not make (issue 32, items 1, 4, 5 and 9).

* an output folder must be new, empty or the command's own earlier output (its marker file);
  an output file is never one of the inputs; two outputs never share a name; every output is
  checked before any slow work (the slow work is replaced here by a function that fails the test);
* the paper-scale results file is only merged into: a summary that would drop sets refuses;
* ``experiments store`` checks its folder and manifest first; ``--check`` reports a damaged or
  missing entry as a difference; a kernel that dies is one line naming the notebook and the cell;
* writes go through a symlink and keep the file's mode; new files are 0644 under umask 022;
* only the project's own errors (and OS errors about a path) are one line; a bug keeps its
  traceback and says where to report it.
"""

from __future__ import annotations

import json
import os
import stat

import nbformat
import numpy as np
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from sslviz import bench, cli, site
from sslviz.__main__ import main as sslviz_main
from sslviz.experiments import hybrid_results as R
from sslviz.experiments import hybrid_studies
from sslviz.experiments import store as store_module
from sslviz.lectures import STORED_KINDS


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def lecture(path, *, solved=True):
    cells = [new_markdown_cell("# A lecture"), new_code_cell("x = 1"),
             new_markdown_cell("## Exercises"), new_markdown_cell("### Exercise 1 — add")]
    if solved:
        cells.append(new_code_cell("x + 1", metadata={"tags": ["solution"]}))
    nbformat.write(new_notebook(cells=cells), path)
    return path


def files_under(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def one_line_error(capsys, *pieces):
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for piece in pieces:
        assert piece in err, err
    return err


def no_slow_work(*args, **kwargs):
    pytest.fail("the slow work started before the outputs were checked")


# -- 1. output folders: new, empty or the command's own ----------------------------------------
@pytest.mark.parametrize("where", ["home", "working folder"])
def test_site_refuses_a_folder_it_did_not_make(tmp_path, monkeypatch, capsys, where):
    home = tmp_path / "home"
    (home / "thesis").mkdir(parents=True)
    (home / "thesis" / "chapter1.tex").write_text("years of work")
    (home / ".bashrc").write_text("alias ll='ls -l'")
    before = files_under(tmp_path)
    monkeypatch.setattr(site, "render", no_slow_work)
    monkeypatch.chdir(home)
    assert site.main([str(home) if where == "home" else "."]) == 2
    one_line_error(capsys, "did not write", ".sslviz-output")
    assert files_under(tmp_path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]  # no .home.old, no temporary


def test_site_refuses_a_file_as_its_folder(tmp_path, monkeypatch, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    monkeypatch.setattr(site, "render", no_slow_work)
    assert site.main([str(tmp_path / "notes.txt")]) == 2
    one_line_error(capsys, "is a file, not a folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_site_replaces_its_own_earlier_build(tmp_path, monkeypatch, capsys):
    def render(paths, out, binder=None):
        (out / "index.html").write_text(f"build of {len(paths)}")
        return [{"href": "index.html", "title": "t"}] * len(paths)

    monkeypatch.setattr(site, "render", render)
    notebooks = [lecture(tmp_path / "01_a.ipynb")]
    out = tmp_path / "site"
    assert site.main([str(out), "--notebooks", *map(str, notebooks)]) == 0
    assert (out / cli.OUTPUT_MARKER).is_file()
    (out / "stale.html").write_text("from the first build")
    assert site.main([str(out), "--notebooks", *map(str, notebooks * 2)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [cli.OUTPUT_MARKER, "index.html"]
    assert (out / "index.html").read_text() == "build of 2"
    assert stat.S_IMODE(out.stat().st_mode) & 0o055 == 0o055  # others can read the site
    (out / cli.OUTPUT_MARKER).write_text("made by: python -m sslviz student\n")  # another's
    assert site.main([str(out), "--notebooks", *map(str, notebooks)]) == 2


def test_site_recognises_a_build_made_before_the_marker(tmp_path, monkeypatch):
    monkeypatch.setattr(site, "render", lambda paths, out, binder=None: [])
    out = tmp_path / "site"
    (out / "mathjax").mkdir(parents=True)
    (out / "lectures.json").write_text("[]")
    (out / "01_a.html").write_text("<html>")
    (out / "index.html").write_text(site.contents_page([]))
    notebooks = [str(lecture(tmp_path / "01_a.ipynb"))]
    assert site.main([str(out), "--notebooks", *notebooks]) == 0
    assert (out / cli.OUTPUT_MARKER).is_file()
    os.remove(out / cli.OUTPUT_MARKER)
    (out / "index.html").write_text(site.contents_page([]))
    (out / "lectures.json").write_text("[]")
    (out / "mathjax").mkdir()
    (out / "notes.txt").write_text("mine")  # not a file a build makes
    assert site.main([str(out), "--notebooks", *notebooks]) == 2
    assert (out / "notes.txt").read_text() == "mine"


def test_student_never_overwrites_a_lecture(tmp_path, capsys):
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    path = lecture(notebooks / "04_em.ipynb")
    before = path.read_bytes()
    assert sslviz_main(["student", str(path), "--out", str(notebooks)]) == 2
    one_line_error(capsys, "did not write")
    assert path.read_bytes() == before

    out = tmp_path / "student"  # its own folder, where an input was then put
    assert sslviz_main(["student", str(path), "--out", str(out)]) == 0
    capsys.readouterr()
    inside = lecture(out / "05_x.ipynb")
    before = inside.read_bytes()
    assert sslviz_main(["student", str(inside), "--out", str(out)]) == 2
    one_line_error(capsys, "is one of the inputs")
    assert inside.read_bytes() == before


def test_student_refuses_two_inputs_with_one_name(tmp_path, capsys):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        lecture(tmp_path / folder / "04_em.ipynb")
    out = tmp_path / "student"
    assert sslviz_main(["student", str(tmp_path / "a" / "04_em.ipynb"),
                        str(tmp_path / "b" / "04_em.ipynb"), "--out", str(out)]) == 2
    one_line_error(capsys, "04_em.ipynb", "share")
    assert not out.exists()


def test_student_rewrites_its_own_folder(tmp_path, capsys):
    path = lecture(tmp_path / "04_em.ipynb")
    out = tmp_path / "student"
    assert sslviz_main(["student", str(path), "--out", str(out)]) == 0
    assert sslviz_main(["student", str(path), "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [cli.OUTPUT_MARKER, "04_em.ipynb"]


def test_export_figures_checks_its_folder_before_running(tmp_path, monkeypatch, capsys):
    import sslviz.deck as deck

    monkeypatch.setattr(deck, "export_figures", no_slow_work)
    path = lecture(tmp_path / "01_a.ipynb")
    mine = tmp_path / "figures"
    mine.mkdir()
    (mine / "logo.png").write_bytes(b"my logo")
    assert sslviz_main(["export-figures", str(path), "--out", str(mine)]) == 2
    one_line_error(capsys, "did not write")
    assert (mine / "logo.png").read_bytes() == b"my logo"


@pytest.mark.parametrize("command", ["execute", "slides"])
def test_a_notebook_named_twice_is_refused(tmp_path, monkeypatch, capsys, command):
    import sslviz.deck as deck

    monkeypatch.setattr(deck, "run_cells", no_slow_work)
    path = lecture(tmp_path / "01_a.ipynb")
    link = tmp_path / "same.ipynb"
    link.symlink_to(path)
    assert sslviz_main([command, str(path), str(link)]) == 2
    one_line_error(capsys, "01_a.ipynb", "same file")


@pytest.mark.parametrize("command", ["explorers", "notebooks"])
def test_bench_json_may_not_be_an_input(tmp_path, monkeypatch, capsys, command):
    import sslviz.bench_explorers as explorers
    import sslviz.bench_notebooks as notebooks

    monkeypatch.setattr(explorers, "bench_notebooks", no_slow_work)
    monkeypatch.setattr(notebooks, "bench_notebooks", no_slow_work)
    path = lecture(tmp_path / "01_a.ipynb")
    before = path.read_bytes()
    assert bench.main([command, str(path), "--json", str(path)]) == 2
    one_line_error(capsys, "is one of the inputs")
    assert path.read_bytes() == before


# -- 1. the paper-scale results file ---------------------------------------------------------
@pytest.mark.parametrize("readme, message", [
    ("absent.md", "does not exist"),
    ("plain.md", "has no paper-scale table block"),
])
def test_hybrid_summary_checks_the_readme_before_reading_the_cache(
        tmp_path, monkeypatch, capsys, readme, message):
    (tmp_path / "plain.md").write_text("# a README without the block\n")
    monkeypatch.setattr(hybrid_studies, "load_corpora", no_slow_work)
    monkeypatch.setattr(hybrid_studies, "load_hybrid_corpus", no_slow_work)
    results = tmp_path / "results.json"
    monkeypatch.setattr(hybrid_studies, "RESULTS_FILE", results)
    for command in ("summary", "table"):
        assert hybrid_studies.main([command, "--readme", str(tmp_path / readme)]) == 2
        one_line_error(capsys, message)
    assert not results.exists()


def _summary(seeds, digest):
    return {"methods": list(R.METHODS), "seeds": [0, 1], "command": R.RUN_COMMAND,
            "code": {"module": "sslviz.experiments.hybrid", "digest": digest},
            "corpora": {"webkb": {"n_unlabeled": 60, "n_test": 150, "missing": [],
                                  "sizes": {"8": {"seeds": seeds,
                                                  "accuracy": [[50.0] * 5] * len(seeds),
                                                  "cpu_seconds": [1.0] * len(seeds)}}}}}


def test_a_summary_that_would_drop_sets_refuses_with_the_counts(tmp_path, monkeypatch):
    path = tmp_path / "paper.json"
    held = _summary([0, 1], "0" * 16)  # other code: nothing of it can be merged
    path.write_text(json.dumps(held))
    monkeypatch.setattr(R, "corpus_summary", lambda corpus, seeds, selection: {
        "n_unlabeled": 60, "n_test": 150, "sizes": {}, "missing": [[8, 0], [8, 1]]})

    class Corpus:
        name = "webkb"

    with pytest.raises(cli.UsageError, match=r"holds 2 evaluation sets.* would hold 0"):
        R.write_results([Corpus], path, seeds=[0, 1])
    assert json.loads(path.read_text()) == held
    assert sorted(p.name for p in tmp_path.iterdir()) == ["paper.json"]


# -- 4. the store ---------------------------------------------------------------------------
@pytest.fixture
def probe(tmp_path, monkeypatch):
    monkeypatch.setitem(STORED_KINDS, "probe", ("demo",))
    path = tmp_path / "probe.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell("1")]), path)
    return path


@pytest.mark.parametrize("damage, message", [
    ("file", "is a file, not a folder"),
    ("foreign", "did not write"),
    ("manifest", "MANIFEST.json"),
])
def test_store_checks_its_folder_and_manifest_before_running(
        tmp_path, monkeypatch, capsys, probe, damage, message):
    folder = tmp_path / "store"
    if damage == "file":
        folder.write_text("x")
    else:
        folder.mkdir()
        (folder / ("notes.txt" if damage == "foreign" else store_module.MANIFEST)).write_text(
            "{not json")
    monkeypatch.setenv("SSLVIZ_STORE", str(folder))
    monkeypatch.setattr(store_module, "_run_fresh", no_slow_work)
    for check in ([], ["--check"]):
        assert store_module.main([str(probe), *check]) == 2
        one_line_error(capsys, message)


def _fake_run(made):
    def run(notebook, kinds):
        yield 0.0, made
    return run


def test_store_check_reports_a_damaged_and_a_missing_entry(tmp_path, monkeypatch, capsys,
                                                           probe):
    folder = tmp_path / "store"
    (folder / "demo").mkdir(parents=True)
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    made = {}
    for name in ("a.npz", "b.npz"):
        np.savez(fresh / name, x=np.arange(3))
        made[name] = fresh / name
    (folder / "demo" / "a.npz").write_bytes(b"PK\x03\x04 damaged")  # b.npz: missing
    (folder / store_module.MANIFEST).write_text(json.dumps(
        {"made_by": "python -m sslviz.experiments store",
         "notebooks": {"probe": {"demo": ["a.npz", "b.npz"]}}, "code": {}}))
    monkeypatch.setenv("SSLVIZ_STORE", str(folder))
    monkeypatch.setattr(store_module, "_run_fresh", _fake_run({"demo": made}))
    assert store_module.main([str(probe), "--check"]) == 1
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and err == ""
    assert "demo/a.npz: the stored entry is damaged" in out
    assert "demo/b.npz: listed in MANIFEST.json, missing from the store" in out


# -- 4. a kernel that dies -------------------------------------------------------------------
def test_a_dying_kernel_is_one_line_naming_the_notebook_and_the_cell(tmp_path, capsys):
    path = tmp_path / "crash.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell("x = 1"), new_code_cell(
        "import os; os.kill(os.getpid(), 9)\nx = 2")]), path)
    before = path.read_bytes()
    assert sslviz_main(["execute", str(path)]) == 1
    err = one_line_error(capsys, "crash.ipynb", "kernel died while running code cell",
                         "'import os; os.kill(os.getpid(), 9)'")
    assert "DeadKernelError" not in err
    assert path.read_bytes() == before


def test_a_dying_kernel_in_the_store_is_one_line(tmp_path, monkeypatch, capsys, probe):
    from sslviz.notebook_files import NotebookFailed

    def die(notebook, kinds, cache=None):
        raise NotebookFailed("probe.ipynb: the kernel died while running code cell 1")
        yield

    monkeypatch.setenv("SSLVIZ_STORE", str(tmp_path / "store"))
    monkeypatch.setattr(store_module, "_run_fresh", die)
    assert store_module.main([str(probe)]) == 1
    one_line_error(capsys, "probe.ipynb", "code cell 1")


# -- 5. writes keep what the user had -------------------------------------------------------
def _unsorted_slides(path):
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        cell.metadata.pop("slideshow", None)
    nbformat.write(notebook, path)


@pytest.mark.parametrize("command", ["slides", "execute"])
def test_a_symlinked_notebook_stays_a_link_and_keeps_its_mode(tmp_path, monkeypatch, command):
    import sslviz.deck as deck

    monkeypatch.setattr(deck, "run_cells", lambda *a, **k: [])
    target = lecture(tmp_path / "real.ipynb")
    _unsorted_slides(target)
    os.chmod(target, 0o600)
    link = tmp_path / "04_em.ipynb"
    link.symlink_to(target.name)
    before = target.read_bytes()
    assert sslviz_main([command, str(link)]) in (0, 1)  # 1: slides has advice
    assert link.is_symlink() and os.readlink(link) == target.name
    assert target.read_bytes() != before  # written through the link
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_student_files_are_0644_under_umask_022(tmp_path, umask_022, capsys):
    path = lecture(tmp_path / "04_em.ipynb")
    os.chmod(path, 0o600)  # a private lecture: its student version is a new file
    out = tmp_path / "student"
    assert sslviz_main(["student", str(path), "--out", str(out)]) == 0
    assert stat.S_IMODE((out / "04_em.ipynb").stat().st_mode) == 0o644


# -- 9. bugs are not user errors -------------------------------------------------------------
@cli.command
def _failing(argv):
    raise argv[0]


@pytest.mark.parametrize("error", [ValueError("bad index in the sweep"),
                                   OSError(9, "Bad file descriptor"), KeyError("k")])
def test_a_bug_keeps_its_traceback_and_says_how_to_report_it(capsys, error):
    with pytest.raises(type(error)):
        _failing([error])
    err = capsys.readouterr().err
    assert "bug in sslviz" in err and "/issues" in err and "--debug" not in err


def test_a_bug_in_a_command_called_by_a_command_is_reported_once(capsys):
    @cli.command
    def outer(argv):
        return _failing(argv)

    with pytest.raises(ValueError, match="bad index"):
        outer([ValueError("bad index")])
    assert capsys.readouterr().err.count("bug in sslviz") == 1


@pytest.mark.parametrize("error, message", [
    (cli.UsageError("--out is empty"), "error: --out is empty"),
    (FileNotFoundError(2, "No such file or directory", "/home/u/x.ipynb"),
     "error: [Errno 2] No such file or directory: '/home/u/x.ipynb'"),
    (site.SiteError("nbconvert is not installed"), "error: nbconvert is not installed"),
    (OSError(28, "No space left on device"), "error: [Errno 28] No space left on device"),
    (ConnectionRefusedError(111, "Connection refused"), "error: [Errno 111] Connection refused"),
])
def test_the_projects_errors_and_path_errors_are_one_line(capsys, error, message):
    assert _failing([error]) == cli.EXIT_USAGE
    assert capsys.readouterr().err == message + "\n"
