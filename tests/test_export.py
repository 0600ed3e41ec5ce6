"""sslviz.export.save_figure, the projector style and the export control."""

from __future__ import annotations

import re

import matplotlib as mpl
import matplotlib.image as mpimg
import matplotlib.pyplot as plt
import numpy as np
import pytest

from sslviz import export
from sslviz.export import (
    OKABE_ITO,
    figure_basename,
    format_value,
    projector_style,
    save_figure,
    style_context,
    use_projector_style,
)
from sslviz.widgets.export_control import export_control

NAME = "04_em_naive_bayes-top_words"
PARAMS = {"class": "course", "seed": 0, "iter": 3}
BASE = "04_em_naive_bayes-top_words__class-course_seed-0_iter-3"


@pytest.fixture
def fig():
    figure, ax = plt.subplots(figsize=(6.0, 4.0))
    ax.plot([0, 1, 2], [0, 1, 4], label="a line")
    ax.set_title("Text that must be embedded")
    ax.legend()
    return figure


def _files(folder):
    return sorted(p.name for p in folder.iterdir())


# ---------------------------------------------------------------- the files


def test_writes_png_svg_pdf_of_the_right_type(fig, tmp_path):
    paths = save_figure(fig, NAME, params=PARAMS, folder=tmp_path)
    assert [p.name for p in paths] == [f"{BASE}.png", f"{BASE}.svg", f"{BASE}.pdf"]
    assert _files(tmp_path) == sorted(p.name for p in paths)
    png, svg, pdf = (p.read_bytes() for p in paths)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert b"<svg" in svg[:2000]
    assert pdf.startswith(b"%PDF")
    assert all(len(b) > 1000 for b in (png, svg, pdf))


@pytest.mark.parametrize(
    ("preset", "inches"), [("16:9", (13.333, 7.5)), ("4:3", (10.0, 7.5)), (None, (6.0, 4.0))]
)
@pytest.mark.parametrize("dpi", [200, 300])
def test_png_pixel_size_is_preset_times_dpi(fig, tmp_path, preset, inches, dpi):
    (path,) = save_figure(fig, "size", folder=tmp_path, formats=("png",), preset=preset, dpi=dpi)
    height, width = mpimg.imread(path).shape[:2]
    assert abs(width - inches[0] * dpi) <= 1
    assert abs(height - inches[1] * dpi) <= 1


def test_pdf_embeds_truetype_fonts_and_svg_has_text_as_paths(fig, tmp_path):
    svg, pdf = save_figure(fig, "fonts", folder=tmp_path, formats=("svg", "pdf"))
    data = pdf.read_bytes()
    assert b"/FontFile2" in data  # an embedded TrueType font program (fonttype 42)
    assert b"/Subtype /Type3" not in data
    assert b"<text" not in svg.read_bytes()  # svg.fonttype "path": glyphs drawn as outlines


def test_description_is_stored_in_each_format_metadata(fig, tmp_path):
    from PIL import Image

    alt = "Figure top words: the words with most weight (class=course, seed=0)"
    png, svg, pdf = save_figure(fig, NAME, params=PARAMS, folder=tmp_path,
                                description=alt.replace(" (", "\n ("))
    assert Image.open(png).text["Description"] == alt
    assert f"<dc:description>{alt}</dc:description>" in svg.read_text()
    escaped = re.sub(r"([()\\])", r"\\\1", alt)  # a PDF string escapes ( ) and \
    assert f"/Subject ({escaped})".encode() in pdf.read_bytes()
    assert _files(tmp_path) == sorted(p.name for p in (png, svg, pdf))  # no temporary file left


def test_without_description_no_description_is_stored(fig, tmp_path):
    from PIL import Image

    png, svg, pdf = save_figure(fig, NAME, folder=tmp_path)
    assert "Description" not in Image.open(png).text
    assert "dc:description" not in svg.read_text()
    assert b"/Subject" not in pdf.read_bytes()


def test_global_rcparams_are_untouched(fig, tmp_path):
    before = {k: mpl.rcParams[k] for k in ("pdf.fonttype", "svg.fonttype", "savefig.bbox")}
    save_figure(fig, "rc", folder=tmp_path)
    assert {k: mpl.rcParams[k] for k in before} == before


def test_saving_twice_replaces_the_files_and_is_reproducible(fig, tmp_path):
    first = [p.read_bytes() for p in save_figure(fig, NAME, params=PARAMS, folder=tmp_path)]
    second = [p.read_bytes() for p in save_figure(fig, NAME, params=PARAMS, folder=tmp_path)]
    assert len(_files(tmp_path)) == 3
    assert first[1:] == second[1:]  # SVG and PDF carry no timestamps


def test_figure_size_is_restored(fig, tmp_path):
    before = fig.get_size_inches().copy()
    save_figure(fig, "restore", folder=tmp_path, preset="4:3")
    np.testing.assert_array_equal(fig.get_size_inches(), before)


def test_figure_size_is_restored_after_a_failure(fig, tmp_path, monkeypatch):
    before = fig.get_size_inches().copy()
    monkeypatch.setattr(fig, "savefig", _failing_savefig(fig, "pdf"))
    with pytest.raises(RuntimeError):
        save_figure(fig, "restore", folder=tmp_path)
    np.testing.assert_array_equal(fig.get_size_inches(), before)


def _failing_savefig(fig, bad_format):
    real = fig.savefig

    def savefig(fname, *args, **kwargs):
        if kwargs.get("format") == bad_format:
            with open(fname, "wb") as handle:  # a partial file, as a crash mid-write leaves
                handle.write(b"%PDF-1.4 partial")
            raise RuntimeError("disk full")
        return real(fname, *args, **kwargs)

    return savefig


def test_a_failure_mid_save_leaves_no_partial_or_temporary_file(fig, tmp_path, monkeypatch):
    monkeypatch.setattr(fig, "savefig", _failing_savefig(fig, "pdf"))
    with pytest.raises(RuntimeError, match="disk full"):
        save_figure(fig, NAME, params=PARAMS, folder=tmp_path)
    assert _files(tmp_path) == []  # PNG and SVG were staged but not published either


def test_a_failure_keeps_the_previous_complete_files(fig, tmp_path, monkeypatch):
    good = {p.name: p.read_bytes() for p in save_figure(fig, NAME, params=PARAMS, folder=tmp_path)}
    fig.axes[0].set_title("changed")
    monkeypatch.setattr(fig, "savefig", _failing_savefig(fig, "pdf"))
    with pytest.raises(RuntimeError):
        save_figure(fig, NAME, params=PARAMS, folder=tmp_path)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == good


# ---------------------------------------------------------------- names and folders


def test_file_names_carry_the_parameters_in_order():
    assert figure_basename(NAME, PARAMS) == BASE
    assert figure_basename(NAME) == NAME
    assert figure_basename("fig", {"b": 1, "a": 2}) == "fig__b-1_a-2"
    assert figure_basename("fig", {"n_labeled": 40}) == "fig__n-labeled-40"
    assert figure_basename("fig", {"class": "comp.graphics / x"}) == "fig__class-comp.graphics-x"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.125, "0.125"),
        (1 / 3, "0.333"),
        (2.0, "2"),
        (0.1, "0.1"),
        (1e-5, "1e-05"),
        (12345.0, "1.23e04"),
        (-0.5, "-0.5"),
        (np.float32(0.25), "0.25"),
        (np.int64(7), "7"),
        (True, "true"),
        (np.bool_(False), "false"),
        (None, "none"),
        (float("nan"), "nan"),
        ((1, 2.5), "1-2.5"),
        ("Élan vital!", "lan-vital"),
        ("", "empty"),
    ],
)
def test_values_are_compact_and_file_name_safe(value, text):
    assert format_value(value) == text


def test_very_long_names_are_shortened_but_stay_distinct():
    a = figure_basename("fig", {"words": "x" * 400, "seed": 1})
    b = figure_basename("fig", {"words": "x" * 400, "seed": 2})
    assert len(a) <= 200 and len(b) <= 200 and a != b


def test_default_folder_is_sslviz_figures_then_cwd_figures(fig, tmp_path, monkeypatch):
    monkeypatch.setenv("SSLVIZ_FIGURES", str(tmp_path / "from-env"))
    (path,) = save_figure(fig, "env", formats=("png",))
    assert path.parent == tmp_path / "from-env"

    monkeypatch.delenv("SSLVIZ_FIGURES")
    monkeypatch.chdir(tmp_path)
    (path,) = save_figure(fig, "cwd", formats=("png",))
    assert path == tmp_path / "figures" / "cwd.png"
    assert path.exists()


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize("formats", [("png", "jpg"), ("gif",), ()])
def test_unknown_format_is_an_error_listing_the_valid_ones(fig, tmp_path, formats):
    with pytest.raises(ValueError, match="png, svg, pdf"):
        save_figure(fig, "bad", folder=tmp_path, formats=formats)
    assert not any(tmp_path.iterdir())


def test_unknown_preset_is_an_error_listing_the_valid_ones(fig, tmp_path):
    with pytest.raises(ValueError, match=r"'16:9', '4:3', None"):
        save_figure(fig, "bad", folder=tmp_path, preset="21:9")


@pytest.mark.parametrize("dpi", [72, 0, float("nan"), float("inf"), 1e5, "300", True, None])
def test_dpi_outside_the_slide_range_is_a_clear_error(fig, tmp_path, dpi):
    message = rf"^dpi must be a number from 200 to 1200 for slides, got {re.escape(repr(dpi))}$"
    with pytest.raises(ValueError, match=message):
        save_figure(fig, "bad", folder=tmp_path, dpi=dpi)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(("argv", "message"), [
    (["export-figures", "{tmp}/missing.ipynb"], "error: no notebook at {tmp}/missing.ipynb"),
    (["export-figures", "{tmp}/a.txt"], "error: {tmp}/a.txt is not a notebook (.ipynb)"),
    (["export-figures", "--out", "{tmp}/a.txt/figures"], "is a file, not a folder"),
    (["export-figures", "--formats", "gif"], "error: --formats 'gif': choose from png,svg,pdf"),
    (["slides", "--check", "/nonexistent.ipynb"], "error: no notebook at /nonexistent.ipynb"),
])
def test_cli_bad_arguments_one_line_and_exit_2(tmp_path, capsys, argv, message):
    from sslviz.__main__ import main

    (tmp_path / "a.txt").write_text("x")
    assert main([a.format(tmp=tmp_path) for a in argv]) == 2
    err = capsys.readouterr().err
    assert message.format(tmp=tmp_path) in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(("call", "message"), [
    (lambda fig, folder: save_figure(None, "x", folder=folder),
     r"^fig must be a matplotlib Figure .*got NoneType$"),
    (lambda fig, folder: save_figure(fig, "x", folder=folder, formats=[None]),
     r"^formats must be names from png, svg, pdf, got \[None\]$"),
    (lambda fig, folder: save_figure(fig, "x", folder=folder, formats=3),
     r"^formats must be a list of format names"),
    (lambda fig, folder: save_figure(fig, "x", folder=folder, params=[("seed", 1)]),
     r"^params must be a mapping of parameter names to values"),
])
def test_wrong_types_are_named_and_nothing_is_written(fig, tmp_path, call, message):
    with pytest.raises(ValueError, match=message):
        call(fig, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_name_without_usable_characters_is_an_error(fig, tmp_path):
    with pytest.raises(ValueError, match="name"):
        save_figure(fig, "///", folder=tmp_path)


# ---------------------------------------------------------------- projector style


def test_projector_style_is_large_thick_and_colour_blind_safe():
    style = projector_style()
    assert style["font.size"] >= 18
    assert style["lines.linewidth"] >= 3
    assert style["axes.prop_cycle"].by_key()["color"] == list(OKABE_ITO)
    with mpl.rc_context(style):  # every key is a valid rc setting
        pass
    style["font.size"] = 1
    assert projector_style()["font.size"] >= 18  # a fresh dict each call


def test_use_projector_style_only_toggles_a_flag(monkeypatch):
    monkeypatch.setattr(export, "_projector_on", False)
    before = dict(mpl.rcParams)
    with style_context():
        assert mpl.rcParams["font.size"] == before["font.size"]
    use_projector_style()
    assert export.projector_style_enabled()
    assert dict(mpl.rcParams) == before  # no global change
    with style_context():
        assert mpl.rcParams["font.size"] == projector_style()["font.size"]
        assert mpl.rcParams["lines.linewidth"] == 3
    assert mpl.rcParams["font.size"] == before["font.size"]
    use_projector_style(False)
    assert not export.projector_style_enabled()


# ---------------------------------------------------------------- the control


def test_export_button_writes_the_files_and_says_where(fig, tmp_path):
    state = {"class": "course", "seed": 0, "iter": 3}
    box = export_control(lambda: fig, NAME, lambda: state, folder=tmp_path)
    box.controls["button"].click()
    assert _files(tmp_path) == sorted(f"{BASE}.{ext}" for ext in ("png", "svg", "pdf"))
    label = box.controls["label"].value
    assert BASE in label and str(tmp_path.resolve()) in label

    state["iter"] = 4  # the parameters are read at click time
    box.controls["preset"].value = "4:3"
    box.controls["button"].click()
    assert "iter-4" in box.controls["label"].value
    height, width = mpimg.imread(box.last_paths[0]).shape[:2]
    assert (width, height) == (2000, 1500)


def test_export_button_uses_sslviz_figures(fig, tmp_path, monkeypatch):
    monkeypatch.setenv("SSLVIZ_FIGURES", str(tmp_path))
    box = export_control(lambda: fig, "env", lambda: {"seed": 1})
    box.controls["button"].click()
    assert (tmp_path / "env__seed-1.pdf").exists()
    assert str(tmp_path.resolve()) in box.controls["label"].value


def test_export_button_failure_is_reported_in_the_label(fig, tmp_path, monkeypatch):
    monkeypatch.setattr(fig, "savefig", _failing_savefig(fig, "pdf"))
    box = export_control(lambda: fig, NAME, lambda: PARAMS, folder=tmp_path)
    box.controls["button"].click()  # ipywidgets logs the exception outside a kernel
    assert "Export failed" in box.controls["label"].value
    assert "disk full" in box.controls["label"].value
    assert _files(tmp_path) == []


def test_export_control_layout_and_given_output():
    import ipywidgets as widgets

    out = widgets.Output()
    box = export_control(lambda: None, "x", dict, output=out)
    assert isinstance(box, widgets.HBox)
    assert box.controls["output"] is out and out not in box.children
    assert box.controls["button"].description == "Export PNG/SVG/PDF"
    assert [v for _, v in box.controls["preset"].options][:2] == ["16:9", "4:3"]
