"""The site's glossary and bibliography pages, and the links to them from the lecture pages.

:func:`link_page` adds, on one lecture page, a link to the glossary at the first occurrence of
each term of :data:`sslviz.glossary.TERMS` and a link to the bibliography at the first citation
of each source of :data:`sslviz.bibliography.SOURCES`. Only the prose is linked (markdown cells):
never code, outputs, headings, existing links or TeX between ``$``/``\\(``/``\\[`` delimiters.
:func:`glossary_page` and :func:`bibliography_page` are the two pages, in the site's colours and
with its bar (search, theme toggle), as every page of the site.
"""

from __future__ import annotations

import html
import re

from sslviz import site_pages
from sslviz.bibliography import SOURCES
from sslviz.glossary import TERMS

GLOSSARY = "glossary.html"
BIBLIOGRAPHY = "bibliography.html"
PROSE = "jp-RenderedMarkdown"
"""The class of a markdown cell's rendered text on a lecture page (nbconvert's lab template)."""
SKIPPED = frozenset({"a", "code", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "summary",
                     "script", "style", "kbd", "samp", "em", "i", "cite"})
"""Tags whose text is never linked (italics: the lectures set titles of works in them)."""
PICTURE_SOURCE = re.compile(r'(src="data:image/[a-z+]+;base64,)([A-Za-z0-9+/=\s]*)(")')
"""A picture's base64 payload in a ``src``: set aside while the page is parsed (html.parser spent
most of its time in them) and put back as it was; the formatter writes base64 unchanged."""
MARK = "@sslviz-picture-"
PICTURE_MARK = re.compile(rf"{MARK}(\d+)@")
MATH = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|\\\(.*?\\\)|\\\[.*?\\\]", re.DOTALL)


def _compiled(pattern, flags=0):
    """``pattern`` with each space matching any run of white space (prose wraps lines)."""
    return re.compile(pattern.replace(" ", r"\s+"), flags)


def targets():
    """(kind, key, compiled pattern, href) of every glossary term and cited source."""
    terms = [("term", t.key, _compiled(t.pattern, re.IGNORECASE), f"{GLOSSARY}#{t.key}")
             for t in TERMS]
    sources = [("cite", s.key, _compiled(s.pattern), f"{BIBLIOGRAPHY}#{s.key}")
               for s in SOURCES]
    return terms + sources


def _first_match(text, pending):
    """The earliest match of a pending target in ``text`` outside TeX, as (match, target)."""
    math = [m.span() for m in MATH.finditer(text)]
    best = None
    for target in pending:
        for match in target[2].finditer(text):
            if not any(a < match.end() and match.start() < b for a, b in math):
                if best is None or match.start() < best[0].start():
                    best = (match, target)
                break
    return best


def _skipped(node, container):
    parent = node.parent
    while parent is not None and parent is not container:
        if parent.name in SKIPPED:
            return True
        parent = parent.parent
    return False


def link_page(page_html):
    """``page_html`` with each glossary term and cited source linked once (its first occurrence
    in the prose); returns (new html, keys linked in page order)."""
    from bs4 import BeautifulSoup, NavigableString

    page_html, payloads = _set_pictures_aside(page_html)
    soup = BeautifulSoup(page_html, "html.parser")
    pending, linked = targets(), []
    for container in soup.find_all("div", class_=PROSE):
        for node in list(container.find_all(string=True)):
            if type(node) is not NavigableString or _skipped(node, container):
                continue
            while pending:
                found = _first_match(str(node), pending)
                if found is None:
                    break
                match, target = found
                text = str(node)
                link = soup.new_tag("a", attrs={"class": f"sslviz-{target[0]}", "href": target[3]})
                link.string = match.group(0)
                after = NavigableString(text[match.end():])
                node.replace_with(NavigableString(text[:match.start()]), link, after)
                node = after
                pending.remove(target)
                linked.append(target[1])
    page_html = soup.decode(formatter=_in_order())
    if payloads:
        page_html = PICTURE_MARK.sub(lambda m: payloads[int(m[1])], page_html)
    return page_html, linked


def _set_pictures_aside(page_html):
    """``page_html`` with each picture's base64 payload replaced by a numbered mark, and the
    payloads; none set aside when the page already holds the mark's text."""
    if MARK in page_html:
        return page_html, []
    payloads = []

    def set_aside(match):
        payloads.append(match[2])
        return f"{match[1]}{MARK}{len(payloads) - 1}@{match[3]}"

    return PICTURE_SOURCE.sub(set_aside, page_html), payloads


def _in_order():
    """bs4's "minimal" output, with each tag's attributes in their written order (not sorted)."""
    from bs4.dammit import EntitySubstitution
    from bs4.formatter import HTMLFormatter

    class InOrder(HTMLFormatter):
        def attributes(self, tag):
            return list(tag.attrs.items())

    return InOrder(entity_substitution=EntitySubstitution.substitute_xml)


def page(title, body, colours):
    """A page of the site (not a lecture) in its colours (``colours``: the style sheet's text),
    with the site's bar (search, theme), a link back to the contents and the licence line."""
    return (site_pages.page_head(title, colours)
            + '<p><a rel="contents" href="index.html">Contents</a></p>\n'
            f"<h1>{html.escape(title)}</h1>\n{body}\n" + site_pages.page_foot())


def _lecture_links(keys, cited_by, entries):
    numbers = cited_by.get(keys, [])
    return ", ".join(f'<a href="{html.escape(entries[n - 1]["href"])}">Lecture {n}</a>'
                     for n in numbers)


def glossary_page(entries, colours):
    """The glossary: every term with its definition and the lecture that explains it."""
    items = []
    for term in TERMS:
        lecture = entries[term.lecture - 1] if term.lecture <= len(entries) else None
        where = (f' (<a href="{html.escape(lecture["href"])}">Lecture {term.lecture}</a>)'
                 if lecture else f" (Lecture {term.lecture})")
        items.append(f'<dt id="{term.key}">{html.escape(term.name)}</dt>\n'
                     f"<dd>{html.escape(term.definition)}{where}</dd>")
    body = ("<p>The terms of the course, each with the lecture that explains it. On the "
            "lecture pages, the first use of a term links here.</p>\n<dl>\n"
            + "\n".join(items) + "\n</dl>")
    return page("Glossary", body, colours)


def bibliography_page(entries, cited_by, colours):
    """The bibliography: every source with the lectures that cite it (``cited_by``: key ->
    lecture numbers)."""
    items = []
    for source in SOURCES:
        head = html.escape(source.authors) + (f" ({source.year})" if source.year else "")
        head += "" if head.endswith(".") else "."
        title = (f" <cite>{html.escape(source.title)}</cite>." if source.title
                 else " (title not given in the lectures or the course's papers).")
        venue = f" {html.escape(source.venue)}." if source.venue else ""
        cited = _lecture_links(source.key, cited_by, entries)
        items.append(f'<li id="{source.key}">{head}{title}{venue}'
                     + (f" Cited in {cited}." if cited else "") + "</li>")
    body = ("<p>The works the lectures cite, with the lectures that cite them. Venues are given "
            "as the papers the course reproduces print them in their reference lists; where none "
            "of them names a work, only what the lecture says is given.</p>\n<ul>\n"
            + "\n".join(items) + "\n</ul>")
    return page("Bibliography", body, colours)


def colours_css():
    """The site's colours (one style sheet, shared by every page; package data)."""
    return site_pages.template_file("static", "colours.css").read_text(encoding="utf-8")
