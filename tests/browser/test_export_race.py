"""The export button saves the figure the instructor ends up seeing, even mid-redraw; what Run All
does to the worked solutions' folding.

A small notebook of the test's own (in the server's temporary folder, never in the repository)
shows an explorer whose update takes ``SLOW_S`` seconds, as a refit does on a loaded machine, and
whose frames differ everywhere (the axes' colour alternates, a bar grows, the step is written in
large type). The test presses the slider's arrow key three times and clicks Export at once: while
the kernel redraws the first new value, the widget front end holds the later values back (one
message of a widget in flight at a time), but the click is sent at once and reaches the kernel
before them; and JupyterLab may hand widget messages to a kernel subshell, another thread, while
the main one draws frames ahead. Then it compares the exported PNG, scaled to the size on screen,
with the PNG the browser shows once the explorer has settled, pixel by pixel; and the file's name
with the caption.
"""

from __future__ import annotations

import base64
import re
import time
from pathlib import Path

import nbformat
import pytest
from helpers import PATIENCE_S

from sslviz.slides import apply_slides

from .test_classroom import MATCH_LIMIT, SAVED, SHOWN_PNG_JS, png_difference, run_all_cells

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SLOW_S = 1.0
SETTLED_S = 3.0  # the caption unchanged this long, after the export: the explorer is at rest

EXPLORER_CELL = f"""\
import time
from sslviz.widgets.base import Explorer, iteration_control, new_figure

slider, play = iteration_control(12, description="step")
with new_figure((8, 4)) as figure:
    ax = figure.add_subplot()
    ax.set_xlim(0, 12)
    ax.set_ylim(0, 1)
    ax.set_yticks([])
    bar = ax.barh([0.5], [0], height=0.6, color="black")[0]
    text = ax.text(6, 0.5, "", ha="center", va="center", fontsize=60, color="#d55e00")

def update(values):
    time.sleep({SLOW_S})  # a refit on a loaded machine
    step = values["step"]
    ax.set_facecolor("white" if step % 2 else "#0072b2")
    bar.set_width(step)
    text.set_text(str(step))

explorer = Explorer("export-race", figure, {{"step": slider}}, update, extra_controls=[play])
explorer
"""

def write_notebook(path, cells):
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                       "language": "python"}
    nbformat.write(notebook, path)


def open_and_run(page, lab, name):
    lab.open(page, name, workspace=Path(name).stem)
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=PATIENCE_S * 1000)
    state = run_all_cells(page)
    assert not state["errors"], state["errors"][0][-3000:]


def shown_png(figure):
    return base64.b64decode(figure.evaluate(SHOWN_PNG_JS))


def wait_until_settled(caption, readout):
    """Wait until the caption shows the slider's value and stays unchanged ``SETTLED_S``."""
    deadline = time.monotonic() + PATIENCE_S
    last, since = None, time.monotonic()
    while time.monotonic() < deadline:
        text = caption.inner_text().strip()
        if text != last:
            last, since = text, time.monotonic()
        elif (text == f"step={readout.inner_text().strip()}"
              and time.monotonic() - since > SETTLED_S):
            return text
        time.sleep(0.2)
    pytest.fail(f"the explorer did not settle: caption {last!r}")


def test_the_export_is_the_figure_on_screen_after_moves_during_a_redraw(page, lab, tmp_path):
    write_notebook(lab.root / "export_race.ipynb", [nbformat.v4.new_code_cell(EXPLORER_CELL)])
    open_and_run(page, lab, "export_race.ipynb")
    explorer = page.locator(".sslviz-explorer")
    figure = explorer.locator("img.sslviz-figure")
    caption, export = explorer.locator(".sslviz-caption"), explorer.locator(".sslviz-export")
    readout = explorer.locator(".sslviz-main .widget-readout")
    figure.wait_for()
    explorer.scroll_into_view_if_needed()
    export.locator("select").select_option(label="as on screen")  # comparable sizes
    wait_until_settled(caption, readout)  # drawing ahead done: the kernel answers at once
    before = shown_png(figure)

    handle = explorer.locator(".sslviz-main .noUi-handle")
    handle.focus()
    for _ in range(3):
        handle.press("ArrowRight")
    export.locator("button").click()

    label = export.locator(".sslviz-export-status")
    label.filter(has_text=re.compile(r"^(Saved|Export failed|Not exported)")).wait_for(
        timeout=PATIENCE_S * 1000)
    saved = SAVED.match(label.inner_text().strip())
    assert saved, f"export did not succeed: {label.inner_text()}"
    shown_caption = wait_until_settled(caption, readout)
    after = shown_png(figure)
    assert shown_caption == "step=3"
    (tmp_path / "after.png").write_bytes(after)
    assert png_difference(before, tmp_path / "after.png") > 4 * MATCH_LIMIT, (
        "the test's frames must differ clearly")

    exported = Path(saved["folder"]) / f"{saved['base']}.png"
    assert saved["base"] == "export-race__step-3", (
        f"exported {saved['base']} while the screen shows {shown_caption}")
    assert png_difference(after, exported) < MATCH_LIMIT
    assert not [p.name for p in exported.parent.iterdir() if p.name.startswith(".")], (
        "a temporary file of the export was left behind")


SOLUTION_CELLS = [
    nbformat.v4.new_markdown_cell("## Exercises\n\n### Exercise 1 — a sum\n\nPredict 2 + 2."),
    nbformat.v4.new_code_cell("print('the answer is', 2 + 2)",
                              metadata={"tags": ["solution", "nbval-check-output"]}),
    nbformat.v4.new_markdown_cell("The reasoning:\n\ntwo and two make four.",
                                  metadata={"tags": ["solution"]}),
]

FOLDED_JS = """() => {
    const cells = [...document.querySelectorAll('.jp-NotebookPanel .jp-Cell')];
    return cells.map(cell => ({
        input_folded: !!cell.querySelector('.jp-InputPlaceholder'),
        text: cell.innerText,
    }));
}"""


def test_solutions_are_folded_on_opening_and_run_all_unfolds_all_but_their_code(page, lab):
    """What the lectures say of their worked solutions holds in JupyterLab, with the metadata
    ``python -m sslviz execute``/``slides`` writes: folded when the notebook opens; running a
    cell shows its output and renders a markdown cell unfolded, so after Run All only the
    solutions' code stays folded."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1"),
                                               *SOLUTION_CELLS])
    apply_slides(notebook)
    cells = [cell for cell in notebook.cells
             if "hosted-setup" not in cell.metadata.get("tags", [])]
    write_notebook(lab.root / "folded.ipynb", cells)
    lab.open(page, "folded.ipynb", workspace="folded")
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=PATIENCE_S * 1000)
    page.locator(".jp-NotebookPanel .jp-Cell").nth(3).wait_for()
    opened = page.evaluate(FOLDED_JS)
    assert [cell["input_folded"] for cell in opened] == [False, False, True, True]
    state = run_all_cells(page)
    assert not state["errors"], state["errors"][0][-3000:]
    ran = page.evaluate(FOLDED_JS)
    assert [cell["input_folded"] for cell in ran] == [False, False, True, False]
    assert ran[2]["text"].strip().endswith("the answer is 4")
    assert "two and two make four" in ran[3]["text"]

