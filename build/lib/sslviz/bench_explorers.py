"""How fast every explorer answers a control: ``python -m sslviz.bench explorers [NOTEBOOK ...]``.

Each notebook runs top to bottom in a fresh kernel (as :mod:`sslviz.deck` does); then, inside that
kernel, every live explorer has each of its controls moved the way a class moves it, and the wall
time of each change (the explorer's update *and* the render of its image) is recorded:

* a control that indexes a recorded trace (an ``IntSlider`` with ``continuous_update=True``, e.g.
  the iteration stepper) is a **replay**: it steps through its range and back. Target: 0.1 s, the
  limit under which a change feels immediate.
* any other control (sizes, λ, α, seeds, dropdowns) is a **refit**: it moves to values not shown
  yet (*first visit*) and back to values shown before (*revisit*). Target: 1 s on a first visit.

Between two changes the kernel idles for a moment (``--pause``, default 0.5 s), as it does while a
class looks at the figure: explorers use that time to draw the neighbouring frames ahead.

Times are medians and maxima per explorer and control. Speed is measured here, never asserted in
a test: CI machines are shared.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time

import nbformat

from sslviz.validation import check_int, check_number

REPLAY_TARGET, REFIT_TARGET = 0.1, 1.0
_MARK = "SSLVIZ-BENCH:"


# -- inside the kernel ---------------------------------------------------------------------------
def control_kind(control):
    """``"replay"`` for a live integer slider (it indexes a recorded trace), else ``"refit"``:
    the explorers' own rule (:func:`sslviz.widgets.ahead.replay_controls`)."""
    from sslviz.widgets.ahead import replay_controls

    return "replay" if replay_controls({"control": control}) else "refit"


def visit_plan(control, n_steps=4):
    """Values to set, in order, for one control; each a (value, first visit?) pair.

    Sliders and number boxes step up from their value (down at the top of their range) and come
    back; dropdowns visit their next options and come back. Free text (a word box) and toggles
    get no plan: there is no neighbouring value to try. ``n_steps`` must be at least 1.
    """
    n_steps = check_int("n_steps", n_steps, minimum=1)
    start = control.value
    if isinstance(start, bool) or not (hasattr(control, "options")
                                       or isinstance(start, int | float)):
        return []
    if hasattr(control, "options") and control.options:
        values = [_option_value(option) for option in control.options]
        index = values.index(start)
        forward = [values[(index + k) % len(values)] for k in range(1, min(n_steps, len(values)))]
    else:
        low = getattr(control, "min", start - n_steps)
        high = getattr(control, "max", start + n_steps)
        step = getattr(control, "step", 1) or 1
        direction = 1 if start + step <= high else -1
        forward = [start + direction * step * k for k in range(1, n_steps + 1)
                   if low <= start + direction * step * k <= high]
    seen, plan = {start}, []
    for value in [*forward, *reversed(forward[:-1]), start]:
        plan.append((value, value not in seen))
        seen.add(value)
    return plan


def _option_value(option):
    return option[1] if isinstance(option, tuple) else option


async def measure_explorer(explorer, n_steps=4, pause=0.5):
    """Time every control of one explorer; returns a list of row dicts (the explorer is reset).

    Between two changes the kernel idles for ``pause`` seconds, as it does while a class looks
    at a figure (explorers draw neighbouring frames ahead then).
    """
    rows = []
    for name, control in explorer.controls.items():
        plan = visit_plan(control, n_steps)
        if getattr(control, "disabled", False) or not plan:
            continue
        times = {True: [], False: []}
        for value, first in plan:
            start = time.perf_counter()
            control.value = value
            times[first].append(time.perf_counter() - start)
            await asyncio.sleep(pause)
        explorer.reset()
        await asyncio.sleep(pause)
        rows.append({"explorer": explorer.name, "control": name, "kind": control_kind(control),
                     "first": times[True], "revisit": times[False],
                     "error": None if explorer.last_error is None else str(explorer.last_error)})
    return rows


async def measure_live_explorers(n_steps=4, pause=0.5):
    """:func:`measure_explorer` over every explorer alive in this kernel."""
    from sslviz.widgets import live_explorers

    rows = []
    for explorer in live_explorers():
        rows += await measure_explorer(explorer, n_steps, pause)
    return rows


# -- outside: run the notebooks, collect, tabulate -----------------------------------------------
def _bench_cell(n_steps, pause):
    return nbformat.v4.new_code_cell(  # top-level await: the kernel's loop runs while it waits
        "import json as _json\n"
        "from sslviz.bench_explorers import measure_live_explorers as _measure\n"
        f"print({_MARK!r} + _json.dumps(await _measure({n_steps}, {pause})))\n")


def bench_notebooks(notebooks=None, *, n_steps=4, pause=0.5, timeout=1800, progress=True):
    """Run each notebook and measure its explorers; returns rows with a ``notebook`` key."""
    check_int("n_steps", n_steps, minimum=1)
    check_number("pause", pause, minimum=0)
    from pathlib import Path

    from tqdm.auto import tqdm

    from sslviz.deck import default_notebooks, run_with_final_cell

    paths = [Path(p) for p in (default_notebooks() if notebooks is None else notebooks)]
    rows = []
    for path in tqdm(paths, desc="notebooks", disable=not progress):
        cell = run_with_final_cell(path.resolve(), _bench_cell(n_steps, pause), timeout=timeout)
        for row in _marked_json(cell):
            rows.append({"notebook": path.stem, **row})
    return rows


def _marked_json(cell):
    for output in cell.get("outputs", []):
        for line in output.get("text", "").splitlines():
            if line.startswith(_MARK):
                return json.loads(line[len(_MARK):])
    raise RuntimeError("the benchmark cell printed no measurements")


def format_explorer_table(rows):
    """The table: per explorer and control, median and max of first visits and revisits (ms)."""
    header = (f"{'explorer':44} {'control':18} {'kind':6} {'first med':>9} {'first max':>9} "
              f"{'again med':>9} {'again max':>9} {'target':>7}  ok")
    lines = [header, "-" * len(header)]
    for row in rows:
        target = REPLAY_TARGET if row["kind"] == "replay" else REFIT_TARGET
        times = row["first"] if row["kind"] == "refit" else row["first"] + row["revisit"]
        checked = statistics.median(times) if times else float("nan")
        cells = [_ms(row["first"], statistics.median), _ms(row["first"], max),
                 _ms(row["revisit"], statistics.median), _ms(row["revisit"], max)]
        if row["error"]:
            verdict = "error"
        elif not row["first"]:  # no value was changed to: nothing measured, never "yes"
            verdict = "not measured"
        else:
            verdict = "yes" if checked <= target else "NO"
        lines.append(f"{row['explorer'][:44]:44} {row['control'][:18]:18} {row['kind']:6} "
                     + " ".join(f"{c:>9}" for c in cells) + f" {target * 1000:>5.0f}ms  {verdict}")
    return "\n".join(lines)


def _ms(values, statistic):
    return f"{statistic(values) * 1000:.0f}" if values else "-"
