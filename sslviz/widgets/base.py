"""The explorer shell every lecture widget uses: controls, one figure, a caption, export, errors.

An :class:`Explorer` owns one matplotlib ``Figure`` (created once, never through pyplot), shows it
as a PNG in an ``ipywidgets.Image`` and redraws it whenever a control changes: the explorer's
``update(values)`` edits the artists, then the figure is rendered again. After every redraw the
caption states the parameters on screen (browser tests wait for it), and the export control saves
exactly this figure. An error in an update is shown under the figure, not lost.
"""

from __future__ import annotations

import html
import io
import time

import ipywidgets as widgets

from .export_control import export_control


class Explorer(widgets.VBox):
    """A figure wired to controls. Drive it from code with ``explorer.controls[name].value = v``.

    Parameters
    ----------
    name : str
        Start of exported file names, e.g. ``"04_em_naive_bayes-top_words"``.
    figure : matplotlib.figure.Figure
    controls : dict of str -> ipywidgets.ValueWidget
        Shown in this order; each change triggers ``update``.
    update : callable (dict of current values) -> None
        Changes the figure's artists for the given control values.
    extra_controls : list of widgets, optional
        Shown beside the controls but not observed (e.g. a Play button linked to a slider).
    dpi : int
        Resolution of the on-screen image.
    """

    def __init__(self, name, figure, controls, update, *, extra_controls=(), dpi=90):
        self.name = name
        self.figure = figure
        self.controls = dict(controls)
        self._update = update
        self._dpi = dpi
        self.image = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
        self.caption = widgets.Label()
        self.error = widgets.HTML()
        self.last_error = None
        self.redraw_seconds = float("nan")
        self._layout_frozen = False
        self._drawing = False
        self.export = export_control(lambda: self.figure, name, self.params)
        control_box = widgets.HBox(list(extra_controls) + list(self.controls.values()),
                                   layout=widgets.Layout(flex_flow="row wrap"))
        super().__init__([control_box, self.image, self.caption, self.error, self.export])
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self.redraw()

    def values(self):
        """Current value of every control, by name."""
        return {key: control.value for key, control in self.controls.items()}

    def params(self):
        """The parameters that name an exported figure (default: every control's value)."""
        return self.values()

    def redraw(self):
        """Update the artists for the current values, render the figure, refresh the caption."""
        start = time.perf_counter()
        self._drawing = True
        try:
            self._update(self.values())
            self.image.value = self._render()
        except Exception as error:  # shown to the student; kept for tests
            self.last_error = error
            self.error.value = (f"<span style='color:#b00'><b>{type(error).__name__}</b>: "
                                f"{html.escape(str(error))}</span>")
            return
        finally:
            self._drawing = False
        self.last_error = None
        self.error.value = ""
        self.caption.value = self.describe()
        self.redraw_seconds = time.perf_counter() - start

    def describe(self):
        """Caption text: the parameters shown, ``name=value`` separated by commas."""
        return ", ".join(f"{key}={_short(value)}" for key, value in self.params().items())

    def _on_change(self, _change):
        if self._drawing:  # a control adjusted by ``update`` itself (e.g. a slider's max)
            return
        self.redraw()

    def _render(self):
        buffer = io.BytesIO()
        self.figure.savefig(buffer, format="png", dpi=self._dpi,
                            pil_kwargs={"compress_level": 1})
        if self.figure.get_layout_engine() is not None and not self._layout_frozen:
            # The layout engine draws the figure once more on every save; after the first
            # render the axes keep their places, so later (replay) redraws skip that pass.
            self.figure.set_layout_engine("none")
            self._layout_frozen = True
        return buffer.getvalue()


def _short(value):
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)
