"""The site's own features, without a browser: links between lectures, the page's sections and
contents, the search index, the download and launch links, the book (its PDF when Chromium is
present). The pages in Chromium: tests/browser/test_site.py."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from sslviz import hosted, site, site_pages

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {1: "01_a.html", 3: "03_c.html", 4: "04_d.html", 12: "12_l.html"}


# ---------------------------------------------------------------- links between lectures


@pytest.mark.parametrize(("text", "linked"), [
    ("developed in Lecture 4.", "developed in [Lecture 4](04_d.html)."),
    ("as lecture 04 showed", "as [lecture 04](04_d.html) showed"),
    ("lecture 4's criterion", "[lecture 4](04_d.html)'s criterion"),
    ("see Lecture 12", "see [Lecture 12](12_l.html)"),
    ("Lectures 3 and 4 address", "Lectures [3](03_c.html) and [4](04_d.html) address"),
    ("lectures 1, 3 or 4", "lectures [1](01_a.html), [3](03_c.html) or [4](04_d.html)"),
    ("Lectures 2 and 3", "Lectures 2 and [3](03_c.html)"),  # no lecture 2 here
    ("this is Lecture 7's", "this is Lecture 7's"),  # the current lecture links to nothing
    ("lecture 9", "lecture 9"),  # not a lecture of the site
    ("lecture 4.5 and lecture 40", "lecture 4.5 and lecture 40"),  # not lecture numbers
    ("electures 4", "electures 4"),
])
def test_mentions_of_other_lectures_become_links(text, linked):
    assert site_pages.link_lectures(text, TARGETS, current=7) == linked


@pytest.mark.parametrize("kept", [
    "# Lecture 4 — the title", "## Back to lecture 4", "`lecture 4`", "$\\text{lecture 4}$",
    "$$\nlecture 4\n$$", "```\nsee lecture 4\n```", "[lecture 4](elsewhere.html)",
    "![lecture 4](figure.png)", "<a title='lecture 4'>", "https://example.org/lecture 4"])
def test_code_math_links_headings_and_urls_are_left_alone(kept):
    assert site_pages.link_lectures(kept, TARGETS) == kept


def test_mentions_around_protected_text_are_still_linked():
    text = "## Lecture 4 again\n\nAs `x` in lecture 3, $a$ and Lecture 1."
    assert site_pages.link_lectures(text, TARGETS, current=4) == (
        "## Lecture 4 again\n\nAs `x` in [lecture 3](03_c.html), $a$ and [Lecture 1](01_a.html).")


# ---------------------------------------------------------------- sections, contents, search

PAGE = """<html><head><title>t</title><style>h2 {}</style></head><body>
<header class="sslviz-header"><div class="sslviz-toolbar">Search</div></header>
<main>
<nav class="sslviz-nav"><a href="x.html">Next</a></nav>
<div class="jp-Cell jp-MarkdownCell"><h1 id="Lecture-A">Lecture A<a class="anchor-link"
 href="#Lecture-A">¶</a></h1><p>Intro <em>words</em> &amp; more.</p><img src="x.png" alt="a">
<br></div>
<div class="jp-Cell jp-CodeCell celltag_hosted-setup"><pre>import setup</pre></div>
<div class="jp-Cell jp-CodeCell"><div class="jp-InputPrompt">In&nbsp;[1]:</div>
<pre>fit(model)</pre><div class="jp-OutputArea"><pre>0.93 printed</pre></div></div>
<h2 id="Two-&lt;b&gt;">Two &lt;b&gt;<a class="anchor-link" href="#Two">¶</a></h2><p>Second.</p>
<h3 id="Two.one">Two.one</h3><p>Third.</p><h4 id="deep">Deep</h4><p>Still third.</p>
<p class="sslviz-licence">CC BY 4.0</p>
</main><p>after main</p></body></html>"""


def test_page_sections_read_headings_and_prose_but_not_prompts_outputs_or_bars():
    assert site_pages.page_sections(PAGE) == [
        {"level": 1, "id": "Lecture-A", "title": "Lecture A", "text": "Intro words & more."
         " fit(model)"},
        {"level": 2, "id": "Two-<b>", "title": "Two <b>", "text": "Second."},
        {"level": 3, "id": "Two.one", "title": "Two.one", "text": "Third. Deep Still third."},
    ]


def test_contents_lists_the_h2_and_h3_sections_with_their_anchors():
    nav = site_pages.contents_nav(site_pages.page_sections(PAGE))
    assert '<li class="sslviz-toc-h2"><a href="#Two-&lt;b&gt;">Two &lt;b&gt;</a></li>' in nav
    assert '<li class="sslviz-toc-h3"><a href="#Two.one">Two.one</a></li>' in nav
    assert "Lecture-A" not in nav and nav.count("<li") == 2
    assert site_pages.contents_nav([{"level": 1, "id": "a", "title": "A", "text": ""}]) == ""


def test_search_index_holds_every_section_with_a_link_to_it():
    pages = [{"href": "01_a.html", "title": "Lecture A",
              "sections": site_pages.page_sections(PAGE)}]
    script = site_pages.search_index(pages)
    prefix = "window.SSLVIZ_SEARCH_INDEX = "
    records = json.loads(script[script.index(prefix) + len(prefix):].rstrip().rstrip(";"))
    assert [r["href"] for r in records] == ["01_a.html#Lecture-A", "01_a.html#Two-<b>",
                                            "01_a.html#Two.one"]
    assert {r["page"] for r in records} == {"Lecture A"}
    assert records[1]["title"] == "Two <b>" and records[1]["text"] == "Second."


# ---------------------------------------------------------------- download and launch


@pytest.mark.parametrize(("urls", "repo"), [
    ({"Repository": "https://github.com/owner/name"}, "owner/name"),
    ({"Source": "https://github.com/o-1/n.x.git"}, "o-1/n.x"),
    ({"Homepage": "https://example.org", "repository": "https://github.com/a/b/"}, "a/b"),
    ({"Homepage": "https://example.org"}, None),
    ({"Repository": "https://gitlab.com/a/b"}, None),
    ({}, None),
])
def test_the_repository_comes_from_the_project_urls(urls, repo):
    assert site_pages.project_repository(urls) == repo


def test_the_project_names_the_repository_the_hosted_start_installs_from():
    tomllib = pytest.importorskip("tomllib")
    with open(ROOT / "pyproject.toml", "rb") as file:
        urls = tomllib.load(file)["project"]["urls"]
    assert f"https://github.com/{site_pages.project_repository(urls)}" == hosted.REPOSITORY
    assert site_pages.project_repository() == hosted.REPOSITORY.removeprefix("https://github.com/")


def test_launch_links_open_the_notebook_on_binder_and_colab():
    assert site_pages.launch_links("o/n", "04_em.ipynb") == {
        "binder": "https://mybinder.org/v2/gh/o/n/HEAD?labpath=notebooks%2F04_em.ipynb",
        "colab": "https://colab.research.google.com/github/o/n/blob/main/notebooks/04_em.ipynb"}
    assert site_pages.launch_links(None, "04_em.ipynb") == {}
    bar = site_pages.toolbar("notebooks/04_em.ipynb", {})
    assert 'href="notebooks/04_em.ipynb" download' in bar and "binder" not in bar.lower()


def test_without_a_repository_the_build_says_so_and_leaves_the_launch_links_out(
        tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("SSLVIZ_BINDER_REPO", raising=False)
    monkeypatch.setattr(site_pages, "project_repository", lambda: None)
    assert site.repository() is None
    assert capsys.readouterr().err.strip() == (
        "no GitHub repository in pyproject.toml's [project.urls] (Repository): the pages carry "
        "no Binder or Colab links")
    assert site.repository("me/fork") == "me/fork" and not capsys.readouterr().err


# ---------------------------------------------------------------- the built site


def small_lectures(folder):
    """Two lectures: the second names the first; the first has a code cell and two sections."""
    first = new_notebook(cells=[
        new_markdown_cell("# Lecture 1 — first\n\nOpening words.\n\n## Setting up\n\nquokka"),
        new_code_cell("print('hi')"),
        new_markdown_cell("## Solution\n\nsee below", metadata={"tags": ["solution"]}),
    ])
    second = new_notebook(cells=[new_markdown_cell("# Lecture 2 — second\n\nAs in lecture 1.")])
    paths = [folder / "01_first.ipynb", folder / "02_second.ipynb"]
    for path, nb in zip(paths, [first, second], strict=True):
        nbformat.write(nb, path)
    return paths


def test_the_build_writes_index_notebooks_assets_contents_and_links(tmp_path):
    paths = small_lectures(tmp_path)
    site.build(tmp_path / "site", paths, binder="o/n")
    out = tmp_path / "site"
    for path in paths:  # the notebooks, as committed, for download
        assert (out / "notebooks" / path.name).read_bytes() == path.read_bytes()
    assert sorted(p.name for p in (out / "assets").iterdir()) == [
        "sslviz.css", "sslviz.js", "theme-dark.css", "theme.js"]
    dark = (out / "assets" / "theme-dark.css").read_text(encoding="utf-8")
    assert dark.startswith(':root[data-theme="dark"] {') and "--jp-layout-color0" in dark
    assert "@media (prefers-color-scheme: dark)" in dark
    first = (out / "01_first.html").read_text(encoding="utf-8")
    assert '<nav class="sslviz-toc"' in first and 'href="#Setting-up"' in first
    assert "<!--sslviz-toc-->" not in first
    assert 'download="" href="notebooks/01_first.ipynb"' in first
    assert "labpath=notebooks%2F01_first.ipynb" in first and "/blob/main/notebooks/" in first
    second = (out / "02_second.html").read_text(encoding="utf-8")
    assert '<a href="01_first.html">lecture 1</a>' in second
    index = (out / "search-index.js").read_text(encoding="utf-8")
    assert "quokka" in index and "01_first.html#Setting-up" in index
    assert 'src="search-index.js"' in (out / "index.html").read_text(encoding="utf-8")


def test_the_book_prefixes_ids_and_links_chapters():
    page = ('<html><head></head><body><main><h2 id="Intro">Intro</h2><a href="#Intro">x</a>'
            '<a href="02_b.html">next</a><a href="02_b.html#Part">part</a>'
            '<a href="https://example.org/">out</a><details class="sslviz-solution">s</details>'
            "</main></body></html>")
    book = site_pages.book_page([("01_a.html", page), ("02_b.html", page)], "<head></head>")
    assert book.count('<section class="sslviz-chapter"') == 2
    assert '<section class="sslviz-chapter" id="01_a">' in book
    assert '<h2 id="01_a-Intro">' in book and '<h2 id="02_b-Intro">' in book
    assert '<a href="#01_a-Intro">' in book and '<a href="#02_b">next</a>' in book
    assert '<a href="#02_b-Part">part</a>' in book
    assert '<a href="https://example.org/">' in book
    assert book.count('<details class="sslviz-solution" open>') == 2


def test_pdf_without_chromium_is_skipped_with_a_clear_message(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(site_pages, "find_chromium", lambda: None)
    paths = small_lectures(tmp_path)
    assert site.main([str(tmp_path / "site"), "--notebooks", *map(str, paths), "--pdf"]) == 0
    captured = capsys.readouterr()
    assert "--pdf: Chromium was not found, so no book.pdf is made: install it" in captured.err
    assert not (tmp_path / "site" / "book.pdf").exists()
    assert "book.pdf" not in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_book_pdf_has_a_page_for_every_lecture(tmp_path):
    if site_pages.find_chromium() is None:
        pytest.skip("Chromium not found: the printable book is not made")
    paths = small_lectures(tmp_path)  # two short lectures: two printed pages, no more
    site.build(tmp_path / "site", paths, pdf=True)
    out = tmp_path / "site"
    book = (out / "book.html").read_text(encoding="utf-8")
    assert book.count('<section class="sslviz-chapter"') == len(paths)
    pdf = out / "book.pdf"
    assert pdf.read_bytes().startswith(b"%PDF-")
    # each lecture starts a new page (both would fit on one), and neither takes more
    assert site_pages.pdf_page_count(pdf) == len(paths)
    assert 'href="book.pdf"' in (out / "index.html").read_text(encoding="utf-8")
    assert not (out / ".chromium-profile").exists()
