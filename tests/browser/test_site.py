"""The lecture site in Chromium: built once from the committed notebooks (and once from a small
fixture notebook with an explorer's static picture), served from localhost with no internet.

Each lecture page must show its title, math typeset by the MathJax copy inside the site (no raw
``$$`` left), its worked solutions folded, links to the previous and next lecture that lead there,
and request nothing outside the site; the contents page lists the lectures in teaching order. The
site's own features work in the page: search across lectures, the page's contents, links where one
lecture names another, copy buttons, the light/dark toggle (remembered), the notebook's download
and launch links; the glossary and the bibliography carry the same search and toggle. Both themes'
contrast is checked on every page in ``test_site_accessibility.py`` (axe-core and ``contrast.js``).
"""

from __future__ import annotations

import functools
import html
import http.server
import threading
from pathlib import Path

import nbformat
import pytest
from helpers import PATIENCE_S
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from sslviz import site, site_pages, site_reference

from .conftest import NOTEBOOKS

pytestmark = pytest.mark.xdist_group("site")
LECTURES = site.lectures(NOTEBOOKS)
PNG_1x1 = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJ"
           "RU5ErkJggg==")
ALT = "Explorer: accuracy against the number of labeled documents"
CONTRAST = (Path(__file__).parent / "contrast.js").read_text(encoding="utf-8")


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
def lecture_site(committed_site, chromium):
    out, entries = committed_site
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
        new_markdown_cell("## Where the quokka lives\n\nOnly this section names the quokka."),
        new_code_cell("for i in range(3):\n    print(i < 2)", execution_count=7),
        new_markdown_cell("## Exercises\n\nLecture 2 asks more."),
    ])
    second = new_notebook(cells=[new_markdown_cell("# Lecture B — fixture\n\n$a + b$, as in "
                                                   "lecture 1.")])
    paths = [folder / "01_a.ipynb", folder / "02_b.ipynb"]
    for path, nb in zip(paths, [first, second], strict=True):
        nbformat.write(nb, path)
    return paths


@pytest.fixture(scope="module")
def fixture_folder(tmp_path_factory):
    return tmp_path_factory.mktemp("fixture")


@pytest.fixture(scope="module")
def fixture_site(fixture_folder, chromium):
    folder = fixture_folder
    entries = site.build(folder / "site", fixture_notebooks(folder), binder="owner/name")
    server, url = serve(folder / "site")
    yield entries, url
    server.shutdown()
    server.server_close()


def open_page(browser, url, math=True):
    """Open ``url``; wait for MathJax (``math``: the page loads it); return the page and the URLs
    requested outside the site."""
    page = browser.new_page()
    outside, failed = [], []
    origin = "/".join(url.split("/", 3)[:3]) + "/"
    page.on("request", lambda r: None if r.url.startswith((origin, "data:"))
            else outside.append(r.url))
    page.on("requestfailed", lambda r: failed.append(r.url))
    page.goto(url)
    if not math:
        return page, outside, failed
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


# ---------------------------------------------------------------- the site's own features


def test_search_finds_a_section_of_another_lecture_and_leads_to_it(browser, fixture_site):
    entries, url = fixture_site
    page, outside, failed = open_page(browser, url + entries[1]["href"])
    try:
        results = page.locator("#sslviz-search-results")
        assert not results.is_visible()
        page.locator("#sslviz-search-input").fill("QUOKKA lives")
        links = results.locator("a")
        assert links.all_inner_texts() == ["Where the quokka lives"]
        assert results.locator(".sslviz-search-page").inner_text() == entries[0]["title"]
        page.locator("#sslviz-search-input").fill("quokka nowhere-to-be-found")
        assert results.inner_text() == "No section mentions quokka nowhere-to-be-found"
        page.locator("#sslviz-search-input").fill("quokka")
        page.locator("#sslviz-search-input").press("Enter")  # the first result
        page.wait_for_url("**/" + entries[0]["href"] + "#*")
        anchor = page.evaluate("decodeURIComponent(location.hash.slice(1))")
        assert page.locator(f"h2[id='{anchor}']").inner_text().startswith("Where the quokka")
        assert page.locator(f"h2[id='{anchor}']").is_visible()
        assert not outside and not failed
    finally:
        page.close()


def test_search_on_the_contents_page_reaches_the_lectures(browser, lecture_site):
    entries, url = lecture_site
    page, outside, failed = open_page(browser, url + "index.html", math=False)
    try:
        page.locator("#sslviz-search-input").fill("Yarowsky")
        hrefs = [a.get_attribute("href") for a in
                 page.locator("#sslviz-search-results a").all()]
        assert hrefs and all(h.split("#")[0] in {e["href"] for e in entries} for h in hrefs)
        assert any(h.startswith("03_yarowsky.html#") for h in hrefs)
        assert not outside and not failed
    finally:
        page.close()


@pytest.mark.parametrize("name", [site_reference.GLOSSARY, site_reference.BIBLIOGRAPHY])
def test_the_reference_pages_search_the_lectures_and_toggle_the_theme(browser, fixture_site, name):
    entries, url = fixture_site
    context = browser.new_context(color_scheme="light")
    page = context.new_page()
    try:
        page.goto(url + name)
        assert theme_of(page) == ["light", "rgb(255, 255, 255)"]
        page.locator("button.sslviz-theme-toggle").click()
        assert theme_of(page) == ["dark", "rgb(17, 17, 17)"]
        assert page.locator("button.sslviz-theme-toggle").get_attribute("aria-pressed") == "true"
        assert page.evaluate("localStorage.getItem('sslviz-theme')") == "dark"
        page.locator("#sslviz-search-input").fill("quokka")
        results = page.locator("#sslviz-search-results a")
        assert results.all_inner_texts() == ["Where the quokka lives"]
        page.locator("#sslviz-search-input").press("Enter")
        page.wait_for_url("**/" + entries[0]["href"] + "#*")
        assert page.title() == entries[0]["title"]
        assert theme_of(page) == ["dark", "rgb(17, 17, 17)"]  # the choice holds on the lecture
    finally:
        context.close()


def test_contents_and_cross_references_link_where_they_say(browser, fixture_site):
    entries, url = fixture_site
    page, outside, failed = open_page(browser, url + entries[0]["href"])
    try:
        toc = page.locator("nav.sslviz-toc a")
        assert toc.all_inner_texts() == ["Where the quokka lives", "Exercises"]
        toc.nth(1).click()
        anchor = page.evaluate("decodeURIComponent(location.hash.slice(1))")
        assert page.locator(f"h2[id='{anchor}']").inner_text().startswith("Exercises")
        assert page.locator(f"h2[id='{anchor}']").is_visible()
        page.locator("main a", has_text="Lecture 2").click()  # "Lecture 2 asks more."
        page.wait_for_load_state()
        assert page.title() == entries[1]["title"]
        page.locator("main a", has_text="lecture 1").click()  # "as in lecture 1."
        page.wait_for_load_state()
        assert page.title() == entries[0]["title"]
        assert not outside and not failed
    finally:
        page.close()


def test_copy_buttons_copy_the_source_without_prompts(browser, fixture_site):
    entries, url = fixture_site
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    try:
        page.goto(url + entries[0]["href"])
        buttons = page.locator("button.sslviz-copy")
        assert buttons.count() == 3  # the three code cells, the folded solution's too
        buttons.nth(2).click()
        assert page.evaluate("navigator.clipboard.readText()") == "for i in range(3):\n" \
                                                                   "    print(i < 2)"
        assert buttons.nth(2).inner_text() == "Copied"
        buttons.nth(0).click()
        assert page.evaluate("navigator.clipboard.readText()") == "explore()"
    finally:
        context.close()


def theme_of(page):
    return page.evaluate("""() => [document.documentElement.dataset.theme,
        getComputedStyle(document.body).backgroundColor]""")


@pytest.mark.parametrize("preferred", ["light", "dark"])
def test_the_theme_follows_the_reader_until_toggled_then_is_remembered(browser, fixture_site,
                                                                        preferred):
    entries, url = fixture_site
    other = "dark" if preferred == "light" else "light"
    background = {"light": "rgb(255, 255, 255)", "dark": "rgb(17, 17, 17)"}
    context = browser.new_context(color_scheme=preferred)
    page = context.new_page()
    try:
        page.goto(url + entries[0]["href"])
        assert theme_of(page) == [preferred, background[preferred]]
        toggle = page.locator("button.sslviz-theme-toggle")
        assert toggle.get_attribute("aria-pressed") == str(preferred == "dark").lower()
        toggle.click()
        assert theme_of(page) == [other, background[other]]
        assert page.evaluate("localStorage.getItem('sslviz-theme')") == other
        page.goto(url + "index.html")  # another page of the site, the same choice
        assert theme_of(page) == [other, background[other]]
        page.locator("button.sslviz-theme-toggle").click()
        page.reload()
        assert theme_of(page) == [preferred, background[preferred]]
    finally:
        context.close()


def test_the_page_downloads_its_notebook_and_links_binder_and_colab(browser, fixture_site,
                                                                      fixture_folder):
    entries, url = fixture_site
    page, outside, failed = open_page(browser, url + entries[0]["href"])
    try:
        with page.expect_download() as download:
            page.locator("a.sslviz-download").click()
        assert download.value.suggested_filename == "01_a.ipynb"
        saved = Path(download.value.path()).read_bytes()
        assert saved == (fixture_folder / "01_a.ipynb").read_bytes()
        launch = site_pages.launch_links("owner/name", "01_a.ipynb")
        assert page.locator("a.sslviz-launch-binder").get_attribute("href") == launch["binder"]
        assert page.locator("a.sslviz-launch-colab").get_attribute("href") == launch["colab"]
        assert not outside and not failed  # neither link is followed by the page itself
    finally:
        page.close()


HOSTILE_TEXT = "Kept words around every attack"


CODE_ATTACK = ("shown = \"<script>window.PWNED = 'code cell'</script>\"\n"
               "img = \"<img src=x onerror='window.PWNED = 1'>\"")
"""A code cell's text: Pygments escapes it, and the site keeps that markup as it is."""


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
        attacks, new_code_cell(CODE_ATTACK)])
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
        page.locator("#sslviz-search-input").fill("PWNED")  # the attacks, as search results
        assert page.locator("#sslviz-search-results li").count() >= 1
        page.wait_for_timeout(300)
        assert page.evaluate(marker) is None
        text = page.locator("main").inner_text()
        for shown in (HOSTILE_TEXT, "window.PWNED = 'markdown'", "window.PWNED = 'code cell'",
                      "bold output",
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
    assert "<script>window.PWNED = 'code cell'</script>" in shown  # code: shown as text
    assert "<img src=x onerror='window.PWNED = 1'>" in shown
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
