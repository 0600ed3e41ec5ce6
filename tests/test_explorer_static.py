"""The static picture and alt text an explorer's display carries for renderers without a kernel."""

from __future__ import annotations

import base64
import io

import ipywidgets as widgets
import numpy as np
import pytest
from matplotlib.figure import Figure
from PIL import Image

from sslviz.widgets import Explorer, export_explorers, live_explorers
from sslviz.widgets.static import MAX_PICTURE_BYTES, alt_text, one_line, small_png

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def explorer(title="Accuracy against labeled documents"):
    figure = Figure(figsize=(4, 3))
    ax = figure.add_subplot()
    ax.set_title(title)
    (line,) = ax.plot([0, 1], [0, 1])

    def update(values):
        line.set_ydata([0, values["n_labeled"]])

    controls = {"n_labeled": widgets.IntSlider(3, min=1, max=10), "seed": widgets.IntSlider(0)}
    return Explorer("01_what_is_ssl-curve", figure, controls, update)


def decoded(bundle):
    return Image.open(io.BytesIO(base64.b64decode(bundle["image/png"])))


def test_display_carries_widget_view_picture_and_alt_text():
    ex = explorer()
    data, metadata = ex._repr_mimebundle_()
    assert data[WIDGET_VIEW]["model_id"] == ex.model_id
    alt = "Figure curve: Accuracy against labeled documents (n_labeled=3, seed=0)"
    assert data["text/plain"] == alt
    assert metadata["image/png"]["alt"] == alt
    on_screen = Image.open(io.BytesIO(bytes(ex.image.value)))
    assert decoded(data).size == on_screen.size


def test_picture_and_alt_text_follow_the_controls():
    ex = explorer()
    first = ex._repr_mimebundle_()[0]
    ex.controls["n_labeled"].value = 7
    second = ex._repr_mimebundle_()[0]
    assert second["text/plain"].endswith("(n_labeled=7, seed=0)")
    assert second["image/png"] != first["image/png"]


def test_an_explorer_can_describe_its_figure_better():
    ex = explorer()
    ex.figure_description = lambda: "Test accuracy\nof EM"
    assert ex.alt_text() == "Test accuracy of EM (n_labeled=3, seed=0)"


def test_small_png_keeps_the_pixels_close_and_fits_the_limit():
    rng = np.random.default_rng(0)
    figure = Figure(figsize=(6, 4))
    figure.add_subplot().imshow(rng.random((300, 400)), cmap="viridis")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90)
    png = buffer.getvalue()
    small = small_png(png)
    assert len(small) < len(png)
    original = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=float)
    reduced = np.asarray(Image.open(io.BytesIO(small)).convert("RGB"), dtype=float)
    assert reduced.shape == original.shape
    assert np.abs(reduced - original).mean() < 4  # palette of 256 colours: close to the original
    tiny = small_png(png, limit=20_000)
    assert len(tiny) <= 20_000
    assert Image.open(io.BytesIO(tiny)).width < original.shape[1]
    assert len(small) <= MAX_PICTURE_BYTES


def test_small_png_rejects_other_bytes():
    with pytest.raises(ValueError, match=r"expected the bytes of a PNG image .* got b'GIF89a"):
        small_png(b"GIF89a......")


def test_alt_text_is_one_line_and_short():
    assert one_line("a\n  b\tc") == "a b c"
    long = one_line("x" * 400)
    assert len(long) == 300 and long.endswith("…")
    assert alt_text("n-top_words", Figure(), "") == "Figure top words"



def test_exported_files_carry_the_alt_text(tmp_path, monkeypatch):
    monkeypatch.setenv("SSLVIZ_FIGURES", str(tmp_path / "button"))
    for other in live_explorers():  # earlier tests' explorers: exporting them all takes long
        other.close()
    ex = explorer()
    ex.controls["seed"].value = 4
    ex.export.controls["button"].click()
    png = ex.export.last_paths[0]
    assert png.suffix == ".png"
    expected = "Figure curve: Accuracy against labeled documents (n_labeled=3, seed=4)"
    assert Image.open(png).text["Description"] == expected
    ex.controls["seed"].value = 5
    paths = export_explorers(tmp_path / "all", reset=False, formats=("png",))
    # every live explorer of the process (here: this one) is exported, named by its values
    mine = [p for p in paths if p.name.startswith("01_what_is_ssl-curve__")
            and p.name.endswith("seed-5.png")]
    assert len(paths) == 1 and mine == paths
    assert Image.open(mine[0]).text["Description"] == expected.replace("seed=4", "seed=5")
