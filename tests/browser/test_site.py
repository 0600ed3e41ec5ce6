"""The lecture site in Chromium: built once from the committed notebooks (and once from a small
fixture notebook with an explorer's static picture), served from localhost with no internet.

Each lecture page must show its title, math typeset by the MathJax copy inside the site (no raw
``$$`` left), its worked solutions folded, links to the previous and next lecture that lead there,
and request nothing outside the site; the contents page lists the lectures in teaching order.
"""

from __future__ import annotations

import functools
import html
import http.server
import threading

import nbformat
import pytest
from helpers import PATIENCE_S
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from sslviz import site

from .conftest import NOTEBOOKS

pytestmark = pytest.mark.xdist_group("site")
LECTURES = site.lectures(NOTEBOOKS)
PNG_1x1 = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJ"
           "RU5ErkJggg==")
ALT = "Explorer: accuracy against the number of labeled documents"


def serve(folder):
    """An HTTP server on a free localhost port for ``folder``; returns (server, base URL)."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def lecture_site(tmp_path_factory, chromium):
    out = tmp_path_factory.mktemp("site") / "site"
    entries = site.build(out)
    server, url = serve(out)
    yield entries, url
    server.shutdown()
    server.server_close()


def fixture_notebooks(folder):
    """Two tiny lectures: the first has math, a folded solution and an explorer output whose
    widget view comes with a static picture and alt text (as the explorers' outputs will)."""
    explorer = new_output("display_data", data={
        "application/vnd.jupyter.widget-view+json": {"model_id": "abc", "version_major": 2,
                                                      "version_minor": 0},
        "image/png": PNG_1x1, "text/plain": ALT})
    first = new_notebook(cells=[
        new_markdown_cell("# Lecture A — fixture\n\nThe likelihood $$P(d \\mid c) = \\prod_t "
                          "\\theta_t^{n_t}$$ and inline $x^2$."),
        new_code_cell("explore()", outputs=[explorer]),
        new_code_cell("answer = 42", metadata={"tags": ["solution"]}),
    ])
    second = new_notebook(cells=[new_markdown_cell("# Lecture B — fixture\n\n$a + b$")])
    paths = [folder / "01_a.ipynb", folder / "02_b.ipynb"]
    for path, nb in zip(paths, [first, second], strict=True):
        nbformat.write(nb, path)
    return paths


@pytest.fixture(scope="module")
def fixture_site(tmp_path_factory, chromium):
    folder = tmp_path_factory.mktemp("fixture")
    entries = site.build(folder / "site", fixture_notebooks(folder))
    server, url = serve(folder / "site")
    yield entries, url
    server.shutdown()
    server.server_close()


def open_page(browser, url):
    """Open ``url``; wait for MathJax; return the page and the URLs requested outside the site."""
    page = browser.new_page()
    outside, failed = [], []
    origin = "/".join(url.split("/", 3)[:3]) + "/"
    page.on("request", lambda r: None if r.url.startswith((origin, "data:"))
            else outside.append(r.url))
    page.on("requestfailed", lambda r: failed.append(r.url))
    page.goto(url)
    page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise",
                           timeout=PATIENCE_S * 1000)
    page.evaluate("() => MathJax.startup.promise")
    return page, outside, failed


def check_lecture_page(browser, url, entry, prev, nxt):
    page, outside, failed = open_page(browser, url + entry["href"])
    try:
        assert page.title() == entry["title"]
        assert page.locator("h1").first.inner_text().strip().startswith(entry["title"][:20])
        assert page.locator("mjx-container").count() > 0, "no math typeset by MathJax"
        text = page.locator("main").inner_text()
        assert "$$" not in text, "raw $$ left on the page"
        for details in page.locator("details.sslviz-solution").all():
            assert details.get_attribute("open") is None
            assert not details.locator(".jp-Cell").first.is_visible()
        images = page.locator("img").count()
        licence = page.locator("p.sslviz-licence a[rel=license]")
        assert licence.get_attribute("href") == "https://creativecommons.org/licenses/by/4.0/"
        for rel, target in (("prev", prev), ("next", nxt)):
            links = page.locator(f"nav.sslviz-nav a[rel={rel}]")
            assert links.count() == (2 if target else 0)
        if nxt:
            page.locator("nav.sslviz-nav a[rel=next]").first.click()
            page.wait_for_load_state()
            assert page.title() == nxt["title"]
        assert not outside, f"requests outside the site: {outside}"
        assert not failed, f"failed requests: {failed}"
        return images
    finally:
        page.close()


def test_contents_lists_the_lectures_in_teaching_order(browser, lecture_site):
    entries, url = lecture_site
    page = browser.new_page()
    page.goto(url + "index.html")
    names = page.locator("ol.sslviz-contents a").all_inner_texts()
    hrefs = [a.get_attribute("href") for a in page.locator("ol.sslviz-contents a").all()]
    licence = page.locator("p.sslviz-licence").inner_text()
    page.close()
    assert "CC BY 4.0" in licence and "BSD-3-Clause" in licence
    assert hrefs == [path.with_suffix(".html").name for path in LECTURES]
    assert [name.split(" —")[0] for name in names] == [f"Lecture {i}"
                                                       for i in range(1, len(LECTURES) + 1)]


@pytest.mark.parametrize("index", range(len(LECTURES)), ids=[p.stem for p in LECTURES])
def test_lecture_page(browser, lecture_site, index, record_property):
    entries, url = lecture_site
    prev = entries[index - 1] if index else None
    nxt = entries[index + 1] if index + 1 < len(entries) else None
    images = check_lecture_page(browser, url, entries[index], prev, nxt)
    record_property("images", images)
    assert images >= explorer_pictures(LECTURES[index])


def explorer_pictures(path):
    """How many explorer outputs of the notebook carry a static picture (each must be shown)."""
    nb = nbformat.read(path, as_version=4)
    return sum(1 for cell in nb.cells for output in cell.get("outputs", [])
               if {site.WIDGET_VIEW, "image/png"} <= set(output.get("data", {})))


def test_explorer_picture_and_solution_on_fixture(browser, fixture_site):
    entries, url = fixture_site
    assert check_lecture_page(browser, url, entries[0], None, entries[1]) == 1
    page, _, _ = open_page(browser, url + entries[0]["href"])
    try:
        image = page.locator("img")
        assert image.get_attribute("alt") == ALT
        assert image.evaluate("img => img.complete && img.naturalWidth") == 1
        solution = page.locator("details.sslviz-solution")
        assert solution.count() == 1 and not page.get_by_text("answer = 42").is_visible()
        solution.locator("summary").click()
        assert page.get_by_text("answer = 42").is_visible()
        assert page.locator("mjx-container[display=true]").count() == 1
    finally:
        page.close()
    check_lecture_page(browser, url, entries[1], entries[0], None)


HOSTILE_TEXT = "Kept words around every attack"


def hostile_notebook(folder):
    """A lecture whose cells try to run script every way a notebook can (each would set
    ``window.PWNED``), beside text, a table, math and the project's own markup that must show."""
    attacks = new_code_cell("show()", outputs=[
        new_output("display_data", data={
            "text/html": "<b>bold output</b><script>window.PWNED = 'html output'</script>"
                         "<a id='js-link' href='JaVa\tScRiPt:window.PWNED=\"href\"'>link</a>"
                         "<iframe src='javascript:window.PWNED=\"iframe\"'></iframe>"
                         "<img src='x' onerror='window.PWNED = \"img in output\"'>",
            "text/plain": "html"}),
        new_output("display_data", data={"application/javascript": "window.PWNED = 'js output'",
                                         "text/plain": "js"}),
        new_output("display_data", data={
            "text/markdown": "markdown output <svg onload='window.PWNED = \"svg\"'></svg>"}),
    ])
    nb = new_notebook(cells=[
        new_markdown_cell(
            f"# Lecture H — hostile\n\n{HOSTILE_TEXT} <script>window.PWNED = 'markdown'</script>"
            " <img src='missing.png' onerror='window.PWNED = \"onerror\"'> "
            "[click me](javascript:window.PWNED='link') <span class=\"paper\">Nigam et al. "
            "(2000)</span> and $x < y$.\n\n| a | b |\n|--:|---|\n| 1 | 2 |"),
        attacks])
    path = folder / "01_hostile.ipynb"
    nbformat.write(nb, path)
    return path


def test_a_hostile_notebook_runs_no_script_in_the_browser(browser, tmp_path):
    entries = site.build(tmp_path / "site", [hostile_notebook(tmp_path)])
    server, url = serve(tmp_path / "site")
    try:
        page, _, _ = open_page(browser, url + entries[0]["href"])
        page.wait_for_timeout(300)  # an image's onerror fires once its load has failed
        marker = "() => window.PWNED === undefined ? null : String(window.PWNED)"
        assert page.evaluate(marker) is None
        page.locator("a", has_text="click me").click(timeout=PATIENCE_S * 1000)
        page.locator("#js-link").click(timeout=PATIENCE_S * 1000)
        page.wait_for_timeout(300)
        assert page.evaluate(marker) is None
        text = page.locator("main").inner_text()
        for shown in (HOSTILE_TEXT, "window.PWNED = 'markdown'", "bold output",
                      "markdown output", "Nigam et al. (2000)"):
            assert shown in text
        assert page.locator("span.paper").count() == 1
        assert page.locator("table td").count() == 2
        assert page.locator("mjx-container").count() == 1  # $x < y$ still typeset
        page.close()
    finally:
        server.shutdown()
        server.server_close()


# ---------------------------------------------------------------- without a browser


def test_the_built_page_holds_no_script_from_the_notebook(tmp_path):
    import re

    entries = site.build(tmp_path / "site", [hostile_notebook(tmp_path)])
    page = (tmp_path / "site" / entries[0]["href"]).read_text(encoding="utf-8")
    main = page[page.index("<main>"):page.index("</main>")]
    live_tags = [tag.lower() for tag in re.findall(r"<[a-zA-Z][^>]*>", main)]
    assert not [tag for tag in live_tags if tag.startswith(("<script", "<iframe", "<svg"))
                or re.search(r"\son[a-z]+=|javascript:", tag)]
    assert "js output" not in main  # an application/javascript output is dropped
    assert HOSTILE_TEXT in main  # the citation keeps its markup (and links to the bibliography)
    assert re.search(r'<span class="paper"><a class="sslviz-cite" href="bibliography.html#'
                     r'nigam2000">Nigam et al\. \(2000\)</a></span>', main)
    shown = html.unescape(main)  # the attacks are shown as text
    assert "<script>window.PWNED = 'markdown'</script>" in shown
    assert "<iframe src='javascript:window.PWNED=\"iframe\"'></iframe>" in shown
    assert '<td style="text-align:right;">1</td>' in main  # markdown tables keep alignment
    assert "<b>bold output</b>" in main


def test_missing_mathjax_package_is_one_clear_line(tmp_path, monkeypatch, capsys):
    def not_installed(name):
        raise site.importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(site.importlib.metadata, "files", not_installed)
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("old", encoding="utf-8")
    (tmp_path / "site" / ".sslviz-output").write_text("made by: python -m sslviz.site\n")
    paths = fixture_notebooks(tmp_path)
    assert site.main([str(tmp_path / "site"), "--notebooks", *map(str, paths)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: sphinx-mathjax-offline is not installed; install the site tools with "
                   "`pip install -e '.[site]'` (`python3 run.py site` does)"]
    # the build is atomic: the old site is untouched and no temporary folder is left behind
    assert (tmp_path / "site" / "index.html").read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["01_a.ipynb", "02_b.ipynb", "site"]


def test_static_view_keeps_the_picture_and_drops_the_widget_view(tmp_path):
    nb = nbformat.read(fixture_notebooks(tmp_path)[0], as_version=4)
    nb.metadata["widgets"] = {"state": {}}
    static = site.static_view(nb)
    assert set(static.cells[1].outputs[0].data) == {"image/png", "text/plain"}
    assert "widgets" not in static.metadata
    assert site.WIDGET_VIEW in nb.cells[1].outputs[0].data  # the original is unchanged
    assert site.lecture_title(nb, "x.ipynb") == "Lecture A — fixture"


def test_no_lectures_is_an_error(tmp_path):
    with pytest.raises(site.SiteError, match=r"no lecture notebooks \(NN_name.ipynb\) in "):
        site.lectures(tmp_path)
