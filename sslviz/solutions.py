"""Student versions of the lectures: the notebooks without their worked solutions.

An exercise is a markdown cell whose first line is ``### Exercise N — title`` under the
``## Exercises`` heading; its worked solution is the cells right after it tagged ``solution``
(see :func:`sslviz.slides.is_solution_cell`). :func:`student_version` drops those cells (and so
their outputs), puts an empty answer cell (tagged ``answer``) after each exercise, and makes the
``## Exercises`` introduction say that this is the student version instead of pointing at folded
solutions; ``python -m sslviz student`` writes the result for each notebook.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from sslviz.cli import UsageError
from sslviz.notebook_files import read_notebook, write_notebook
from sslviz.slides import is_solution_cell

__all__ = ["ANSWER_TAG", "STUDENT_NOTE", "exercise_indices", "missing_solutions",
           "student_version", "write_student_versions"]

_EXERCISE = re.compile(r"^###\s+Exercise\b")
_EXERCISES_HEADING = re.compile(r"^##\s+Exercises\b")
# a sentence of the lecture that points at its folded solutions (none are left to unfold)
_FOLDED = re.compile(r"\s*[^.!?]*\bsolutions?\b[^.!?]*\bfolded\b[^.!?]*[.!?]", re.IGNORECASE)
ANSWER_TAG = "answer"
STUDENT_NOTE = ("*This is the student version of the lecture: the worked solutions are taken "
                "out, and the empty code cell after each exercise is for your answer.*")


def exercise_indices(notebook) -> list[int]:
    """Indices of the markdown cells that state an exercise (``### Exercise …``)."""
    return [i for i, cell in enumerate(notebook.cells)
            if cell.cell_type == "markdown" and _EXERCISE.match(cell.source.lstrip())]


def missing_solutions(notebook) -> list[str]:
    """Titles of the exercises not followed by a solution-tagged cell."""
    cells = notebook.cells
    return [cells[i].source.lstrip().splitlines()[0].lstrip("# ").strip()
            for i in exercise_indices(notebook)
            if i + 1 >= len(cells) or not is_solution_cell(cells[i + 1])]


def student_version(notebook):
    """A copy of ``notebook`` without its solution cells, with an empty answer cell after each
    exercise and :data:`STUDENT_NOTE` in place of any sentence about folded solutions in the
    ``## Exercises`` introduction; returns ``(copy, n_removed)``."""
    copy = nbformat.from_dict(nbformat.NotebookNode(notebook))
    cells, removed, exercises = [], 0, 0
    for cell in copy.cells:
        if is_solution_cell(cell):
            removed += 1
            continue
        source = cell.source.lstrip() if cell.cell_type == "markdown" else ""
        if _EXERCISES_HEADING.match(source):
            cell.source = _with_note(source)
        elif _EXERCISE.match(source) and not any(STUDENT_NOTE in c.source for c in cells):
            cells.append(nbformat.v4.new_markdown_cell(STUDENT_NOTE, id="student-version"))
        cells.append(cell)
        if _EXERCISE.match(source):
            exercises += 1
            cells.append(nbformat.v4.new_code_cell(
                "", id=f"answer-{exercises}",
                metadata={"tags": [ANSWER_TAG], "slideshow": {"slide_type": "-"}}))
    copy.cells = cells
    return copy, removed


def _with_note(introduction):
    """The ``## Exercises`` cell without its sentences about folded solutions, with the note."""
    heading, _, body = introduction.partition("\n")
    body = _FOLDED.sub("", body).strip()
    return "\n\n".join(part for part in (heading, body, STUDENT_NOTE) if part)


def write_student_versions(paths, out) -> list[str]:
    """Write the student version of each notebook (or folder of notebooks) into ``out``.

    Every notebook and every output is checked before anything is written; returns one summary
    line per notebook. Refused (:class:`UsageError`): a notebook whose exercises lack solutions,
    an ``out`` that is neither new, empty nor this command's own earlier output, a student
    version that would replace one of the inputs, two inputs of one name.
    """
    from sslviz import cli

    inputs = cli.check_distinct(cli.checked_notebooks(paths), what="notebooks")
    _outputs(inputs, out)
    notebooks = []
    for path in inputs:  # a folder gives its notebooks
        notebook = read_notebook(path)
        missing = missing_solutions(notebook)
        if missing:
            raise UsageError(f"{path}: {missing[0]!r} has no solution cell right after it; tag "
                             "its worked solution 'solution' (see CONTRIBUTING.md)")
        notebooks.append((path, notebook))
    cli.mark_output_folder(out, STUDENT_COMMAND)
    out = Path(out)
    summaries = []
    for path, notebook in notebooks:
        student, removed = student_version(notebook)
        write_notebook(student, out / path.name)
        summaries.append(f"{path.name}: {len(exercise_indices(notebook))} exercises, "
                         f"{removed} solution cells removed, an answer cell after each exercise")
    return summaries


STUDENT_COMMAND = "python -m sslviz student"


def _outputs(inputs, out):
    """Refuse an output folder or file that :func:`write_student_versions` may not write."""
    from sslviz import cli

    cli.check_output_folder(out, command=STUDENT_COMMAND)
    names = {}
    for path in inputs:
        if path.name in names:
            raise UsageError(f"{names[path.name]} and {path} share the name {path.name}: their "
                             "student versions would overwrite each other; give one of them")
        names[path.name] = path
        if Path(out).is_dir():  # a new folder holds no input
            cli.check_output_file(Path(out) / path.name, option="--out", inputs=inputs)
