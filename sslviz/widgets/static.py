"""A static picture of an explorer's figure, for renderers without a kernel.

An explorer's display (its mime bundle) carries, beside the live widget view, the figure on screen
as a small ``image/png`` and a one-line description of it as ``text/plain``. JupyterLab with a
kernel shows the widget; a renderer without one (GitHub, nbviewer, a static site) falls back to the
picture, with the description as its alt text.

The picture is the PNG already on screen, reduced to a palette of at most 256 colours with Pillow
(a dependency of matplotlib) and halved until it fits :data:`MAX_PICTURE_BYTES`.
"""

from __future__ import annotations

import base64
import io

from PIL import Image

MAX_PICTURE_BYTES = 150_000
"""Largest static picture (bytes of PNG) an explorer stores in a notebook."""

MAX_ALT_CHARS = 300
"""Longest alt text; longer descriptions are cut and end in an ellipsis."""


def small_png(png: bytes, *, limit: int = MAX_PICTURE_BYTES) -> bytes:
    """``png`` re-encoded with a palette of <= 256 colours, halved until it has <= ``limit`` bytes.

    Raises ``ValueError`` if ``png`` is not a PNG image.
    """
    png = bytes(png)
    if not png.startswith(b"\x89PNG\r\n\x1a\n"):
        raise ValueError(f"expected the bytes of a PNG image (starting with \\x89PNG), "
                         f"got {png[:8]!r}")
    image = Image.open(io.BytesIO(png)).convert("RGB")
    while True:
        out = io.BytesIO()
        image.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(
            out, format="PNG", optimize=True)
        data = out.getvalue()
        if len(data) <= limit or min(image.size) <= 64:
            return data
        image = image.resize((image.width // 2, image.height // 2), Image.Resampling.LANCZOS)


def figure_titles(figure) -> list[str]:
    """The figure's suptitle and its axes' titles (left, centre, right), non-empty, in order."""
    titles = []
    suptitle = getattr(figure, "_suptitle", None)
    if suptitle is not None and suptitle.get_text().strip():
        titles.append(suptitle.get_text().strip())
    for axes in figure.get_axes():
        for loc in ("left", "center", "right"):
            text = axes.get_title(loc=loc).strip()
            if text:
                titles.append(text)
    return titles


def one_line(text: str, limit: int = MAX_ALT_CHARS) -> str:
    """``text`` with runs of white space (also newlines) as one space, cut to ``limit`` chars."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def alt_text(name: str, figure, controls: str, description: str | None = None) -> str:
    """One line: what the figure shows, then the control values on screen.

    ``description`` (an explorer's own words) replaces the default, which is built from the
    explorer's ``name`` and the figure's titles.
    """
    if not description:
        label = name.split("-", 1)[-1].replace("_", " ")
        titles = "; ".join(figure_titles(figure))
        description = f"Figure {label}" + (f": {titles}" if titles else "")
    return one_line(f"{description} ({controls})" if controls else description)


def static_bundle(png: bytes | None, alt: str) -> tuple[dict, dict]:
    """``(data, metadata)`` entries of a mime bundle: the small picture and its alt text."""
    data = {"text/plain": alt}
    metadata = {}
    if png:
        data["image/png"] = base64.b64encode(small_png(png)).decode("ascii")
        metadata["image/png"] = {"alt": alt}
    return data, metadata


class DescribedFigure:
    """A matplotlib figure shown as a picture with its description (alt text), as explorers
    show theirs: ``described(figure, "what it shows")`` as a cell's last line."""

    def __init__(self, figure, description: str):
        if not isinstance(description, str) or not description.strip():
            raise ValueError("describe the figure in one line (its alt text), e.g. "
                             "described(figure, 'Accuracy against the number of labels'); "
                             f"got {description!r}")
        self.figure = figure
        self.description = one_line(description)

    def _repr_mimebundle_(self, **kwargs):
        buffer = io.BytesIO()
        self.figure.savefig(buffer, format="png")
        return static_bundle(buffer.getvalue(), self.description)


def described(figure, description: str) -> DescribedFigure:
    """``figure`` with a one-line description: displayed, it is a picture whose alt text is
    ``description`` (a static site and screen readers use it)."""
    return DescribedFigure(figure, description)
