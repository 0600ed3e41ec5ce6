"""What a page of the lecture site carries beyond the notebook (used by :mod:`sslviz.site`).

- **Cross-references**: "lecture 04", "Lecture 12", "lectures 3 and 4" in a markdown cell become
  links to those lectures (:func:`link_lectures`; code, math, links and headings are left alone).
- **In-page contents**: the page's section headings, read from the rendered page
  (:func:`page_sections`), listed with their anchors (:func:`contents_nav`).
- **Search**: the sections of every page, with their text, written at build time into
  ``search-index.js`` (:func:`search_index`); the site's own script searches it in the page.
- **Download and launch**: links to the notebook copied into the site and, when the project names
  its repository (``pyproject.toml``'s ``[project.urls]``), to Binder and Colab
  (:func:`project_repository`, :func:`launch_links`).
- **The printable book**: one page of all lectures (:func:`book_page`) printed to one PDF by
  Chromium, headless and offline (:func:`print_book`).
"""

from __future__ import annotations

import functools
import html
import http.server
import importlib.metadata
import importlib.resources
import json
import os
import re
import shutil
import subprocess
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = importlib.resources.files("sslviz") / "site_templates"
"""The site's nbconvert template (``sslviz``), style sheets and scripts: package data, so an
installed wheel builds the site as a checkout does."""
TEMPLATE = "sslviz"  # nbconvert's name of the template: the folder TEMPLATES / TEMPLATE
BINDER = "https://mybinder.org/v2/gh/{repo}/HEAD?labpath={path}"
COLAB = "https://colab.research.google.com/github/{repo}/blob/{branch}/{path}"
BRANCH = "main"  # the branch Colab opens (Binder follows the repository's HEAD)
URL_KEYS = ("repository", "source", "source code", "homepage")  # [project.urls], in preference
GITHUB = re.compile(r"^https://github\.com/([A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*?)(?:\.git)?/?$")
SEARCH_INDEX = "search-index.js"
NOTEBOOK_FOLDER = "notebooks"
CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
PRINT_BUDGET_MS = 120_000  # virtual time Chromium gives the book's scripts (MathJax) to finish
PRINT_TIMEOUT_S = 900

# ---------------------------------------------------------------- cross-references

LECTURE_MENTION = re.compile(
    r"\b(?P<word>[Ll]ectures?)(?P<space>\s+)"
    r"(?P<numbers>\d{1,2}(?:(?:\s*,\s*|\s+and\s+|\s+or\s+|\s*[–-]\s*)\d{1,2})*)\b(?![.,]?\d)")
PROTECTED = re.compile(
    r"```.*?```|~~~.*?~~~|`[^`\n]*`|\$\$.*?\$\$|\$[^$\n]+\$|\\\(.*?\\\)|\\\[.*?\\\]"
    r"|!?\[[^\]\n]*\]\([^)\n]*\)|<[^>\n]*>|^[ ]{0,3}#[^\n]*$|https?://\S+",
    re.DOTALL | re.MULTILINE)
"""Markdown where no link is added: code, math, links and pictures, HTML tags, headings, URLs."""


def lecture_number(path):
    """The teaching position of a lecture from its ``NN_`` file name (``04_em.ipynb``: 4)."""
    return int(Path(path).name[:2])


def link_lectures(markdown, targets, current=None):
    """``markdown`` with each mention of another lecture ("lecture 04", "Lectures 3 and 4")
    linked to its page; ``targets`` maps lecture numbers to pages, ``current`` is not linked."""
    def link_mention(match):
        numbers = [int(n) for n in re.findall(r"\d+", match["numbers"])]
        if len(numbers) == 1:
            if numbers[0] in targets and numbers[0] != current:
                return f"[{match[0]}]({targets[numbers[0]]})"
            return match[0]
        linked = re.sub(r"\d{1,2}", lambda m: (f"[{m[0]}]({targets[int(m[0])]})"
                                               if int(m[0]) in targets and int(m[0]) != current
                                               else m[0]), match["numbers"])
        return match["word"] + match["space"] + linked

    pieces, start = [], 0
    for protected in PROTECTED.finditer(markdown):
        pieces.append(LECTURE_MENTION.sub(link_mention, markdown[start:protected.start()]))
        pieces.append(protected[0])
        start = protected.end()
    pieces.append(LECTURE_MENTION.sub(link_mention, markdown[start:]))
    return "".join(pieces)


def link_notebook(nb, targets, current):
    """``nb`` (changed in place) with :func:`link_lectures` applied to every markdown cell."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = link_lectures(cell.source, targets, current)
    return nb


# ---------------------------------------------------------------- sections, contents, search

VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                  "source", "track", "wbr"})
SKIPPED_CLASSES = frozenset({"jp-InputPrompt", "jp-OutputPrompt", "jp-OutputArea", "anchor-link",
                             "celltag_hosted-setup", "sslviz-nav", "sslviz-toc", "sslviz-toolbar",
                             "sslviz-licence"})
"""What the search leaves out: prompts, outputs, the setup cell, the site's own bars."""
HEADING = re.compile(r"^h[1-3]$")
BLOCK = frozenset({"blockquote", "br", "dd", "details", "div", "dt", "h1", "h2", "h3", "h4", "h5",
                   "h6", "hr", "img", "li", "ol", "p", "pre", "section", "summary", "table",
                   "td", "th", "tr", "ul"})  # words on either side are separate words


class _Sections(HTMLParser):
    """Reads ``<main>`` of a rendered page into sections: (level, id, title, text)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.sections = [{"level": 0, "id": "", "title": "", "text": []}]
        self.stack = []  # (tag, skipped) of the open elements inside <main>
        self.in_main = False
        self.heading = None

    def handle_starttag(self, tag, attrs):
        if tag == "main":
            self.in_main = True
            return
        if tag in BLOCK:
            self.handle_data(" ")
        if not self.in_main or tag in VOID:
            return
        attrs = dict(attrs)
        classes = set((attrs.get("class") or "").split())
        skipped = (bool(classes & SKIPPED_CLASSES) or tag in ("script", "style", "nav")
                   or any(s for _, s in self.stack))
        self.stack.append((tag, skipped))
        if HEADING.match(tag) and not skipped and attrs.get("id"):
            self.heading = {"level": int(tag[1]), "id": attrs["id"], "title": [], "text": []}

    def handle_endtag(self, tag):
        if tag == "main":
            self.in_main = False
            return
        if not self.in_main or tag in VOID:
            return
        if tag in BLOCK:
            self.handle_data(" ")
        while self.stack:
            open_tag, _ = self.stack.pop()
            if open_tag == tag:
                break
        if self.heading is not None and tag == f"h{self.heading['level']}":
            self.heading["title"] = " ".join("".join(self.heading["title"]).split())
            self.sections.append(self.heading)
            self.heading = None

    def handle_data(self, data):
        if not self.in_main or any(s for _, s in self.stack):
            return
        (self.heading["title"] if self.heading is not None
         else self.sections[-1]["text"]).append(data)


def page_sections(page_html):
    """The sections of a rendered page, in order: ``{"level", "id", "title", "text"}`` for each
    ``h1``–``h3`` with an id (level 0, before the first heading, has no title)."""
    parser = _Sections()
    parser.feed(page_html)
    parser.close()
    sections = []
    for section in parser.sections:
        text = " ".join("".join(section["text"]).split())
        if section["level"] or text:
            sections.append({**section, "text": text})
    return sections


def contents_nav(sections):
    """HTML of the page's contents: its ``h2`` and ``h3`` sections linked to their anchors (empty
    when the page has none)."""
    items = [f'<li class="sslviz-toc-h{s["level"]}"><a href="#{html.escape(s["id"])}">'
             f'{html.escape(s["title"])}</a></li>' for s in sections if s["level"] in (2, 3)]
    if not items:
        return ""
    return ('<nav class="sslviz-toc" aria-labelledby="sslviz-toc-title">\n'
            '<p id="sslviz-toc-title" class="sslviz-toc-title">On this page</p>\n<ol>\n'
            + "\n".join(items) + "\n</ol>\n</nav>")


def search_index(pages):
    """The JavaScript of ``search-index.js``: every section of every page (``pages``: the
    entries of :func:`sslviz.site.render` with their ``sections``), as the page's script reads it.
    """
    records = [{"page": page["title"], "href": page["href"] + (f"#{s['id']}" if s["id"] else ""),
                "title": s["title"] or page["title"], "text": s["text"]}
               for page in pages for s in page["sections"]]
    return ("/* The lecture site's search index, written by python -m sslviz.site */\n"
            "window.SSLVIZ_SEARCH_INDEX = " + json.dumps(records, ensure_ascii=False) + ";\n")


# ---------------------------------------------------------------- download and launch


def _urls_from_pyproject(root):
    try:
        import tomllib
    except ImportError:  # Python 3.10: read the installed metadata instead
        return None
    try:
        with open(Path(root) / "pyproject.toml", "rb") as file:
            return tomllib.load(file).get("project", {}).get("urls", {})
    except FileNotFoundError:
        return None


def _urls_from_metadata():
    try:
        entries = importlib.metadata.metadata("sslviz").get_all("Project-URL") or []
    except importlib.metadata.PackageNotFoundError:
        return {}
    return dict(entry.split(", ", 1) for entry in entries if ", " in entry)


def project_repository(urls=None, root=ROOT):
    """``owner/name`` of the project's GitHub repository, from ``[project.urls]`` of
    ``pyproject.toml`` (else the installed package's metadata); None when it names none."""
    if urls is None:
        urls = _urls_from_pyproject(root)
        urls = _urls_from_metadata() if urls is None else urls
    by_key = {key.lower(): value for key, value in urls.items()}
    for key in URL_KEYS:
        match = GITHUB.match(str(by_key.get(key, "")).strip())
        if match:
            return match[1]
    return None


def launch_links(repo, notebook_name):
    """Binder and Colab URLs that open ``notebooks/<notebook_name>`` of ``repo`` (``owner/name``),
    or an empty dict without a repository."""
    if not repo:
        return {}
    path = f"{NOTEBOOK_FOLDER}/{notebook_name}"
    return {"binder": BINDER.format(repo=repo, path=quote(path, safe="")),
            "colab": COLAB.format(repo=repo, branch=BRANCH, path=quote(path))}


def toolbar(download=None, launch=None):
    """HTML of the bar at the top of every page: search, the theme toggle and, on a lecture page,
    the notebook's download and launch links."""
    links = []
    if download:
        links.append(f'<a class="sslviz-download" href="{html.escape(download)}" download>'
                     "Download .ipynb</a>")
    for key, label in (("binder", "Launch on Binder"), ("colab", "Open in Colab")):
        if launch and launch.get(key):
            links.append(f'<a class="sslviz-launch-{key}" href="{html.escape(launch[key])}" '
                         f'rel="noopener">{label}</a>')
    return ('<div class="sslviz-toolbar">\n'
            '<form class="sslviz-search" role="search">\n'
            '<label for="sslviz-search-input" class="sslviz-visually-hidden">Search the lectures'
            '</label>\n<input id="sslviz-search-input" type="search" autocomplete="off" '
            'placeholder="Search the lectures" aria-controls="sslviz-search-results">\n'
            '<ol id="sslviz-search-results" class="sslviz-search-results" aria-live="polite">'
            "</ol>\n</form>\n"
            + "".join(f"<span>{link}</span>\n" for link in links)
            + '<button type="button" class="sslviz-theme-toggle" aria-pressed="false">'
            "Dark theme</button>\n</div>")


# ---------------------------------------------------------------- the frame of every page


def template_file(*parts):
    """A file of the site's template (package data), as an ``importlib.resources`` traversable:
    ``template_file("assets", "sslviz.js")``."""
    found = TEMPLATES / TEMPLATE
    for part in parts:
        found = found / part
    return found


LICENCE_NOTE = (
    '<p class="sslviz-licence">Lecture text and figures: '
    '<a rel="license" href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a> '
    "(adapt them with attribution); code: BSD-3-Clause. See LICENSE-CONTENT.md and LICENSE in "
    "the repository.</p>")
"""The licence line at the foot of every page of the site."""


def head_assets():
    """What every page's ``<head>`` loads from the site: themes, search index, script."""
    return "\n".join(['<script src="assets/theme.js"></script>',  # before drawing: no flash
                      '<link rel="stylesheet" href="assets/theme-dark.css">',
                      '<link rel="stylesheet" href="assets/sslviz.css">',
                      f'<script defer src="{SEARCH_INDEX}"></script>',
                      '<script defer src="assets/sslviz.js"></script>'])


def page_head(title, colours, width="50em"):
    """A page of the site that is not a lecture, up to its ``<main>``: the site's assets and
    colours (``colours``: the style sheet's text) and its bar (search, theme)."""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1.0\">\n"
            f"<title>{html.escape(title)}</title>\n" + head_assets() + f"\n<style>\n{colours}\n"
            "</style>\n</head>\n"
            f"<body style=\"font-family: sans-serif; max-width: {width}; margin: 2em auto; "
            "padding: 0 1em; line-height: 1.5;\">\n<header class=\"sslviz-header\">\n"
            + toolbar() + "\n</header>\n<main>\n")


def page_foot():
    """The end of a page begun by :func:`page_head`: the licence line."""
    return LICENCE_NOTE + "\n</main>\n</body>\n</html>\n"


# ---------------------------------------------------------------- the printable book

MAIN = re.compile(r"<main>(.*)</main>", re.DOTALL)
ID_OR_ANCHOR = re.compile(r'(\s(?:id|href)=")(#?)([^"]*)"')


def _book_chapter(page_html, prefix, lecture_hrefs):
    """The ``<main>`` of a page for the book: its ids prefixed (unique in the book), links to
    other lectures turned into links to their chapters, solutions unfolded."""
    body = MAIN.search(page_html)[1]

    def rewrite(match):
        lead, hash_, value = match.groups()
        if lead.strip().startswith("id"):
            return f'{lead}{prefix}-{value}"'
        if hash_:
            return f'{lead}#{prefix}-{value}"'
        page, _, anchor = value.partition("#")
        if page in lecture_hrefs:
            chapter = lecture_hrefs[page]
            return f'{lead}#{chapter}-{anchor}"' if anchor else f'{lead}#{chapter}"'
        return match[0]

    body = ID_OR_ANCHOR.sub(rewrite, body)
    return body.replace('<details class="sslviz-solution">',
                        '<details class="sslviz-solution" open>')


def book_page(pages, head):
    """HTML of the book: every lecture's page body in order, each starting on a new printed page.

    ``pages``: (href, rendered HTML) in teaching order; ``head``: the ``<head>`` to use."""
    hrefs = {href: Path(href).stem for href, _ in pages}
    chapters = [f'<section class="sslviz-chapter" id="{hrefs[href]}">\n'
                f"{_book_chapter(text, hrefs[href], hrefs)}\n</section>" for href, text in pages]
    return ('<!DOCTYPE html>\n<html lang="en">\n' + head + '\n<body class="jp-Notebook '
            'sslviz-book">\n<main>\n' + "\n".join(chapters) + "\n</main>\n</body>\n</html>\n")


def find_chromium(environ=None):
    """``$SSLVIZ_CHROMIUM`` if it is a file, else the system Chromium, else None."""
    environ = os.environ if environ is None else environ
    chosen = environ.get("SSLVIZ_CHROMIUM")
    if chosen:
        return chosen if Path(chosen).is_file() else None
    found = next((path for path in CHROMIUM_CANDIDATES if Path(path).is_file()), None)
    return found or shutil.which("chromium") or shutil.which("chromium-browser")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def print_book(folder, page="book.html", pdf="book.pdf", chromium=None):
    """Print ``folder/page`` to ``folder/pdf`` with headless Chromium, served from localhost (no
    request leaves the machine); return the PDF's path. A missing Chromium is a
    ``FileNotFoundError`` saying how to get one."""
    chromium = chromium or find_chromium()
    if chromium is None:
        raise FileNotFoundError("Chromium was not found: install it (Debian/Ubuntu: `sudo apt-get "
                                "install chromium`) or point SSLVIZ_CHROMIUM at a Chromium binary")
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    target = Path(folder, pdf)
    profile = Path(folder, ".chromium-profile")
    try:
        result = subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--disable-background-networking", "--disable-component-update", "--no-first-run",
             "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
             f"--user-data-dir={profile}", "--no-pdf-header-footer",
             "--run-all-compositor-stages-before-draw",
             f"--virtual-time-budget={PRINT_BUDGET_MS}", f"--print-to-pdf={target}",
             f"http://127.0.0.1:{server.server_address[1]}/{page}"],
            capture_output=True, text=True, timeout=PRINT_TIMEOUT_S, check=False)
    finally:
        server.shutdown()
        server.server_close()
        shutil.rmtree(profile, ignore_errors=True)
    if not target.is_file() or target.stat().st_size == 0:
        raise RuntimeError(f"Chromium did not print {page} (exit {result.returncode}): "
                           f"{result.stderr.strip()[-500:]}")
    return target


def pdf_page_count(path):
    """How many pages a PDF written by Chromium holds (its ``/Type /Page`` objects)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", Path(path).read_bytes()))
