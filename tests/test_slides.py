"""Slide metadata: derived from headings, present in every lecture, written atomically."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from sslviz.__main__ import main
from sslviz.hosted import SETUP_CELL
from sslviz.slides import apply_slides, slide_problems, slide_types, update_notebooks

ROOT = Path(__file__).resolve().parents[1]
LECTURES = sorted((ROOT / "notebooks").glob("*.ipynb"))


def explorer_cell(source="top_words_explorer(corpus)"):
    return new_code_cell(source, metadata={"tags": ["nbval-ignore-output"]})


def lecture():
    return new_notebook(cells=[
        new_markdown_cell("# Lecture 9 — A title\n\nabstract"),
        new_code_cell("import numpy as np"),
        new_markdown_cell("## The idea\n\ntext"),
        new_markdown_cell("more text"),
        new_markdown_cell("## The math\n\n$$a = b$$"),
        new_code_cell("x = 1", metadata={"tags": ["nbval-check-output"]}),
        explorer_cell(),
        new_code_cell("# no explorer here: learning_curve(x)",
                      metadata={"tags": ["nbval-ignore-output"]}),
        new_markdown_cell("### a smaller heading stays on the slide"),
        new_markdown_cell("## Take-aways\n\n* one"),
    ])


def test_going_further_sections_are_skipped_by_the_slideshow():
    notebook = new_notebook(cells=[
        new_markdown_cell("# Lecture 1 — x"), new_markdown_cell("## Core"),
        new_markdown_cell("## Going further: paper scale"), new_code_cell("run()"),
        new_markdown_cell("### still deeper"), new_markdown_cell("## Going further: more"),
        new_markdown_cell("## Take-aways"), new_code_cell("x")])
    assert slide_types(notebook) == ["slide", "slide", "skip", "skip", "skip", "skip", "slide",
                                      "-"]


def test_solutions_are_skipped_by_the_slideshow_and_folded_in_jupyterlab():
    solution = new_code_cell("print(2)", metadata={"tags": ["solution", "nbval-check-output"]})
    notebook = new_notebook(cells=[
        new_markdown_cell("# Lecture 1 — x"), new_markdown_cell("## Exercises\n\n1. add"),
        solution, new_markdown_cell("2. next")])
    assert slide_types(notebook) == ["slide", "slide", "skip", "-"]
    notebook.cells.insert(1, new_code_cell(SETUP_CELL, metadata={"tags": ["hosted-setup"]}))
    assert apply_slides(notebook) is True
    assert solution.metadata["jupyter"] == {"source_hidden": True, "outputs_hidden": True}
    assert "jupyter" not in notebook.cells[4].metadata
    assert slide_problems(notebook)[:1] != [
        "slide metadata is missing or stale: run `python -m sslviz slides notebooks/` and "
        "commit the notebooks"]
    solution.metadata["jupyter"] = {"source_hidden": False}
    assert slide_problems(notebook)[0].startswith("slide metadata is missing or stale")


def test_slide_types_follow_the_headings():
    assert slide_types(lecture()) == ["slide", "-", "slide", "-", "slide", "-", "subslide", "-",
                                      "-", "slide"]


def test_apply_then_nothing_is_missing():
    notebook = lecture()
    notebook.metadata["rise"] = {"scroll": True}  # RISE's settings, from before the slideshow
    assert slide_problems(notebook) == [
        "slide metadata is missing or stale: run `python -m sslviz slides notebooks/` and "
        "commit the notebooks",
        "the first code cell is not the hosted-start cell (tag 'hosted-setup'): run "
        "`python -m sslviz slides notebooks/`"]
    assert apply_slides(notebook) is True
    assert apply_slides(notebook) is False
    assert "rise" not in notebook.metadata
    assert slide_problems(notebook) == []


def test_the_hosted_start_cell_comes_first_is_skipped_and_kept_current():
    notebook = lecture()
    apply_slides(notebook)
    setup = notebook.cells[1]
    assert setup.source == SETUP_CELL and setup.metadata["tags"] == ["hosted-setup"]
    assert notebook.cells[2].source == "import numpy as np"
    assert slide_types(notebook)[1] == "skip"
    setup.source = "# an older version"
    assert slide_problems(notebook) == [
        "the hosted-start cell is out of date: run `python -m sslviz slides notebooks/`"]
    assert apply_slides(notebook) is True and notebook.cells[1].source == SETUP_CELL
    assert sum(SETUP_CELL == c.source for c in notebook.cells) == 1


@pytest.mark.parametrize(("index", "problem"), [
    (0, "the first cell must be the title slide, a markdown `# Lecture ...`"),
    (4, "no slide with displayed math ($$ ... $$)"),
    (6, "no live demo: no cell shows an explorer"),
    (9, "no `## Take-aways` slide"),
])
def test_each_missing_part_of_a_lecture_is_named(index, problem):
    notebook = lecture()
    notebook.cells[index] = new_markdown_cell("plain text")
    apply_slides(notebook)
    assert slide_problems(notebook) == [problem]


@pytest.mark.parametrize("path", LECTURES, ids=[p.stem for p in LECTURES])
def test_every_lecture_is_ready_as_a_slideshow(path):
    assert slide_problems(nbformat.read(path, as_version=4)) == []


def test_stored_widget_state_is_dropped():
    notebook = lecture()
    apply_slides(notebook)
    notebook.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    assert slide_problems(notebook) == [
        "stored widget state: run `python -m sslviz slides notebooks/` to drop it"]
    assert apply_slides(notebook) is True
    assert "widgets" not in notebook.metadata
    assert slide_problems(notebook) == []


def test_update_writes_only_what_changed_and_the_command_checks(tmp_path, capsys):
    path = tmp_path / "lecture.ipynb"
    nbformat.write(lecture(), path)
    assert main(["slides", "--check", str(path)]) == 1
    assert "slide metadata is missing or stale" in capsys.readouterr().err
    assert update_notebooks([path]) == [path]
    assert update_notebooks([path]) == []
    assert main(["slides", "--check", str(path)]) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["lecture.ipynb"]  # no temporary file left
    stored = nbformat.read(path, as_version=4)
    assert [c.metadata.slideshow.slide_type for c in stored.cells] == slide_types(stored)


def test_a_folder_names_its_notebooks_and_an_empty_one_is_refused(tmp_path, capsys):
    folder = tmp_path / "lectures"
    folder.mkdir()
    assert main(["slides", "--check", str(folder)]) == 2
    assert capsys.readouterr().err == f"error: {folder} holds no notebook (.ipynb)\n"
    notebook = lecture()
    apply_slides(notebook)
    for name in ("02_b.ipynb", "01_a.ipynb"):
        nbformat.write(notebook, folder / name)
    assert main(["slides", "--check", str(folder)]) == 0
