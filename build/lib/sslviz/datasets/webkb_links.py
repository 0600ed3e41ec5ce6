"""WebKB pages seen two ways: the words on a page, and the words of the links that point to it.

Blum & Mitchell (1998) co-trained on exactly these two views. Each page of the WebKB archive is
stored under its URL (``/`` written as ``^``), so the link structure can be rebuilt offline:
every ``<a href=…>`` of every page of the archive is resolved against that page's URL
(:func:`urllib.parse.urljoin`), and its anchor text is credited to the page it points to, when
that page is one of the pages loaded. Links from a page to itself do not count (the view is what
*other* pages say).

URLs are compared in a normal form (:func:`normal_url`): scheme, default port, fragment, query
and a trailing ``/`` or ``index.html`` dropped, host lower-cased, ``%7E`` read as ``~``.

The paper's page set: the pages of the four universities (Cornell, Texas, Washington, Wisconsin;
not the ``misc`` folder), of every class but WebKB's catch-all ``other``; the task is course
against the rest.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import unquote, urljoin, urlsplit

import numpy as np
from sklearn.utils import Bunch

from sslviz.datasets.fetch import file_sha256, locate
from sslviz.datasets.loaders import _read_members, html_to_text, strip_http_header

__all__ = ["UNIVERSITIES", "load_webkb_link_views", "normal_url", "page_url"]

UNIVERSITIES = ("cornell", "texas", "washington", "wisconsin")
_INDEX = re.compile(r"/(index|default|home)\.html?$", re.IGNORECASE)


def page_url(member: str) -> str:
    """The URL a WebKB archive member was fetched from (its file name, ``^`` for ``/``)."""
    return member.rsplit("/", 1)[-1].replace("^", "/")


def normal_url(url: str) -> str:
    """A URL in the form links are matched in: ``host/path`` (see the module docstring)."""
    parts = urlsplit(unquote(url.strip()))
    host = (parts.hostname or "").lower()
    path = _INDEX.sub("/", parts.path or "/")
    return f"{host}{path.rstrip('/')}"


class _AnchorCollector(HTMLParser):
    """Collect ``(href, anchor text)`` of every ``<a href>`` of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []
        self._href = None
        self._text = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self._close()
            href = dict(attrs).get("href")
            self._href, self._text = href, []

    def handle_endtag(self, tag):
        if tag == "a":
            self._close()

    def handle_data(self, data):
        if self._href is not None:
            self._text.append(data)

    def _close(self):
        if self._href is not None:
            self.links.append((self._href, " ".join("".join(self._text).split())))
        self._href = None

    def close(self):
        super().close()
        self._close()


def anchors(markup: str):
    """``[(href, text)]`` of a page's links, in order."""
    collector = _AnchorCollector()
    try:
        collector.feed(markup)
        collector.close()
    except AssertionError:  # html.parser gives up on some malformed declarations
        pass
    return collector.links


def load_webkb_link_views(*, universities=UNIVERSITIES, exclude=("other",), positive="course",
                          data_dir=None) -> Bunch:
    """The WebKB pages of ``universities`` with both views, for ``positive`` against the rest.

    Returns
    -------
    Bunch
        ``page_text`` and ``link_text`` (lists of str, one per page; ``link_text`` joins the anchor
        texts of the links from other pages of the archive that point to it, "" when none does),
        ``target`` (1 for ``positive`` pages, 0 else), ``classes`` (each page's WebKB class),
        ``groups`` (university), ``urls``, ``filenames``, ``n_inlinks`` (links counted per page),
        ``source``, ``sha256``.
    """
    path = locate("webkb", data_dir=data_dir)
    members = _read_members(path, lambda name: name.startswith("webkb/") and name.count("/") == 3)
    chosen = sorted(name for name in members
                    if name.split("/")[2] in universities and name.split("/")[1] not in exclude)
    index = {}
    for i, name in enumerate(chosen):
        index.setdefault(normal_url(page_url(name)), i)
    link_words = [[] for _ in chosen]
    n_inlinks = np.zeros(len(chosen), dtype=int)
    for name, raw in members.items():
        source_url = page_url(name)
        own = normal_url(source_url)
        body = strip_http_header(raw.decode("latin-1"))
        for href, text in anchors(body):
            target = normal_url(urljoin(source_url, href.strip()))
            i = index.get(target)
            if i is None or target == own or not text:
                continue
            link_words[i].append(text)
            n_inlinks[i] += 1
    classes = [name.split("/")[1] for name in chosen]
    return Bunch(
        page_text=[html_to_text(strip_http_header(members[n].decode("latin-1"))) for n in chosen],
        link_text=[" ".join(words) for words in link_words],
        target=np.array([c == positive for c in classes], dtype=np.int64),
        classes=np.array(classes, dtype=str),
        groups=np.array([name.split("/")[2] for name in chosen], dtype=str),
        urls=[page_url(n) for n in chosen],
        filenames=chosen,
        n_inlinks=n_inlinks,
        source=path,
        sha256=file_sha256(path),
    )
