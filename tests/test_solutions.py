"""Exercises and their worked solutions: the student version, and every lecture's exercises."""

from __future__ import annotations

import subprocess
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from sslviz.__main__ import main
from sslviz.slides import is_solution_cell
from sslviz.solutions import (
    STUDENT_NOTE,
    exercise_indices,
    missing_solutions,
    student_version,
)

ROOT = Path(__file__).resolve().parents[1]
LECTURES = sorted((ROOT / "notebooks").glob("*.ipynb"))


def solution(cell):
    cell.metadata["tags"] = ["solution"] + (["nbval-check-output"]
                                            if cell.cell_type == "code" else [])
    return cell


def with_exercises(*, solved=True):
    answer = new_code_cell("print(1 + 1)", outputs=[
        nbformat.v4.new_output("stream", name="stdout", text="2\n")])
    cells = [new_markdown_cell("# Lecture 9 — A title"), new_code_cell("x = 1"),
             new_markdown_cell("## Exercises"),
             new_markdown_cell("### Exercise 1 — add\n\nPredict 1 + 1, then check."),
             solution(answer), solution(new_markdown_cell("It is 2.")),
             new_markdown_cell("### Exercise 2 — more\n\nPredict x, then check.")]
    if solved:
        cells.append(solution(new_code_cell("print(x)")))
    return new_notebook(cells=cells)


def test_student_version_keeps_exercises_and_drops_every_solution_cell():
    notebook = with_exercises()
    student, removed = student_version(notebook)
    assert removed == 3
    assert not any(is_solution_cell(c) for c in student.cells)
    assert [student.cells[i].source.splitlines()[0] for i in exercise_indices(student)] == [
        "### Exercise 1 — add", "### Exercise 2 — more"]
    assert "2\n" not in str([c.get("outputs") for c in student.cells])
    assert len(notebook.cells) == 8  # the original is not changed


def test_each_exercise_is_followed_by_an_empty_answer_cell():
    student, _ = student_version(with_exercises())
    assert [(c.cell_type, c.source) for c in student.cells] == [
        ("markdown", "# Lecture 9 — A title"), ("code", "x = 1"),
        ("markdown", f"## Exercises\n\n{STUDENT_NOTE}"),
        ("markdown", "### Exercise 1 — add\n\nPredict 1 + 1, then check."), ("code", ""),
        ("markdown", "### Exercise 2 — more\n\nPredict x, then check."), ("code", "")]
    answers = [c for c in student.cells if "answer" in c.metadata.get("tags", [])]
    assert [c.id for c in answers] == ["answer-1", "answer-2"]
    assert all(c.outputs == [] and c.execution_count is None for c in answers)
    nbformat.validate(student)  # ids unique and well formed


@pytest.mark.parametrize("intro, kept", [
    ("Predict first, then check. The worked solutions are folded: open\nthem once you have an "
     "answer.", "Predict first, then check."),
    ("The worked solutions are folded: open them once you have an answer. A longer project, "
     "without a worked solution: run it.",
     "A longer project, without a worked solution: run it."),
    ("Solutions are folded below.", ""),
    ("No solution is hidden; $a = 1.5$ stays.", "No solution is hidden; $a = 1.5$ stays."),
])
def test_the_folded_solutions_sentence_gives_way_to_the_student_note(intro, kept):
    notebook = with_exercises()
    notebook.cells[2].source = f"## Exercises\n\n{intro}"
    student, _ = student_version(notebook)
    expected = f"## Exercises\n\n{kept}\n\n{STUDENT_NOTE}" if kept else \
        f"## Exercises\n\n{STUDENT_NOTE}"
    assert student.cells[2].source == expected


def test_exercises_without_their_heading_still_get_the_note():
    notebook = with_exercises()
    del notebook.cells[2]
    student, _ = student_version(notebook)
    assert [c.source for c in student.cells[2:4]] == [
        STUDENT_NOTE, "### Exercise 1 — add\n\nPredict 1 + 1, then check."]


@pytest.mark.parametrize("path", LECTURES, ids=[p.name for p in LECTURES])
def test_a_lectures_student_version_says_what_it_is(path):
    lecture = nbformat.read(path, as_version=4)
    student, removed = student_version(lecture)
    text = "\n".join(c.source for c in student.cells if c.cell_type == "markdown")
    assert "folded" not in text.lower()
    assert text.count(STUDENT_NOTE) == 1
    assert removed == sum(map(is_solution_cell, lecture.cells)) > 0
    exercises = exercise_indices(student)
    assert len(exercises) == len(exercise_indices(lecture)) >= 3
    for i in exercises:
        answer = student.cells[i + 1]
        assert answer.cell_type == "code" and answer.source == "" and answer.outputs == []
    kept = [c for c in student.cells if c.get("id") != "student-version"
            and "answer" not in c.metadata.get("tags", [])]
    assert len(kept) == len(lecture.cells) - removed  # nothing else added or lost
    nbformat.validate(student)


def test_missing_solutions_names_the_exercise():
    assert missing_solutions(with_exercises()) == []
    assert missing_solutions(with_exercises(solved=False)) == ["Exercise 2 — more"]


def test_student_command_writes_a_folder_and_summarises(tmp_path, capsys):
    folder = tmp_path / "lectures"
    folder.mkdir()
    nbformat.write(with_exercises(), folder / "09_x.ipynb")
    out = tmp_path / "student"
    assert main(["student", str(folder), "--out", str(out)]) == 0
    assert capsys.readouterr().out == ("09_x.ipynb: 2 exercises, 3 solution cells removed, an "
                                       "answer cell after each exercise\n")
    written = nbformat.read(out / "09_x.ipynb", as_version=4)
    assert len(written.cells) == 7
    assert not list(out.glob(".*.part"))


@pytest.mark.parametrize("make, message", [
    (lambda d: d / "absent.ipynb", "no notebook at"),
    (lambda d: (d / "a.ipynb").write_text("not json") and d / "a.ipynb", "is not a notebook"),
])
def test_student_command_refuses_bad_files_in_one_line(tmp_path, capsys, make, message):
    assert main(["student", str(make(tmp_path)), "--out", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "s").exists() or not list((tmp_path / "s").iterdir())


def test_student_command_refuses_an_exercise_without_solution(tmp_path, capsys):
    nbformat.write(with_exercises(solved=False), tmp_path / "09_x.ipynb")
    out = tmp_path / "s"
    assert main(["student", str(tmp_path / "09_x.ipynb"), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == ("error: " + str(tmp_path / "09_x.ipynb") + ": 'Exercise 2 — more' has no "
                   "solution cell right after it; tag its worked solution 'solution' (see "
                   "CONTRIBUTING.md)\n")
    assert not (out / "09_x.ipynb").exists()


def test_student_folder_is_git_ignored():
    result = subprocess.run(["git", "check-ignore", "-q", "student/01_what_is_ssl.ipynb"],
                            cwd=ROOT, check=False)
    assert result.returncode == 0


@pytest.mark.parametrize("path", LECTURES, ids=[p.name for p in LECTURES])
def test_lecture_has_three_exercises_each_with_a_checked_solution(path):
    notebook = nbformat.read(path, as_version=4)
    cells = notebook.cells
    exercises = exercise_indices(notebook)
    assert len(exercises) >= 3
    for i in exercises:
        after = []
        for cell in cells[i + 1:]:
            if not is_solution_cell(cell):
                break
            after.append(cell)
        assert any(c.cell_type == "code" and "nbval-check-output" in c.metadata.get("tags", [])
                   for c in after), cells[i].source.splitlines()[0]
