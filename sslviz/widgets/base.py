"""The explorer shell every lecture widget uses: controls, one figure, a caption, export, errors.

An :class:`Explorer` owns one matplotlib ``Figure`` (created once, never through pyplot), shows it
as a PNG in an ``ipywidgets.Image`` and redraws it whenever a control changes: the explorer's
``update(values)`` edits the artists, then the figure is rendered again. After every redraw the
caption states the parameters on screen (browser tests wait for it), and the export control saves
exactly this figure, once it has stopped changing (:meth:`Explorer.when_settled`). An error in an
update is shown under the figure, not lost. Widget messages may arrive in another thread than the
kernel's main one (JupyterLab sends them on a subshell while the main one is busy), so one lock
per explorer keeps every change of its figure, and every export, whole.

Browser tests and the figure-export command find explorers by CSS classes: the explorer box has
``sslviz-explorer``, its main control (the one a lecture drags first: the labeled-set size where
there is one, else the iteration stepper) ``sslviz-main``, the figure ``sslviz-figure``, the
caption ``sslviz-caption``, the error area ``sslviz-error`` and the export control
``sslviz-export``. A control whose description would not fit ipywidgets' label width is given the
width of its text (:func:`fit_descriptions`), so that no label is cut on screen or on a slide.
Every explorer created in a kernel is remembered (weakly) so that :func:`export_explorers` can
save them all.

The projector style (:func:`sslviz.export.use_projector_style`) is read when an explorer is
created; its factory draws the figure inside :func:`sslviz.export.style_context`, and every later
redraw of that explorer runs in the same style.

What ``update(values)`` must do
-------------------------------
The explorer calls ``update`` not only for the values on screen but for frames drawn ahead along
the replay controls (values the controls do not hold), to put the figure back after a failed
update, and before an export. Hence one rule: **after** ``update(values)`` **the figure shows**
``values`` **whatever it showed before**; the picture depends on ``values``, never on which calls
came first. ``update`` never schedules work (that is ``prepare``'s job), never adjusts a control
and never reads one. Two hooks of :class:`Explorer` carry what a stepper needs beyond that:

* ``ranges`` -- **limits that depend on other controls** (the iteration slider of a run that
  stopped early; a word's seed sets in 03; a corpus's label sizes in 05's vocabulary and 09's
  tables): a function per control, of the values, that returns the control's options or its
  ``(lowest, highest)`` value. The explorer applies them in order before every update (each
  sees the values the earlier ones made valid, so a word's seed sets come before the iteration
  limit of the run they choose), clamps the values, and hands ``update`` only valid values; the
  change events this causes in the controls are not redrawn again, and the caption and export
  read the controls after it. A Play button of :func:`iteration_control` follows its slider.
* ``setup`` -- **artists drawn once per setting** (a run's curves, a map's points: what the
  refit controls change, while a replay control only moves them): :class:`PerSetting` ``(on,
  draw)`` names the controls the artists are drawn from, and ``draw`` sees only those values,
  so the key of what is kept cannot leave one out. The explorer draws them again when one of
  those values changes, for the frame on screen as for frames drawn ahead, and passes the
  results to ``update(values, drawn)``.

Explorers without either (``widgets/what_is_ssl.py``, ``widgets/fisher.py``,
``widgets/model_selection.py``) make their artists when the figure is built, or clear the axes
and draw again; ``update`` only looks up cached results and sets them. Compute everything that
may fail before the first artist changes: a failed update then leaves the figure as it was, and
the restore (``update`` again, with the values on screen) has nothing half-done to undo; a setup
that fails is drawn again by that restore. The pattern a new stepper explorer copies (``runs``
is a cached fit per seed, ``plot_curves`` and ``update_marker`` stand for the lecture's plot
functions)::

    iteration, play = iteration_control(len(runs(seed).model.trace_) - 1)
    controls = {"iteration": iteration, "seed": seed_control(seed)}

    def iterations(values):  # the slider ends at the run's last iteration
        return 0, len(runs(values["seed"]).model.trace_) - 1

    def draw_curves(values):  # once per seed; sees only the seed
        return plot_curves(curve_ax, runs(values["seed"]))

    def update(values, drawn):  # values["iteration"] is within the run
        update_marker(drawn["curves"], values["iteration"])  # the replay: move artists only

    explorer = Explorer(name, figure, controls, update, extra_controls=[play],
                        ranges={"iteration": iterations},
                        setup={"curves": PerSetting(("seed",), draw_curves)})

``tests/test_explorer_base.py`` drives this very pattern (one redraw per change, limits set before
the update, the same picture whatever the order of visits).
"""

from __future__ import annotations

import contextlib
import html
import io
import re
import threading
import time
import weakref
from collections.abc import Callable
from functools import lru_cache, partial
from typing import NamedTuple

import ipywidgets as widgets
import matplotlib as mpl
import traitlets
from ipywidgets.widgets.widget_description import DescriptionWidget
from matplotlib.figure import Figure

from ..export import (
    format_value,
    projector_style,
    projector_style_enabled,
    save_figure,
    style_context,
)
from ..threads import one_thread
from .ahead import (
    BackgroundWork,
    Frames,
    IdleWork,
    call_when_idle,
    frame_key,
    neighbouring_values,
    option_values,
    refit_controls,
    replay_controls,
)
from .export_control import FigureNotOnScreen, export_control
from .static import alt_text, static_bundle

MAIN_CONTROL_PREFERENCE = ("n_labeled", "iteration")
_NO_AUTOMATIC_LAYOUT = {"figure.autolayout": False, "figure.constrained_layout.use": False}
DRAW_AHEAD = 6
"""Frames drawn ahead around the one on screen (three steps each way along a replay slider):
enough to stay ahead of Play and of a drag, few enough that an idle kernel is soon idle again."""
EXPORT_SETTLE_S = 0.5
"""An export waits until the figure on screen has not changed for this long (seconds): a control
value the widget front end held back during a redraw, sent once the kernel is idle, arrives well
within it (see :mod:`sslviz.widgets.export_control`)."""
EXPORT_MAX_WAITS = 40
"""After this many waits (20 s) an export runs whatever the figure shows: it exports, or refuses
with the reason (:meth:`Explorer.figure_on_screen`), instead of waiting for ever."""
PREPARE_AHEAD = 6
"""Settings prepared ahead along the refit controls: up to three further the way the last change
went, then one step each way along every control of ``prepare_along``, then two..."""
DESCRIPTION_PX = 80
"""ipywidgets' label width (``--jp-widgets-inline-label-width``), in CSS pixels."""
DESCRIPTION_FONT_PX = 13
"""The widgets' font size (``--jp-widgets-font-size``), in CSS pixels."""
_DESCRIPTION_MARGIN_PX = 10  # the label's right padding and a little slack
_LIVE = weakref.WeakValueDictionary()  # creation order -> explorer
_PLAYS = weakref.WeakKeyDictionary()  # slider of iteration_control -> its Play button
_created = 0


class Explorer(widgets.VBox):
    """A figure wired to controls. Drive it from code with ``explorer.controls[name].value = v``.

    Parameters
    ----------
    name : str
        Start of exported file names, e.g. ``"04_em_naive_bayes-top_words"``.
    figure : matplotlib.figure.Figure
    controls : dict of str -> ipywidgets.ValueWidget
        Shown in this order; each change triggers ``update``.
    update : callable (dict of control values[, dict of setups' results]) -> None
        Changes the figure's artists so that it shows these values, whatever it showed before
        (see "What ``update(values)`` must do" above; it never schedules work nor adjusts a
        control). The explorer calls it for the frame on screen, for frames drawn ahead, to
        restore the figure after a failed update and before an export. With ``setup`` it is
        called as ``update(values, drawn)``, ``drawn`` holding each setup's result by name.
    ranges : dict of str -> callable (dict of control values) -> limits, optional
        The limits of controls that depend on other controls' values: for a control with
        ``options``, its options (a list); for a number, its ``(lowest, highest)`` value (a Play
        button linked by :func:`iteration_control` follows). Applied in this order before every
        update, each function seeing the values the earlier ones made valid; a value outside
        its new limits is clamped (a number) or becomes the first option, in the control and in
        the values ``update`` gets.
    setup : dict of str -> PerSetting, optional
        Artists drawn once per setting (:class:`PerSetting`): drawn again only when one of the
        values they declare changed; their results are handed to ``update``.
    prepare : callable (dict of control values) -> iterable of steps, optional
        Work that makes a later visit of these values fast (refits, cached): a generator whose
        every ``next`` is one small step. After each redraw the explorer calls it for the
        neighbouring values along the refit controls (:mod:`sslviz.widgets.ahead`) and runs the
        steps while the kernel idles. Frames along replay controls need no hook.
    prepare_along : sequence of str, optional
        The refit controls ``prepare`` serves, in the order they matter (default: every refit
        control, in the order of ``controls``); leave out those a class rarely moves.
    prepare_in_background : bool, default=False
        Run ``prepare`` in one background thread instead, whole, for work that cannot be cut
        into steps; share its results with ``update`` through a thread-safe memo
        (:class:`sslviz._memo.Once`).
    extra_controls : list of widgets, optional
        Shown beside the controls but not observed (e.g. a Play button linked to a slider).
    main : str, optional
        Name of the main control (marked for browser tests). Default: ``"n_labeled"`` if there is
        one, else ``"iteration"``, else the first control.
    dpi : int
        Resolution of the on-screen image.
    """

    def __init__(self, name, figure, controls, update, *, ranges=None, setup=None,
                 prepare=None, prepare_along=None, prepare_in_background=False,
                 extra_controls=(), main=None, dpi=90):
        global _created
        self.name = name
        self.figure = figure
        self.controls = dict(controls)
        self.main = _main_control(self.controls, main)
        self.projector = projector_style_enabled()
        self._update = update
        self._ranges = _checked_hooks("ranges", ranges, self.controls)
        self._setups = _checked_setups(setup, self.controls)
        self._drawn = {}  # setup name -> (the values it was drawn for, its result)
        self._dpi = dpi
        self.image = DescribedImage(format="png", layout=widgets.Layout(max_width="100%"))
        self.caption = widgets.Label()
        self.error = widgets.HTML()
        self.last_error = None
        self.redraw_seconds = float("nan")
        self._layout_frozen = False
        # Widget messages may be handled in another thread than the kernel's main one (JupyterLab
        # sends them on a subshell while the main one is busy): one lock keeps every change of the
        # figure (redraw, frame drawn ahead, restore, export) whole; ``_drawing`` is the thread
        # whose update runs, so that a control the update itself adjusts is not redrawn again.
        self._lock = threading.RLock()
        self._drawing = None
        self._shown_values = None  # control values of the image on screen
        self._figure_values = None  # control values the figure's artists show now
        self._frames = Frames()
        self._replay = replay_controls(self.controls)
        self._ahead = 0  # number of the current chain of frames drawn ahead
        self._prepare = prepare
        self._prepare_along = (refit_controls(self.controls) if prepare_along is None
                               else tuple(prepare_along))
        self.ahead = BackgroundWork() if prepare_in_background else IdleWork()
        self._redraws = 0  # redraws so far: an export waits until this stops changing
        self.export = export_control(self.figure_on_screen, name, self.params,
                                     description_getter=self.alt_text,
                                     when_settled=self.when_settled)
        fit_descriptions(list(extra_controls) + list(self.controls.values()))
        control_box = widgets.HBox(list(extra_controls) + list(self.controls.values()),
                                   layout=widgets.Layout(flex_flow="row wrap"))
        super().__init__([control_box, self.image, self.caption, self.error, self.export])
        self.add_class("sslviz-explorer")
        self.controls[self.main].add_class("sslviz-main")
        self.image.add_class("sslviz-figure")
        self.caption.add_class("sslviz-caption")
        self.error.add_class("sslviz-error")
        self.export.add_class("sslviz-export")
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self.initial_values = self.values()
        self.redraw()
        _created += 1
        _LIVE[_created] = self

    def values(self):
        """Current value of every control, by name."""
        return {key: control.value for key, control in self.controls.items()}

    def reset(self):
        """Put every control back to the value it had when the explorer was created."""
        for key, value in self.initial_values.items():
            self.controls[key].value = value

    def params(self):
        """The parameters that name an exported figure (default: every control's value)."""
        return self.values()

    def redraw(self):
        """Show the figure for the current values, refresh the caption.

        ``update`` edits the artists (cheap: it replays or looks up what was computed); the
        figure is then rendered (the costly part), unless a frame for these very values was
        rendered before and is still kept. Then frames next to this one along the replay
        controls are drawn ahead when the kernel idles.

        If the update fails, the error is shown under the figure and everything else keeps
        describing the figure on screen: the image is not re-rendered, the caption still names
        the values it shows, and the figure's artists are put back to those values (the update
        is run again with them), so that the next update starts from the state the image shows.
        The controls keep the value the student chose (a typo stays in its box to be corrected),
        and :meth:`figure_on_screen` refuses to export until the controls and the figure agree.
        """
        with self._lock:
            self._redraw()

    def _redraw(self):
        start = time.perf_counter()
        self._redraws += 1
        values = self.values()
        self._drawing = threading.get_ident()
        try:
            self.image.value = self._draw(values)
        except Exception as error:  # shown to the student; kept for tests
            self.last_error = error
            self.error.value = (f"<span style='color:#b00'><b>{type(error).__name__}</b>: "
                                f"{html.escape(str(error))}</span>")
            self._restore_shown_figure()
            return
        finally:
            self._drawing = None
        self.last_error = None
        self.error.value = ""
        # an update may adjust a control it depends on (a dropdown given the options of a new
        # word): the figure shows the values after that
        values = self.values()
        self._figure_values = dict(values)
        previous, self._shown_values = self._shown_values, values
        self.caption.value = self.describe()
        self.image.tooltip = self.alt_text()  # its accessible name: what the figure shows
        self.redraw_seconds = time.perf_counter() - start
        self._ahead += 1
        self._draw_ahead(self._ahead, previous)
        self._prepare_ahead(values, previous)

    def _draw(self, values):
        """Update the artists for ``values``; render them unless a kept frame has these values.

        Returns the PNG (kept for later visits).
        """
        self._figure_values = None  # half-updated until the update succeeds
        with self._style():
            values = self._show(values)
            self._figure_values = dict(values)
            png = self._frames.get(frame_key(values))
            if png is None:
                png = self._render()
                self._frames.put(frame_key(values), png)
        return png

    def _draw_ahead(self, chain, previous=None):
        """Render one not yet rendered neighbouring frame, then schedule the next (idle time)."""
        if chain != self._ahead or self._shown_values is None:
            return
        todo = [v for v in neighbouring_values(self.controls, self._shown_values, self._replay,
                                               previous=previous, limit=DRAW_AHEAD)
                if frame_key(v) not in self._frames]
        if todo:
            call_when_idle(lambda: self._draw_one_ahead(chain, todo[0], previous))

    def _draw_one_ahead(self, chain, values, previous):
        with self._lock:
            if chain != self._ahead:
                return
            self._drawing = threading.get_ident()
            try:
                self._draw(values)
                self._show_artists_of_screen()
            except Exception:  # drawing ahead is an optimisation: the visit will show the error
                return
            finally:
                self._drawing = None
            self._draw_ahead(chain, previous)

    def _prepare_ahead(self, values, previous):
        """Hand ``prepare`` the neighbouring values along the refit controls (see ``prepare``)."""
        if self._prepare is None:
            return
        todo = neighbouring_values(self.controls, values, self._prepare_along,
                                   previous=previous, limit=PREPARE_AHEAD)
        if isinstance(self.ahead, BackgroundWork):
            self.ahead.start(partial(_exhaust, self._prepare, other) for other in todo)
        else:
            self.ahead.start(_steps(self._prepare, other) for other in todo)

    def _show_artists_of_screen(self):
        """Put the figure's artists back to the values of the image on screen (after frames
        were drawn ahead, after a failed update, before an export)."""
        with self._style():
            self._show(self._shown_values)
        self._figure_values = dict(self._shown_values)

    def _show(self, values):
        """Make the artists show ``values``: the limits of ``ranges``, then the setups whose
        values changed, then ``update`` (with one BLAS thread, as every fit of the package).
        Returns the values drawn (those ``ranges`` made valid)."""
        with one_thread():
            values = self._within_ranges(dict(values))
            if not self._setups:
                self._update(dict(values))
                return values
            self._update(dict(values), self._set_up(values))
        return values

    def _within_ranges(self, values):
        """Give every control of ``ranges`` its limits for ``values``; the values, made valid."""
        for name, limits_of in self._ranges.items():
            values[name] = set_limits(self.controls[name], limits_of(dict(values)), values[name])
        return values

    def _set_up(self, values):
        """Each setup's result for ``values``, drawn again where a value it declares changed.

        A setup's key is forgotten before it draws and set once it has drawn: after a failure
        the restoring update draws it again for the values on screen."""
        results = {}
        for name, setup in self._setups.items():
            key = tuple(values[on] for on in setup.on)
            if name not in self._drawn or self._drawn[name][0] != key:
                self._drawn.pop(name, None)
                drawn = setup.draw({on: values[on] for on in setup.on})
                self._drawn[name] = (key, drawn)
            results[name] = self._drawn[name][1]
        return results

    def _restore_shown_figure(self):
        """After a failed update, put the artists back to the values of the image on screen.

        The controls keep the values the student chose: any control the restoring update moved
        (e.g. a dropdown given another corpus's options) is set back, without a redraw.
        """
        if self._shown_values is None:
            return
        chosen = self.values()
        self._drawing = threading.get_ident()
        try:
            self._show_artists_of_screen()
        except Exception:  # the figure stays half-redrawn; it is never exported as it is
            self._shown_values = self._figure_values = None
        finally:
            for key, value in chosen.items():
                if self.controls[key].value != value:
                    with contextlib.suppress(Exception):
                        self.controls[key].value = value
            self._drawing = None

    def figure_on_screen(self):
        """The figure, if it is the one of the controls' current values; else a
        :class:`FigureNotOnScreen` error (a ``RuntimeError``) that says why.

        After a failed update the controls hold values the image does not show (and the figure
        may have been half-redrawn before it was restored): exporting it would put a figure that
        was never on screen, named after values it does not show, on a slide.
        """
        with self._lock:
            return self._figure_on_screen()

    def _figure_on_screen(self):
        if self.last_error is not None or self._shown_values != self.values():
            reason = (f"the last update failed ({type(self.last_error).__name__}: "
                      f"{self.last_error})" if self.last_error is not None
                      else "the controls changed since it was drawn")
            raise FigureNotOnScreen(f"not exporting {self.name}: the figure does not match the "
                                    f"controls, because {reason}. Change the control back to a "
                                    "valid value, then export.")
        if self._figure_values != self._shown_values:  # frames were drawn ahead since
            self._drawing = threading.get_ident()
            try:
                self._show_artists_of_screen()
            finally:
                self._drawing = None
        return self.figure

    def when_settled(self, task):
        """Run ``task`` (an export) once no redraw has happened for :data:`EXPORT_SETTLE_S` and
        none is waiting (a value set in another thread, its redraw waiting for the lock).

        The kernel runs it between messages, as it draws frames ahead; where no event loop runs
        (tests, scripts) it runs at once. It runs holding the figure's lock: no redraw, in this
        thread or another, changes the figure while it is saved.
        """
        seen, waits = self._redraws, 0

        def check():
            nonlocal seen, waits
            with self._lock:
                # a value set in another thread whose redraw waits for this lock: not settled
                pending = self.last_error is None and self._shown_values != self.values()
                if (self._redraws == seen and not pending) or waits >= EXPORT_MAX_WAITS:
                    task()
                    return
                seen, waits = self._redraws, waits + 1
            call_when_idle(check, EXPORT_SETTLE_S)

        if not call_when_idle(check, EXPORT_SETTLE_S):
            with self._lock:
                task()

    def describe(self):
        """Caption text: the parameters shown, ``name=value`` separated by commas."""
        return ", ".join(f"{key}={_short(value)}" for key, value in self.params().items())

    def figure_description(self):
        """What the figure shows, in one line, for its alt text; ``None``: built from the name
        and the figure's titles. Override where an explorer can say it better."""
        return None

    def alt_text(self):
        """One line naming what the figure shows and the control values on screen."""
        return alt_text(self.name, self.figure, self.describe(), self.figure_description())

    def _repr_mimebundle_(self, **kwargs):
        """The widget view, plus the picture on screen and its alt text for renderers without a
        kernel (see :mod:`sslviz.widgets.static`)."""
        data = super()._repr_mimebundle_(**kwargs) or {}
        static, metadata = static_bundle(self.image.value, self.alt_text())
        return {**data, **static}, metadata

    def _style(self):
        if self.projector:
            return mpl.rc_context(projector_style())
        return contextlib.nullcontext()

    def _on_change(self, _change):
        if self._drawing == threading.get_ident():  # adjusted by ``update`` itself (a max)
            return
        self.redraw()

    def _render(self):
        buffer = io.BytesIO()
        # A layout engine, even the placeholder "none", makes every save draw the figure once
        # more first. After the first render the axes keep their places, so the engine goes:
        # None, with the rcParams that would bring one back (also as a save restores it) off.
        with mpl.rc_context(_NO_AUTOMATIC_LAYOUT):
            if self._layout_frozen:
                self.figure.set_layout_engine(None)
            self.figure.savefig(buffer, format="png", dpi=self._dpi,
                                pil_kwargs={"compress_level": 1})
            self.figure.set_layout_engine(None)
        self._layout_frozen = True
        return buffer.getvalue()


class PerSetting(NamedTuple):
    """Artists drawn once per setting, for :class:`Explorer`'s ``setup``.

    ``draw(values)`` draws them and returns what ``update`` needs to change them (artists, a
    dict); ``values`` holds only the controls named in ``on``, so that the key of what is drawn
    holds every value it was drawn from: reading any other raises ``KeyError``. The explorer
    calls it again whenever one of those values changes (and never for a replay control it
    does not name).
    """

    on: tuple
    draw: Callable


def _checked_hooks(what, hooks, controls):
    """``hooks`` (a dict by control name, or ``None``) after checking that the names exist."""
    hooks = dict(hooks or {})
    unknown = [name for name in hooks if name not in controls]
    if unknown:
        raise ValueError(f"{what} names {unknown}, which are not controls of the explorer; "
                         f"its controls are {list(controls)}")
    return hooks


def _checked_setups(setups, controls):
    setups = dict(setups or {})
    for name, setup in setups.items():
        if not isinstance(setup, PerSetting):
            raise TypeError(f"setup {name!r} must be a PerSetting(on, draw), not "
                            f"{type(setup).__name__}")
        _checked_hooks(f"setup {name!r}", dict.fromkeys(setup.on), controls)
    return setups


def set_limits(control, limits, value):
    """Give ``control`` its ``limits`` (options, or a number's ``(lowest, highest)``) and return
    ``value`` made valid for them: kept if it is among the options, else the first option; a
    number clamped. The control's own value is made valid too (it raises no redraw when an
    update is drawing); a Play button linked by :func:`iteration_control` takes the same limits.
    """
    if hasattr(control, "options"):
        options = list(limits)
        if not options:
            raise ValueError(f"the ranges of the control {control.description!r} gave no "
                             "options: return at least one")
        if list(control.options) != options:
            keep = control.value
            control.options = options
            valid = option_values(control)
            control.value = keep if keep in valid else valid[0]
        valid = option_values(control)
        return value if value in valid else valid[0]
    low, high = limits
    if low > high:
        raise ValueError(f"the ranges of the control {control.description!r} gave the lowest "
                         f"value {low} above the highest {high}: return (lowest, highest)")
    for widget in (control, _PLAYS.get(control)):
        if widget is None:
            continue
        if low > widget.max:  # never a moment with min > max
            widget.max, widget.min = high, low
        else:
            widget.min, widget.max = low, high
    return min(max(value, low), high)


def _steps(prepare, values):
    """``prepare(values)``'s steps, started only when the first one is asked for."""
    yield from prepare(dict(values)) or ()


def _exhaust(prepare, values):
    for _ in prepare(dict(values)) or ():
        pass


def _short(value):
    """Caption text of a value; numbers read as in exported file names (3 significant digits)."""
    if isinstance(value, str):
        return value
    return format_value(value) if isinstance(value, (int, float)) else str(value)


class DescribedImage(widgets.Image):
    """An ``Image`` whose ``tooltip`` (the explorer's alt text) becomes the ``title`` of the
    ``<img>``, its accessible name: a screen reader reads it, as it reads an ``alt``.

    ipywidgets' front end sets the title only on a widget whose ``description`` is empty, and an
    ``Image`` has no ``description`` at all (its view then fails to read one): this gives it an
    empty one.
    """

    description = traitlets.Unicode("").tag(sync=True)


def _main_control(controls, main):
    if main is not None:
        if main not in controls:
            raise ValueError(f"main control {main!r} is not one of the controls {list(controls)}")
        return main
    if not controls:
        raise ValueError("an explorer needs at least one control")
    return next((key for key in MAIN_CONTROL_PREFERENCE if key in controls), next(iter(controls)))


# -- control labels that are never cut ---------------------------------------------------------
@lru_cache(maxsize=256)
def description_px(text):
    """Width in CSS pixels that a control's description needs at the widgets' font size.

    Measured in DejaVu Sans, which is wider than the sans-serif fonts browsers show widgets in,
    so the estimate errs on the long side; plus the label's padding.
    """
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    font = FontProperties(family="DejaVu Sans", size=DESCRIPTION_FONT_PX)
    width = text_to_path.get_text_width_height_descent(text, font, ismath=False)[0]
    return float(width) + _DESCRIPTION_MARGIN_PX


def allotted_px(control):
    """The width ipywidgets gives ``control``'s description, in CSS pixels (``inf``: as wide as
    its text, for ``"initial"`` or ``"auto"``)."""
    width = str(getattr(control.style, "description_width", "") or "").strip()
    if width in ("initial", "auto", "max-content"):
        return float("inf")
    if not width:
        return float(DESCRIPTION_PX)
    match = re.fullmatch(r"([\d.]+)\s*(px|em)", width)
    if match is None:
        raise ValueError(f"cannot tell how wide description_width={width!r} is")
    return float(match.group(1)) * (DESCRIPTION_FONT_PX if match.group(2) == "em" else 1)


def shows_description_label(control):
    """True for controls whose description is a label beside them that ipywidgets may cut
    (sliders, dropdowns, text boxes; not buttons, check boxes or Play, which size their own)."""
    own_size = (widgets.Button, widgets.ToggleButton, widgets.Checkbox, widgets.Play)
    return (isinstance(control, DescriptionWidget) and not isinstance(control, own_size)
            and bool(getattr(control, "description", "")))


def fit_descriptions(controls):
    """Widen every description of ``controls`` that its label width would cut to its text.

    ``style.description_width = "initial"`` lets the label take the width of its text; labels
    that fit already keep ipywidgets' common width, so short ones stay aligned.
    """
    for control in controls:
        if shows_description_label(control) and \
                allotted_px(control) < description_px(control.description):
            control.style.description_width = "initial"


# -- the controls and the figure every lecture builds -------------------------------------------
def iteration_control(last, value=0, *, minimum=0, description="iteration", interval=1200):
    """An iteration slider over ``[minimum, last]`` and a Play button linked to it in the browser.

    Returns
    -------
    (IntSlider, Play)
        Put the slider among the explorer's controls and the Play button in ``extra_controls``.
    """
    slider = widgets.IntSlider(value, min=minimum, max=last, description=description)
    play = widgets.Play(value, min=minimum, max=last, interval=interval, description="play")
    widgets.jslink((play, "value"), (slider, "value"))
    _PLAYS[slider] = play  # limits that ``ranges`` sets apply to both
    return slider, play


def seed_control(value=0, *, maximum=999, description="seed"):
    """The box every explorer uses to choose a random seed."""
    return widgets.BoundedIntText(value, min=0, max=maximum, description=description,
                                  layout=widgets.Layout(width="150px"))


@contextlib.contextmanager
def new_figure(figsize, **kwargs):
    """A constrained-layout ``Figure`` (never through pyplot), built in the package style.

    Use as ``with new_figure((13, 6)) as figure:`` and add the axes inside the block, so that
    they take the style too.
    """
    with style_context():
        yield Figure(figsize=figsize, layout="constrained", **kwargs)


def live_explorers():
    """The explorers created in this kernel and not closed (``explorer.close()``), oldest first."""
    explorers = (_LIVE.get(key) for key in sorted(_LIVE.keys()))
    return [explorer for explorer in explorers
            if explorer is not None and explorer.comm is not None]


def export_explorers(folder=None, *, preset="16:9", reset=True, formats=("png", "svg", "pdf")):
    """Save the figure of every live explorer (see :func:`sslviz.export.save_figure`).

    With ``reset=True`` each explorer is first put back to its initial control values, so the
    files show the figures a notebook opens with. Returns the list of paths written.
    """
    paths = []
    for explorer in live_explorers():
        if reset:
            explorer.reset()
        with explorer._lock:
            paths += save_figure(explorer.figure_on_screen(), explorer.name,
                                 params=explorer.params(), folder=folder, preset=preset,
                                 formats=formats, description=explorer.alt_text())
    return paths
