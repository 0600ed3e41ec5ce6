"""The export control every explorer shows: one button that saves exactly the figure on screen.

The control calls :func:`sslviz.export.save_figure` with the live figure (``fig_getter()``), the
explorer's name and its current parameters (``params_getter()``), at the slide preset chosen in the
dropdown, and then says where it wrote. The callback runs inside ``with output:`` so that an error
is shown in the notebook instead of being lost in the browser console.

A click can reach the kernel before a control value the instructor set just before it: while the
kernel redraws, the widget front end holds a control's next value back (one message per widget
in flight), but sends the click at once. So the export is handed to ``when_settled`` (the
explorer's :meth:`~sslviz.widgets.base.Explorer.when_settled`), which runs it once the figure on
screen stopped changing; the files then show the figure the screen ends with.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

import ipywidgets as widgets

from sslviz.export import figure_basename, save_figure

__all__ = ["FigureNotOnScreen", "export_control"]

class FigureNotOnScreen(RuntimeError):
    """The figure is not the one on screen for the controls' values; nothing may be exported.

    Raised by ``fig_getter`` (e.g. :meth:`sslviz.widgets.base.Explorer.figure_on_screen` after a
    failed update); the export control shows its message in the label, without a traceback.
    """


_PRESET_OPTIONS = [("16:9", "16:9"), ("4:3", "4:3"), ("as on screen", "screen")]


def export_control(
    fig_getter: Callable,
    name: str,
    params_getter: Callable[[], Mapping],
    *,
    output: widgets.Output | None = None,
    folder: str | os.PathLike | None = None,
    description_getter: Callable[[], str] | None = None,
    when_settled: Callable[[Callable[[], None]], None] | None = None,
) -> widgets.HBox:
    """Button + slide-preset dropdown + label that save the figure on screen as PNG/SVG/PDF.

    Parameters
    ----------
    fig_getter : callable () -> matplotlib.figure.Figure
        Returns the live figure object of the explorer (keep a reference when creating it; never
        ``plt.gcf()``, which in a callback is a new, empty figure under the inline backend), or
        raises :class:`FigureNotOnScreen` to refuse the export (its message is shown).
    name : str
        Start of the file names, e.g. ``"04_em_naive_bayes-top_words"``.
    params_getter : callable () -> mapping
        Returns the explorer's current parameters, in the order wanted in the file name.
    output : ipywidgets.Output, optional
        Where errors of the callback are shown (the explorer's error area). Default: a new Output
        placed at the end of the returned box.
    folder : str or Path, optional
        Target folder; default ``$SSLVIZ_FIGURES`` or ``./figures`` (see :mod:`sslviz.export`).
    description_getter : callable () -> str, optional
        Returns the alt text of the figure on screen, stored in the files' metadata.
    when_settled : callable (callable) -> None, optional
        Runs the export it is given once the figure on screen has stopped changing. Default: at
        once.

    Returns
    -------
    ipywidgets.HBox
        Children: the button, the preset dropdown, the label (and the Output if it was created
        here). ``box.controls`` maps ``"button"``, ``"preset"``, ``"label"``, ``"output"`` to them;
        ``box.last_paths`` holds the files written by the last click (empty if it wrote nothing).
    """
    button = widgets.Button(
        description="Export PNG/SVG/PDF",
        icon="download",
        tooltip="Save the figure on screen for slides (PNG, SVG, PDF)",
        layout=widgets.Layout(width="auto"),
    )
    preset = widgets.Dropdown(
        options=_PRESET_OPTIONS,
        value="16:9",
        description="Slide",
        layout=widgets.Layout(width="190px"),
        style={"description_width": "initial"},
    )
    label = widgets.Label(value="")
    label.add_class("sslviz-export-status")
    own_output = output is None
    out = widgets.Output() if own_output else output
    children = [button, preset, label] + ([out] if own_output else [])
    box = widgets.HBox(children, layout=widgets.Layout(align_items="center", flex_flow="row wrap"))
    box.controls = {"button": button, "preset": preset, "label": label, "output": out}
    box.last_paths = []

    def on_click(_button):
        box.last_paths = []
        label.value = "Exporting ..."
        (when_settled or _now)(export)

    def export():
        with out:
            try:
                figure = fig_getter()
            except FigureNotOnScreen as refusal:  # a reason, not a bug: no traceback
                label.value = f"Not exported: {refusal}"
                return
            try:
                params = dict(params_getter() or {})
                chosen = None if preset.value == "screen" else preset.value
                description = description_getter() if description_getter else None
                paths = save_figure(figure, name, params=params, folder=folder, preset=chosen,
                                    description=description)
            except Exception as error:
                label.value = f"Export failed: {type(error).__name__}: {error}"
                raise
            box.last_paths = paths
            base = figure_basename(name, params)
            extensions = ",".join(path.suffix.lstrip(".") for path in paths)
            label.value = f"Saved {base}.{{{extensions}}} in {paths[0].parent.resolve()}"

    button.on_click(on_click)
    return box


def _now(task):
    task()
