"""Saving the figure on screen for slides, and a projector style.

:func:`save_figure` is the one function every explorer's export button calls. It writes the given
figure (never ``plt.gcf()``) as PNG (>= 200 dpi), SVG and PDF with embedded TrueType fonts, at a
slide size ("16:9" = 13.333 x 7.5 in, "4:3" = 10 x 7.5 in, or the figure's own size), into

1. the ``folder`` argument, if given;
2. else the folder named by the environment variable ``SSLVIZ_FIGURES``;
3. else ``./figures`` relative to the current working directory. In JupyterLab that is the folder
   of the notebook, so the lectures' figures land in ``work/figures/`` under ``run.py lab``
   (git-ignored).

The file name carries the parameters that produced the figure,
``<name>__<key>-<value>_<key>-<value>.<ext>``, e.g.
``04_em_naive_bayes-top_words__class-course_seed-0_iter-3.png``; saving again with the same
parameters replaces the files. All formats are first written to temporary files in the target folder
and renamed only when every format succeeded, so a failure leaves neither partial files nor a mix
of old and new formats. The figure's size is restored afterwards: what is on screen does not change.

:func:`projector_style` returns rc settings for a projector (large fonts, thick lines, the
Okabe-Ito colour-blind-safe palette) for use with ``matplotlib.rc_context``;
:func:`use_projector_style` switches a flag that the explorers consult through
:func:`style_context` (for a whole notebook: call it in the first cell; for every notebook: start
JupyterLab with ``SSLVIZ_PROJECTOR=1``). Neither changes matplotlib's global ``rcParams``.

Cost: one draw of the figure per format (about 0.1-1 s for a lecture figure).
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import numbers
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import matplotlib as mpl
import numpy as np
from cycler import cycler

from sslviz._io import atomic_write_path

__all__ = [
    "FORMATS",
    "OKABE_ITO",
    "PRESETS",
    "figure_basename",
    "figures_folder",
    "format_value",
    "projector_style",
    "projector_style_enabled",
    "save_figure",
    "style_context",
    "use_projector_style",
]

FORMATS = ("png", "svg", "pdf")
"""Formats :func:`save_figure` can write."""

PRESETS: dict[str | None, tuple[float, float] | None] = {
    "16:9": (13.333, 7.5),
    "4:3": (10.0, 7.5),
    None: None,
}
"""Slide sizes in inches (width, height); ``None`` keeps the figure's own size."""

OKABE_ITO = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow (weak on white: last but one)
    "#000000",  # black
)
"""Okabe & Ito (2008) colour-blind-safe palette, ordered for contrast on a white background."""

MIN_PNG_DPI = 200
MAX_PNG_DPI = 1200  # a 16:9 slide at 1200 dpi is already 16,000 pixels wide
_MAX_BASENAME = 200  # bytes; most file systems allow 255 for a whole name
_SAVE_RC = {
    "pdf.fonttype": 42,  # TrueType (Type 42) fonts embedded whole: editable, prints everywhere
    "ps.fonttype": 42,
    "svg.fonttype": "path",  # text as outlines: looks the same without the fonts installed
    "svg.hashsalt": "sslviz",  # stable ids inside the SVG (with no date: same figure, same bytes)
    "savefig.bbox": "standard",  # never "tight": the slide size is the size of the file
}
_METADATA = {  # no timestamps: saving the same figure twice gives the same bytes
    "pdf": {"CreationDate": None},
    "svg": {"Date": None},
}
_DESCRIPTION_KEY = {"png": "Description", "svg": "Description", "pdf": "Subject"}


def _metadata(fmt: str, description: str | None) -> dict | None:
    """savefig's ``metadata=`` for ``fmt``: no date; the description (alt text) if given."""
    metadata = dict(_METADATA.get(fmt, {}))
    if description:
        metadata[_DESCRIPTION_KEY[fmt]] = " ".join(str(description).split())
    return metadata or None


# ---------------------------------------------------------------- file names


def _slug(text: str) -> str:
    """Keep ``[A-Za-z0-9.-]``; every run of other characters becomes one ``-``."""
    return re.sub(r"[^A-Za-z0-9.-]+", "-", text).strip("-")


def format_value(value) -> str:
    """Compact, file-name-safe text for a parameter value.

    Floats keep up to 3 significant digits (``0.125`` -> ``0.125``, ``1/3`` -> ``0.333``,
    ``2.0`` -> ``2``, ``1e-5`` -> ``1e-05``, ``12345.0`` -> ``1.23e04``); booleans are
    ``true``/``false``; ``None`` is ``none``; sequences join their items with ``-``; anything else
    is slugified to ``[A-Za-z0-9.-]``.
    """
    if value is None:
        return "none"
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        value = float(value)
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return f"{value:.3g}".replace("+", "")
    if isinstance(value, str):
        return _slug(value) or "empty"
    if isinstance(value, Iterable) and not isinstance(value, Mapping):
        return "-".join(format_value(item) for item in value) or "empty"
    return _slug(str(value)) or "empty"


def figure_basename(name: str, params: Mapping | None = None) -> str:
    """``<name>__k1-v1_k2-v2`` (without extension), in the order of ``params``.

    ``name`` keeps ``[A-Za-z0-9._-]``; keys and values are reduced to ``[A-Za-z0-9.-]``
    (see :func:`format_value`). Very long names are shortened and end in a hash of the full name,
    so different parameters still give different files.
    """
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", str(name)).strip("-._")
    if not stem:
        raise ValueError(f"figure name {name!r} has no usable characters ([A-Za-z0-9._-])")
    if params is not None and not isinstance(params, Mapping):
        raise ValueError(f"params must be a mapping of parameter names to values, e.g. "
                         f"{{'seed': 0}}, got {type(params).__name__} {params!r}"[:200])
    if params:
        parts = [f"{_slug(str(k)) or 'param'}-{format_value(v)}" for k, v in params.items()]
        stem = f"{stem}__{'_'.join(parts)}"
    if len(stem.encode()) > _MAX_BASENAME:
        digest = hashlib.sha256(stem.encode()).hexdigest()[:12]
        stem = f"{stem[: _MAX_BASENAME - 14]}--{digest}"
    return stem


def figures_folder(folder: str | os.PathLike | None = None) -> Path:
    """``folder`` if given, else ``$SSLVIZ_FIGURES``, else ``./figures`` (current directory)."""
    if folder is not None:
        return Path(folder).expanduser()
    env = os.environ.get("SSLVIZ_FIGURES")
    if env:
        return Path(env).expanduser()
    return Path.cwd() / "figures"


# ---------------------------------------------------------------- saving


def _check(fig, formats, preset, dpi):
    if not (hasattr(fig, "savefig") and hasattr(fig, "get_size_inches")):
        raise ValueError(f"fig must be a matplotlib Figure (keep the one on screen, e.g. "
                         f"fig = plt.figure()), got {type(fig).__name__}")
    if isinstance(formats, str):
        formats = (formats,)
    try:
        formats = tuple(formats)
    except TypeError:
        raise ValueError(f"formats must be a list of format names from {', '.join(FORMATS)}, "
                         f"got {formats!r}") from None
    odd = [f for f in formats if not isinstance(f, str)]
    if odd:
        raise ValueError(f"formats must be names from {', '.join(FORMATS)}, got {odd!r}")
    formats = tuple(dict.fromkeys(f.lower().lstrip(".") for f in formats))
    unknown = [f for f in formats if f not in FORMATS]
    if unknown or not formats:
        raise ValueError(
            f"unknown figure format(s) {unknown or list(formats)}; "
            f"valid formats: {', '.join(FORMATS)}"
        )
    if preset not in PRESETS:
        valid = ", ".join(repr(p) for p in PRESETS)
        raise ValueError(f"unknown slide preset {preset!r}; valid presets: {valid}")
    if (isinstance(dpi, bool) or not isinstance(dpi, numbers.Real) or not math.isfinite(dpi)
            or not MIN_PNG_DPI <= dpi <= MAX_PNG_DPI):
        raise ValueError(f"dpi must be a number from {MIN_PNG_DPI} to {MAX_PNG_DPI} for slides, "
                         f"got {dpi!r}")
    return formats


def save_figure(
    fig,
    name: str,
    *,
    params: Mapping | None = None,
    folder: str | os.PathLike | None = None,
    formats: Iterable[str] = FORMATS,
    preset: str | None = "16:9",
    dpi: int = MIN_PNG_DPI,
    description: str | None = None,
) -> list[Path]:
    """Save ``fig`` for slides as PNG, SVG and PDF; return the paths written.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure on screen. Keep a reference to it: with the inline backend ``plt.gcf()`` in a
        button callback returns a new, empty figure.
    name : str
        Start of the file name, e.g. ``"04_em_naive_bayes-top_words"`` (notebook, then figure).
    params : mapping, optional
        Parameters that produced the figure, in the order they should appear in the file name,
        e.g. ``{"class": "course", "seed": 0, "iter": 3}``.
    folder : str or Path, optional
        Where to write. Default: ``$SSLVIZ_FIGURES`` if set, else ``./figures`` relative to the
        current working directory (the notebook's folder in JupyterLab). Created if missing.
    formats : iterable of {"png", "svg", "pdf"}, default all three
    preset : {"16:9", "4:3", None}, default "16:9"
        Slide size: 13.333 x 7.5 in, 10 x 7.5 in, or the figure's own size.
    dpi : int, default 200
        Resolution of the PNG (and of rasterized parts of SVG/PDF); at least 200.
    description : str, optional
        One line saying what the figure shows (its alt text), stored in the files' metadata:
        PNG and SVG "Description", PDF "Subject".

    Returns
    -------
    list of Path
        One file per format, in the order of ``formats``.

    Raises
    ------
    ValueError
        Unknown format or preset (the message lists the valid ones), dpi not a number from 200 to
        1200, empty name.

    Notes
    -----
    The figure is resized for saving and its size restored afterwards (without resizing the
    canvas on screen). Text is embedded as TrueType fonts in the PDF and as paths in the SVG.
    Files are written to temporary names in ``folder`` and renamed into place only when all
    formats succeeded; an existing file with the same name (same parameters) is replaced.
    """
    formats = _check(fig, formats, preset, dpi)
    base = figure_basename(name, params)
    target = figures_folder(folder)
    target.mkdir(parents=True, exist_ok=True)
    paths = [target / f"{base}.{fmt}" for fmt in formats]

    size = fig.get_size_inches().copy()
    try:
        if PRESETS[preset] is not None:
            fig.set_size_inches(PRESETS[preset], forward=False)
        with mpl.rc_context(_SAVE_RC), contextlib.ExitStack() as staged:
            # Each atomic_write_path renames its temporary file when the stack closes without an
            # error, and removes it otherwise: all formats appear together or none does.
            for fmt, path in zip(formats, paths, strict=True):
                tmp = staged.enter_context(atomic_write_path(path))
                fig.savefig(
                    tmp,
                    format=fmt,
                    dpi=dpi,
                    metadata=_metadata(fmt, description),
                )
    finally:
        fig.set_size_inches(size, forward=False)
    return paths


# ---------------------------------------------------------------- projector style

PROJECTOR_ENV = "SSLVIZ_PROJECTOR"
"""Set to 1 (e.g. ``SSLVIZ_PROJECTOR=1 python3 run.py lab``) to start every kernel in the style."""


def _env_flag(value: str | None) -> bool:
    return (value or "").strip().lower() not in ("", "0", "false", "no", "off")


_projector_on = _env_flag(os.environ.get(PROJECTOR_ENV))


def projector_style() -> dict:
    """rc settings for a projector: ~18 pt text, 3 pt lines, the Okabe-Ito colour cycle.

    Use with ``matplotlib.rc_context(projector_style())`` around the code that *draws*; returns a
    new dict on every call.
    """
    return {
        "font.size": 18,
        "axes.titlesize": 22,
        "axes.labelsize": 20,
        "xtick.labelsize": 16,
        "ytick.labelsize": 16,
        "legend.fontsize": 16,
        "legend.title_fontsize": 18,
        "figure.titlesize": 24,
        "lines.linewidth": 3.0,
        "lines.markersize": 9.0,
        "patch.linewidth": 1.5,
        "axes.linewidth": 1.5,
        "grid.linewidth": 1.2,
        "xtick.major.width": 1.5,
        "ytick.major.width": 1.5,
        "xtick.major.size": 6.0,
        "ytick.major.size": 6.0,
        "axes.prop_cycle": cycler(color=list(OKABE_ITO)),
        "image.cmap": "viridis",
    }


def use_projector_style(on: bool = True) -> None:
    """Turn the projector style on or off for the plot functions of :mod:`sslviz.plots`.

    Only a flag of this module changes; figures drawn afterwards (inside :func:`style_context`)
    pick it up. Matplotlib's global rcParams are left alone.
    """
    global _projector_on
    _projector_on = bool(on)


def projector_style_enabled() -> bool:
    """Whether :func:`use_projector_style` switched the projector style on."""
    return _projector_on


def style_context():
    """``rc_context(projector_style())`` when the projector style is on, else a null context."""
    if _projector_on:
        return mpl.rc_context(projector_style())
    return contextlib.nullcontext()
