"""The lecture site is accessible and its reference pages are wired in.

Built once from the committed notebooks (the build ``test_site.py`` uses too). In Chromium,
axe-core (vendored from npm, see ``axe.py``) must report no WCAG 2.1 A/AA violation on any page
in the light theme, with the search results drawn and the worked solutions unfolded;
``contrast.js`` (every visible text against the colours it is drawn on) must find no text below
AA contrast on any page in either theme. The dark theme (the toggle changes colours only, so the
layout axe checked in the light theme stays) gets axe's colour rules on every page that shows a
colour pair (text colour on background, large or not, link or not) no page before it showed in
the dark theme: each pair is judged by axe at least once, and on every page by ``contrast.js``.
axe's colour-contrast rule is most of the audit's time, and the lecture pages share one template,
so most of them show no new pair. One browser page visits every page in turn. Without a browser, on
the built HTML: every picture has a description (alt), the glossary and the bibliography exist
and every page links to them, each term and source is linked from the lectures, and every link
inside the site leads to a page (and an anchor) that exists.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from helpers import PATIENCE_S

from sslviz import site, site_reference
from sslviz.bibliography import SOURCES
from sslviz.glossary import TERMS

from .axe import axe_script, violations
from .conftest import NOTEBOOKS
from .test_site import CONTRAST, serve

pytestmark = pytest.mark.xdist_group("site")
LECTURES = site.lectures(NOTEBOOKS)
LECTURE_PAGES = [p.with_suffix(".html").name for p in LECTURES]
COLOUR_RULES = ("color-contrast", "link-in-text-block")  # what a theme can break
THEMES = ("light", "dark")  # the first is the reader's preference; the toggle switches to the other
PAGES = ["index.html", site_reference.GLOSSARY, site_reference.BIBLIOGRAPHY, *LECTURE_PAGES,
         *([site.REPORT_PAGE["href"]] if site.REPORT.is_file() else [])]


class _Page(HTMLParser):
    """The pictures, links and ids of one page."""

    def __init__(self, text):
        super().__init__()
        self.images, self.links, self.ids = [], [], set()
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "img":
            self.images.append(attrs)
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])


@pytest.fixture(scope="module")
def built(committed_site):
    out, _ = committed_site
    return out, {name: _Page((out / name).read_text(encoding="utf-8")) for name in PAGES}


def audit(page, url, script, judged):
    """axe's violations and ``contrast.js``'s low-contrast texts on the page at ``url``, opened in
    ``page`` (a light colour scheme), in each theme (dark: switched with the page's toggle, then
    back), with the search results drawn and the worked solutions unfolded: every text the reader
    can bring up is checked. In the dark theme axe runs its colour rules only if the page shows a
    colour pair not in ``judged`` (the pairs of the pages axe checked in the dark theme so far; the
    page's pairs are added). Returns theme -> problems, and the page's dark pairs."""
    page.goto(url)
    page.wait_for_function("() => !window.MathJax || (MathJax.startup && "
                           "MathJax.startup.promise)")
    page.evaluate("() => window.MathJax ? MathJax.startup.promise : null")  # math typeset
    page.locator("#sslviz-search-input").fill("lecture")
    page.locator("#sslviz-search-results li").first.wait_for()
    page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
    found, pairs = {}, set()
    for theme in THEMES:
        if theme != THEMES[0]:
            page.locator("button.sslviz-theme-toggle").click()
        assert page.evaluate("document.documentElement.dataset.theme") == theme, url
        found[theme] = []
        if theme == THEMES[0]:
            found[theme] = axe_problems(page, script, None)
        else:  # the toggle changes colours only: axe's colour rules, on pairs new in this theme
            pairs = set(page.evaluate(CONTRAST, True))
            if not pairs <= judged:
                found[theme] = axe_problems(page, script, COLOUR_RULES)
                judged |= pairs
        found[theme] += [f"contrast below WCAG AA: {text}" for text in page.evaluate(CONTRAST)]
    page.locator("button.sslviz-theme-toggle").click()  # the next page opens light again
    return found, pairs


def axe_problems(page, script, rules):
    """axe's violations on the page (of the named ``rules`` only, unless None), one line each."""
    return [f"{v['id']} ({v['help']}), {len(v['nodes'])} elements, e.g. {v['nodes'][0]}"
            for v in violations(page, script, rules=rules)]


@pytest.fixture(scope="module")
def audits(browser, built):
    """:func:`audit` of every page: theme -> page -> problems, and the colour pairs shown in the
    dark theme by all pages and by the pages whose pairs axe judged in it. One browser page goes
    from page to page."""
    script = axe_script()
    out, _ = built
    server, url = serve(out)
    page = browser.new_page(color_scheme="light")
    page.set_default_timeout(PATIENCE_S * 1000 / 5)  # one page's load or check, on a busy machine
    try:
        judged, found, shown = set(), {}, set()
        for name in PAGES:
            found[name], pairs = audit(page, url + name, script, judged)
            shown |= pairs
        problems = {theme: {name: found[name][theme] for name in PAGES} for theme in THEMES}
        return problems, shown, judged
    finally:
        page.close()
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("theme", THEMES)
def test_no_wcag_21_aa_violation_on_any_page(audits, theme):
    found, shown, judged = audits
    problems = [f"{name}: {problem}" for name, page_problems in found[theme].items()
                for problem in page_problems]
    assert len(found[theme]) == len(PAGES)
    assert not problems, "\n".join(problems)
    # every colour pair of the dark theme was judged by axe on some page
    assert shown and shown == judged


def test_every_picture_has_a_description(built):
    _, pages = built
    missing = [f"{name}: picture {i + 1}" for name, page in pages.items()
               for i, image in enumerate(page.images)
               if not (image.get("alt") or "").strip() or image["alt"].startswith("<")]
    assert sum(len(page.images) for page in pages.values()) > 0
    assert not missing, f"pictures without a description: {missing}"


def test_every_page_links_the_glossary_and_the_bibliography(built):
    _, pages = built
    for name, page in pages.items():
        targets = {urlsplit(link).path for link in page.links}
        if name == "index.html" or name in LECTURE_PAGES:
            assert {site_reference.GLOSSARY, site_reference.BIBLIOGRAPHY} <= targets, name
        else:
            assert "index.html" in targets, name


def test_every_term_and_source_is_linked_from_a_lecture(built):
    _, pages = built
    lecture_links = {name: set(pages[name].links) for name in LECTURE_PAGES}
    for term in TERMS:
        own = LECTURE_PAGES[term.lecture - 1]
        assert f"{site_reference.GLOSSARY}#{term.key}" in lecture_links[own], (term.key, own)
    for source in SOURCES:
        href = f"{site_reference.BIBLIOGRAPHY}#{source.key}"
        assert any(href in links for links in lecture_links.values()), source.key
    cited = pages[site_reference.BIBLIOGRAPHY].links
    assert all(link in cited for link in ("04_em_naive_bayes.html", "09_hybrid_generative_"
                                          "discriminative.html"))


def test_every_link_inside_the_site_resolves(built):
    out, pages = built
    broken = []
    for name, page in pages.items():
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc:
                continue
            target = parts.path or name
            if not (out / target).is_file():
                broken.append(f"{name} -> {link}")
            elif parts.fragment and target in pages and parts.fragment not in pages[target].ids:
                broken.append(f"{name} -> {link} (no such anchor)")
    assert not broken, broken


def test_terms_are_linked_once_per_page_in_the_prose(built):
    out, _ = built
    text = (out / LECTURE_PAGES[3]).read_text(encoding="utf-8")  # lecture 4
    assert len(re.findall(r'href="glossary\.html#em"', text)) == 1
    assert Path(out / "glossary.html").read_text(encoding="utf-8").count("<dt id=") == len(TERMS)
