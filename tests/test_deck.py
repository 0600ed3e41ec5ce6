"""``python -m sslviz export-figures``: notebooks run in a real kernel, explorers exported at the
values they open with; failures name the notebook and the cell."""

from __future__ import annotations

import subprocess
import sys

import nbformat
import pytest
from helpers import PATIENCE_S
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from sslviz.cli import OUTPUT_MARKER
from sslviz.deck import NotebookFailed, export_figures
from sslviz.export import figure_basename

pytestmark = pytest.mark.slow

EXPLORER = """\
import ipywidgets as widgets
from matplotlib.figure import Figure
from sslviz.export import style_context
from sslviz.widgets import Explorer

def make(name, start):
    controls = {"n_labeled": widgets.IntSlider(start, min=1, max=9)}
    with style_context():
        figure = Figure(figsize=(4, 3))
        ax = figure.add_subplot()
        (line,) = ax.plot([0, 1], [0, 0])
    def update(values):
        line.set_ydata([0, values["n_labeled"]])
        ax.set_title(f"slope {values['n_labeled']}")
    return Explorer(name, figure, controls, update)

first = make("07_demo-line", 2)
first"""


def demo_notebook(folder, *extra_cells):
    path = folder / "07_demo.ipynb"
    cells = [new_markdown_cell("# Lecture 7"), new_code_cell(EXPLORER),
             new_code_cell('first.controls["n_labeled"].value = 8\n'
                           'second = make("07_demo-other", 5)'),
             *extra_cells]
    nbformat.write(new_notebook(cells=cells), path)
    return path


def test_explorers_are_exported_at_their_opening_values(tmp_path):
    path = demo_notebook(tmp_path)
    out = tmp_path / "deck"
    written = export_figures([path], out, formats=("png", "svg"), progress=False)
    expected = {f"{figure_basename('07_demo-line', {'n_labeled': 2})}.{ext}"
                for ext in ("png", "svg")}
    expected |= {f"{figure_basename('07_demo-other', {'n_labeled': 5})}.{ext}"
                 for ext in ("png", "svg")}
    assert {p.name for p in written} == expected
    assert {p.name for p in out.iterdir()} == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["07_demo.ipynb", "deck"]

    projector = export_figures([path], tmp_path / "projector", formats=("png",),
                               projector=True, progress=False)
    plain_png = out / projector[0].name
    assert projector[0].read_bytes() != plain_png.read_bytes()  # larger fonts, thicker lines


def test_a_failing_cell_is_named(tmp_path):
    path = demo_notebook(tmp_path, new_code_cell("raise RuntimeError('broken on purpose')"))
    with pytest.raises(NotebookFailed, match=r"07_demo.ipynb: code cell 3 failed(.|\n)*"
                                             r"broken on purpose"):
        export_figures([path], tmp_path / "deck", progress=False)


def test_bad_arguments_are_refused_before_any_kernel_starts(tmp_path):
    with pytest.raises(FileNotFoundError, match="notebook\\(s\\) not found: .*nothing.ipynb"):
        export_figures([tmp_path / "nothing.ipynb"], tmp_path)
    path = demo_notebook(tmp_path)
    with pytest.raises(ValueError, match="unknown slide preset '3:2'"):
        export_figures([path], tmp_path, preset="3:2")
    with pytest.raises(ValueError, match=r"unknown figure format\(s\) \['jpg'\]"):
        export_figures([path], tmp_path, formats=("jpg",))


def test_command_line(tmp_path):
    path = demo_notebook(tmp_path)
    done = subprocess.run([sys.executable, "-m", "sslviz", "export-figures", str(path),
                           "--out", str(tmp_path / "deck"), "--formats", "pdf",
                           "--preset", "4:3"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(f"2 files written to {tmp_path / 'deck'}")
    assert "exporting figures" in done.stderr  # the progress bar
    files = sorted((tmp_path / "deck").iterdir())
    assert files[0].name == OUTPUT_MARKER  # the folder is the command's own: a rerun may write
    pdfs = files[1:]
    assert [p.suffix for p in pdfs] == [".pdf", ".pdf"]
    assert all(p.read_bytes().startswith(b"%PDF-") for p in pdfs)
    bad = subprocess.run([sys.executable, "-m", "sslviz", "export-figures", "missing.ipynb"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert bad.returncode == 2
    assert bad.stderr == "error: no notebook at missing.ipynb: give the path of an .ipynb file\n"


def test_execute_in_place_writes_the_committed_form_and_nothing_when_a_claim_fails(tmp_path):
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    from sslviz.deck import NotebookFailed, execute_in_place

    path = tmp_path / "lecture.ipynb"
    cells = [new_markdown_cell("# Lecture 1 — x"),
             new_code_cell("from sslviz.claims import claim\nclaim('two is more', 2 > 1)")]
    nbformat.write(new_notebook(cells=cells), path)
    execute_in_place(path)
    written = nbformat.read(path, as_version=4)
    assert written.cells[1].metadata["tags"] == ["hosted-setup"]  # ran first, printed nothing
    assert written.cells[1].outputs == [] and written.cells[1].execution_count == 1
    assert written.cells[2].outputs[0]["text"].endswith("-> holds\n")
    assert "execution" not in written.cells[2].metadata
    assert written.cells[0].metadata["slideshow"] == {"slide_type": "slide"}
    written.cells[2].source = "from sslviz.claims import claim\nclaim('one is more', 1 > 2)"
    nbformat.write(written, path)
    before = path.read_bytes()
    with pytest.raises(NotebookFailed, match="nothing was written"):
        execute_in_place(path)
    assert path.read_bytes() == before


def test_a_notebook_that_needs_a_missing_corpus_is_one_line_and_exit_2(tmp_path):
    import subprocess
    import sys

    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    path = tmp_path / "lecture.ipynb"
    cell = ("from sslviz.datasets import load_senseval\n"
            "load_senseval('line')")
    nbformat.write(new_notebook(cells=[new_markdown_cell("# Lecture 1 — x"),
                                       new_code_cell(cell)]), path)
    before = path.read_bytes()
    empty = tmp_path / "no-corpora"
    empty.mkdir()
    env = {**__import__("os").environ, "SSLVIZ_DATA": str(empty)}
    result = subprocess.run([sys.executable, "-m", "sslviz", "execute", str(path)],
                            capture_output=True, text=True, env=env, timeout=PATIENCE_S)
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if "WARNING" not in line]
    assert len(lines) == 1 and "lecture.ipynb" in lines[0] and "senseval" in lines[0]
    assert "Traceback" not in result.stderr and path.read_bytes() == before


def test_execute_in_place_keeps_an_explorers_picture_and_alt_text_not_its_widget_view(tmp_path):
    import base64

    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    from sslviz.deck import execute_in_place
    from sslviz.widgets.static import MAX_PICTURE_BYTES

    path = tmp_path / "lecture.ipynb"
    source = EXPLORER.replace("first = make(", "demo_explorer = make\nfirst = demo_explorer(")
    explorer_cell = new_code_cell(source, metadata={"tags": ["nbval-ignore-output"]})
    nbformat.write(new_notebook(cells=[new_markdown_cell("# Lecture 7"), explorer_cell]), path)
    execute_in_place(path)
    (output,) = nbformat.read(path, as_version=4).cells[2].outputs
    assert sorted(output["data"]) == ["image/png", "text/plain"]
    assert output["data"]["text/plain"] == "Figure line: slope 2 (n_labeled=2)"
    assert output["metadata"]["image/png"]["alt"] == "Figure line: slope 2 (n_labeled=2)"
    png = base64.b64decode(output["data"]["image/png"])
    assert png.startswith(b"\x89PNG") and len(png) <= MAX_PICTURE_BYTES
