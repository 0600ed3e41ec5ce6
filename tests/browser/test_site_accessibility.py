"""The lecture site is accessible and its reference pages are wired in.

Built once from the committed notebooks. In Chromium, axe-core (vendored from npm, see
``axe.py``) must report no WCAG 2.1 A/AA violation on any page. Without a browser, on the built
HTML: every picture has a description (alt), the glossary and the bibliography exist and every
page links to them, each term and source is linked from the lectures, and every link inside the
site leads to a page (and an anchor) that exists.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from sslviz import site, site_reference
from sslviz.bibliography import SOURCES
from sslviz.glossary import TERMS

from .axe import axe_script, violations
from .conftest import NOTEBOOKS
from .test_site import serve

pytestmark = pytest.mark.xdist_group("site")
LECTURES = site.lectures(NOTEBOOKS)
LECTURE_PAGES = [p.with_suffix(".html").name for p in LECTURES]
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
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "site"
    site.build(out)
    return out, {name: _Page((out / name).read_text(encoding="utf-8")) for name in PAGES}


@pytest.mark.parametrize("name", PAGES)
def test_no_wcag_21_aa_violation(browser, built, name):
    script = axe_script()
    out, _ = built
    server, url = serve(out)
    page = browser.new_page()
    try:
        page.goto(url + name)
        page.wait_for_function("() => !window.MathJax || (MathJax.startup && "
                               "MathJax.startup.promise)")
        page.evaluate("() => window.MathJax ? MathJax.startup.promise : null")
        found = violations(page, script)
    finally:
        page.close()
        server.shutdown()
        server.server_close()
    assert not found, "\n".join(f"{v['id']} ({v['help']}), {len(v['nodes'])} elements, e.g. "
                                f"{v['nodes'][0]}" for v in found)


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
