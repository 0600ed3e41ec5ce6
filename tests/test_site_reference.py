"""The glossary and bibliography links, the figure descriptions and the explorer image's name."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import nbformat.v4
import pytest
from matplotlib.figure import Figure

from sslviz import site, site_pages, site_reference
from sslviz.bibliography import SOURCES
from sslviz.glossary import TERMS
from sslviz.widgets.base import DescribedImage
from sslviz.widgets.static import described

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9]*.ipynb"))


def prose(html):
    return f'<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown">{html}</div>'


def test_link_page_links_the_first_use_of_each_term_in_the_prose_only():
    page = ("<h2>Self-training</h2>"
            + prose("<p>Run <code>self-training</code> and $\\text{self-training}$ then "
                    "self-training again, <em>self-training</em>; Nigam et al. (2000) and "
                    "<a href='x'>co-training</a>, then co-training.</p>")
            + '<div class="jp-OutputArea-output"><pre>co-training</pre></div>')
    linked, keys = site_reference.link_page(page)
    assert keys == ["self-training", "nigam2000", "co-training"]
    assert linked == ("<h2>Self-training</h2>" + prose(
        "<p>Run <code>self-training</code> and $\\text{self-training}$ then "
        '<a class="sslviz-term" href="glossary.html#self-training">self-training</a> again, '
        '<em>self-training</em>; <a class="sslviz-cite" href="bibliography.html#nigam2000">'
        "Nigam et al. (2000)</a> and <a href=\"x\">co-training</a>, then "
        '<a class="sslviz-term" href="glossary.html#co-training">co-training</a>.</p>')
        + '<div class="jp-OutputArea-output"><pre>co-training</pre></div>')


@pytest.mark.parametrize("text, key", [
    ("Nigam, McCallum, Thrun & Mitchell (2000)", "nigam2000"),
    ("(Blum & Mitchell, 1998)", "blum1998"), ("Zhou et al. 2004", "zhou2004"),
    ("Chapelle, Schölkopf & Zien (eds., 2006)", "chapelle2006"),
    ("Zhu, Ghahramani &\n  Lafferty (2003)", "zhu2003"), ("Zhu & Ghahramani 2002", "zhu2002"),
    ("Kupiec, Pedersen & Chen\n(1995)", "kupiec1995")])
def test_citations_are_found_in_the_forms_the_lectures_use(text, key):
    _, keys = site_reference.link_page(prose(f"<p>{text}</p>"))
    assert keys == [key]
    linked, _ = site_reference.link_page(prose("<p>(MacKay &amp; Peto, 1995)</p>"))
    assert '">MacKay &amp; Peto, 1995</a>)' in linked  # the closing bracket stays outside


def test_keys_are_unique_and_each_term_is_used_in_its_lecture():
    keys = [t.key for t in TERMS] + [s.key for s in SOURCES]
    assert len(keys) == len(set(keys))
    for term in TERMS:
        nb = nbformat.read(NOTEBOOKS[term.lecture - 1], as_version=4)
        text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        assert re.search(term.pattern, text, re.IGNORECASE), (term.key, term.lecture)


def test_figure_description_prefers_the_alt_metadata_and_ignores_a_repr():
    alt = {"data": {"image/png": "x", "text/plain": "Figure"},
           "metadata": {"image/png": {"alt": "Accuracy  against\nlabels"}}}
    assert site.figure_description(alt) == "Accuracy against labels"
    assert site.figure_description({"data": {"text/plain": ["A ", "curve"]}}) == "A curve"
    for text in ("<Figure size 700x420 with 1 Axes>", "<IPython.core.display.Image object>"):
        assert site.figure_description({"data": {"text/plain": text}}) == ""


def test_pictures_without_a_description_are_found():
    described_output = nbformat.v4.new_output("display_data", data={
        "image/png": "x", "text/plain": "A curve"})
    bare = nbformat.v4.new_output("display_data", data={
        "image/png": "x", "text/plain": "<Figure size 700x420 with 1 Axes>"})
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# T"),
        nbformat.v4.new_code_cell("a", outputs=[described_output]),
        nbformat.v4.new_code_cell("b", outputs=[bare])])
    assert site.undescribed_figures(nb) == [2]


def test_a_described_figure_shows_a_picture_with_its_alt_text():
    figure = Figure(figsize=(2, 2))
    figure.add_subplot().plot([0, 1])
    data, metadata = described(figure, "A line\n going up")._repr_mimebundle_()
    assert data["text/plain"] == "A line going up" == metadata["image/png"]["alt"]
    assert data["image/png"].startswith("iVBORw0KGgo")  # base64 of a PNG
    with pytest.raises(ValueError, match=r"describe the figure in one line \(its alt text\)"):
        described(figure, " ")


def test_the_explorer_image_carries_a_description_for_its_view():
    image = DescribedImage(format="png", tooltip="Figure curve (seed=0)")
    state = image.get_state()
    assert state["tooltip"] == "Figure curve (seed=0)"
    assert state["description"] == ""  # the view sets the title only beside an empty one


def test_the_glossary_and_bibliography_pages(tmp_path):
    entries = [{"href": f"{n:02d}_x.html", "title": f"Lecture {n}"} for n in range(1, 13)]
    glossary = site_reference.glossary_page(entries, ":root {}")
    assert glossary.count("<dt id=") == len(TERMS)
    assert '<dt id="em">EM (expectation-maximisation)</dt>' in glossary
    assert '<a href="04_x.html">Lecture 4</a>' in glossary
    bibliography = site_reference.bibliography_page(entries, {"nigam2000": [4, 12]}, "")
    entry = re.search(r'<li id="nigam2000">.*?</li>', bibliography).group(0)
    assert entry == ('<li id="nigam2000">K. Nigam, A. McCallum, S. Thrun and T. Mitchell (2000).'
                     " <cite>Text classification from labeled and unlabeled documents using EM"
                     "</cite>. Machine Learning, 39(2/3):103–134. Cited in "
                     '<a href="04_x.html">Lecture 4</a>, <a href="12_x.html">Lecture 12</a>.</li>')
    for page in (glossary, bibliography):  # the frame of every page: bar, scripts, licence
        assert site_pages.toolbar() in page and site_pages.head_assets() in page
        assert page.rstrip().endswith(site_pages.LICENCE_NOTE + "\n</main>\n</body>\n</html>")


def test_link_page_gives_the_page_bs4_gives_with_the_pictures_parsed():
    """Pictures' payloads are set aside while the page is parsed: the output is the one parsing
    them gives, also with a payload's text quoted in prose and in code, or the mark's own text."""
    picture = '<img src="data:image/png;base64,iVBORw0K\nGgo+/A==" alt="a &amp; b">'
    quoted = "src=&quot;data:image/png;base64,abc&quot; and src=\"data:image/gif;base64,xyz\""
    pages = [prose(f"<p>self-training {quoted}</p>") + picture + f"<pre>{quoted}</pre>" + picture,
             prose("<p>@sslviz-picture-0@ co-training</p>") + picture]
    for page in pages:
        parsed = site_reference.link_page(page)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(site_reference, "_set_pictures_aside", lambda page: (page, []))
            assert parsed == site_reference.link_page(page)
        assert parsed[0].count('src="data:image/png;base64,iVBORw0K\nGgo+/A=="') == \
            page.count("iVBORw0K")


def test_a_code_cell_is_escaped_by_pygments_and_anything_else_is_sanitised():
    from nbconvert.filters.highlight import Highlight2HTML

    source = ("s = \"<script>alert('x')</script><img src=x onerror='alert(1)'>\" & 1\n"
              "# <a href=\"javascript:alert(2)\">link</a>")
    highlighted = Highlight2HTML(pygments_lexer="ipython3")(source)
    assert site.clean_code(highlighted) == highlighted == site.clean_html(highlighted)
    assert "<script" not in highlighted and "&lt;script&gt;" in highlighted
    assert not re.search(r"<[a-z]+[^>]*\son[a-z]+=|<a\s", highlighted)
    for foreign in ('<div class="highlight"><pre><script>alert(1)</script></pre></div>',
                    '<div class="highlight"><pre><span class="n" onclick="alert(1)">x</span>'
                    "</pre></div>", '<div class="highlight"><pre><img src=x onerror=alert(1)>'):
        cleaned = site.clean_code(foreign)
        assert cleaned == site.clean_html(foreign)
        assert not re.search(r"<script|\son[a-z]+=", cleaned)
