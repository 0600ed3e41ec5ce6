"""The lecture site: every committed notebook rendered to HTML, offline, with a contents page.

``python -m sslviz.site [OUT]`` (or ``python3 run.py site``) renders ``notebooks/NN_*.ipynb`` with
nbconvert and the template in ``sslviz/site_templates/sslviz`` into ``OUT`` (default
``build/site``). The template, style sheets and scripts are package data, so an installed wheel
builds the site too: outside a checkout, ``notebooks/`` and ``build/site`` are those of the working
folder. The notebooks are not executed: the pages show the outputs committed by ``sslviz
execute``. MathJax comes from the ``sphinx-mathjax-offline`` package and is copied into the site,
so neither the build nor a reader needs the internet. The site is built in a temporary folder
beside ``OUT`` and moved in place at the end. The replication report (``docs/replication.md``,
written by ``python -m sslviz.experiments report``; a checkout only) becomes
``replication.html``, linked from the contents page. ``OUT`` must be new, empty or an earlier
site (its :data:`sslviz.cli.OUTPUT_MARKER`): the build never replaces a folder it did not make.

A published page runs no script from a notebook: markdown cells and HTML or markdown outputs are
sanitized (nbconvert's ``sanitize_html``, with :func:`clean_html` as its allow-list: the tags and
attributes markdown, tables, images, math and the project's own ``<span class="paper">`` need;
links only to http(s), mailto or the site itself; pictures only as http(s) or ``data:image``);
JavaScript outputs are dropped. A tag outside the list is shown as text, not run.

Every page also carries the site's own features (:mod:`sslviz.site_pages`): a search across the
lectures (an index written at build time, searched by the site's script), the page's contents,
links where one lecture names another, copy buttons on code, a light and a dark theme (the
reader's preference, or the toggle, remembered), a link to download the notebook (copied into
``OUT/notebooks``) and, when ``pyproject.toml`` names the GitHub repository, links to open it on
Binder and Colab. ``--pdf`` also prints every lecture into one ``book.pdf`` with headless Chromium.
None of these requests anything outside the site.
"""

from __future__ import annotations

import copy
import html
import importlib.metadata
import importlib.resources
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

from sslviz import cli, site_pages, site_reference

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "docs" / "replication.md"  # written by `python -m sslviz.experiments report`
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
MATHJAX_PACKAGE = "sphinx-mathjax-offline"
INSTALL_HINT = "install the site tools with `pip install -e '.[site]'` (`python3 run.py site` does)"
MATHJAX_SCRIPT = "tex-chtml-full.js"
MATHJAX_FONTS = Path("output", "chtml", "fonts", "woff-v2")  # loaded by the script
TITLE = re.compile(r"^#\s+(.*)$", re.MULTILINE)
LICENCE_NOTE = site_pages.LICENCE_NOTE
COMMAND = "python -m sslviz.site"
ASSETS = ("sslviz.css", "sslviz.js", "theme.js")  # the template's assets/, copied to OUT/assets


class SiteError(Exception):
    """The site cannot be built (a tool or a notebook is missing); the message says what to do."""


def home():
    """The checkout this package lies in (it has ``pyproject.toml``), else the working folder (an
    installed package): where ``notebooks/`` and ``build/site`` are looked for by default."""
    return ROOT if (ROOT / "pyproject.toml").is_file() else Path.cwd()


def lectures(folder=None):
    """The lecture notebooks in teaching order (their ``NN_`` prefix) in ``folder`` (default:
    ``notebooks/`` of :func:`home`)."""
    folder = home() / "notebooks" if folder is None else folder
    paths = sorted(Path(folder).glob("[0-9][0-9]_*.ipynb"))
    if not paths:
        raise SiteError(f"no lecture notebooks (NN_name.ipynb) in {folder}: run the command in a "
                        "folder that holds notebooks/, or name them with --notebooks")
    return paths


def lecture_title(nb, path):
    """The first level-1 heading of the notebook, else its file name."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            match = TITLE.search(cell.source)
            if match:
                return match.group(1).strip()
    return Path(path).stem


def static_view(nb):
    """A copy of ``nb`` whose outputs need no widget manager: widget views are dropped where the
    output also holds a picture or text, and the notebook's widget state is removed."""
    nb = copy.deepcopy(nb)
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW in data and len(data) > 1:
                del data[WIDGET_VIEW]
    return nb


REPR = re.compile(r"^<.*>$", re.DOTALL)
"""The text form of an object with no description (``<Figure size 700x420 with 1 Axes>``)."""


def figure_description(output):
    """A picture's alt text: its ``alt`` metadata (the project's figure descriptions, see
    :mod:`sslviz.widgets.static`), else its text form unless that is only an object's repr;
    ``""`` when the figure has no description."""
    alt = output.get("metadata", {}).get("image/png", {}).get("alt")
    if not alt:
        alt = output.get("data", {}).get("text/plain", "")
        alt = "".join(alt) if isinstance(alt, list) else alt
    alt = " ".join(str(alt).split())
    return "" if REPR.match(alt) else alt


def undescribed_figures(nb):
    """Numbers of the cells that show a picture without a description (its alt would be empty:
    show a figure as ``sslviz.widgets.static.described(figure, "what it shows")``)."""
    return [number for number, cell in enumerate(nb.cells)
            for output in cell.get("outputs", [])
            if "image/png" in output.get("data", {}) and not figure_description(output)]


def mathjax_folder():
    """The folder of MathJax 3 shipped by ``sphinx-mathjax-offline``."""
    try:
        files = importlib.metadata.files(MATHJAX_PACKAGE) or []
    except importlib.metadata.PackageNotFoundError:
        raise SiteError(f"{MATHJAX_PACKAGE} is not installed; {INSTALL_HINT}") from None
    for file in files:
        if file.name == MATHJAX_SCRIPT:
            return Path(file.locate()).parent
    raise SiteError(f"{MATHJAX_PACKAGE} has no {MATHJAX_SCRIPT}; {INSTALL_HINT}")


ALLOWED_TAGS = frozenset({
    "a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "col", "colgroup", "dd",
    "del", "details", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3", "h4",
    "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp",
    "small", "span", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th",
    "thead", "tr", "u", "ul", "var"})
"""What markdown, tables, pictures and the lectures' own markup (``<span class="paper">``,
folded ``<details>``) need; anything else is shown as text."""
ALLOWED_ATTRIBUTES = {"*": ["class", "id", "title", "lang", "dir"], "a": ["href", "rel"],
                      "img": ["src", "alt", "width", "height"], "td": ["colspan", "rowspan",
                                                                       "style"],
                      "th": ["colspan", "rowspan", "style"], "ol": ["start"],
                      "details": ["open"]}
ALLOWED_CSS = ["text-align", "vertical-align", "width", "height", "color", "background-color"]
LINK_SCHEMES = ("http", "https", "mailto", "")  # "": a link inside the site (or a fragment)
PICTURE = re.compile(r"^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]*$")


def _allowed_attribute(tag, name, value):
    """The allow-list of attributes, with links and picture sources checked by their scheme."""
    if name not in ALLOWED_ATTRIBUTES.get(tag, []) + ALLOWED_ATTRIBUTES["*"]:
        return False
    if name in ("href", "src"):
        text = "".join(value.split()).lower()  # "java\tscript:" is still javascript:
        scheme = text.partition(":")[0] if re.match(r"^[a-z][a-z0-9+.-]*:", text) else ""
        return scheme in LINK_SCHEMES or (name == "src"
                                          and PICTURE.match(value.strip()) is not None)
    return True


def clean_html(html_text):
    """``html_text`` with every tag and attribute outside the allow-list shown as text or removed
    (bleach): no script, event handler, ``javascript:`` link, frame, form or style sheet."""
    import bleach
    from bleach.css_sanitizer import CSSSanitizer

    html_text = html_text.decode() if isinstance(html_text, bytes) else str(html_text)
    return bleach.clean(html_text, tags=ALLOWED_TAGS, attributes=_allowed_attribute,
                        protocols=["http", "https", "mailto", "data"],
                        css_sanitizer=CSSSanitizer(allowed_css_properties=ALLOWED_CSS))


PYGMENTS_TAG = re.compile(r'<(?:div class="[\w -]*"|/div|pre|/pre|span(?: class="[\w -]*")?'
                          r"|/span)>")
"""The only tags Pygments' HTML formatter writes around a code cell (classes of letters, digits,
spaces and hyphens); it escapes every ``<``, ``>``, ``&`` and quote of the cell's text."""


def clean_code(highlighted):
    """A code cell's Pygments HTML as it is when it holds no tag but Pygments' own (bleach would
    keep every one of them, and the text between is escaped); else :func:`clean_html` of it.
    Sanitising every code cell with bleach took a quarter of the site's build."""
    highlighted = str(highlighted)
    if "<" not in PYGMENTS_TAG.sub("", highlighted):
        return highlighted
    return clean_html(highlighted)


def _exporter(templates):
    """nbconvert's HTML exporter with the site's template (``templates``: the folder holding
    it, on disk)."""
    try:
        from nbconvert import HTMLExporter
    except ImportError:
        raise SiteError(f"nbconvert is not installed; {INSTALL_HINT}") from None
    return HTMLExporter(template_name=site_pages.TEMPLATE,
                        extra_template_basedirs=[str(templates)], sanitize_html=True,
                        filters={"clean_html": clean_html, "clean_code": clean_code})


def _link(path, title):
    return {"href": Path(path).with_suffix(".html").name, "title": title}


def dark_theme_css(exporter):
    """JupyterLab's dark variables (nbconvert's ``theme-dark.css``) for ``data-theme="dark"`` and
    for a reader who prefers dark and has not chosen the light theme."""
    for folder in exporter.template_paths:
        path = Path(folder, "static", "theme-dark.css")
        if path.parent.parent.name == "lab" and path.is_file():
            match = re.search(r":root\s*\{(.*?)\n\}", path.read_text(encoding="utf-8"), re.DOTALL)
            if match:
                rules = match[1]
                return (f":root[data-theme=\"dark\"] {{{rules}\n}}\n@media (prefers-color-scheme: "
                        f"dark) {{\n:root:not([data-theme=\"light\"]) {{{rules}\n}}\n}}\n")
    raise SiteError(f"nbconvert's lab template has no static/theme-dark.css; {INSTALL_HINT}")


def copy_assets(out, exporter):
    """The site's script and style sheets into ``out/assets``."""
    (out / "assets").mkdir(parents=True, exist_ok=True)
    for name in ASSETS:
        (out / "assets" / name).write_bytes(site_pages.template_file("assets", name).read_bytes())
    (out / "assets" / "theme-dark.css").write_text(dark_theme_css(exporter), encoding="utf-8")


def contents_page(entries, binder=None, report=None, book=False):
    """HTML of the contents page: the lectures in teaching order, each linked to its page, then
    ``report`` (an entry: the replication report's page) when given; ``book``: a link to
    ``book.pdf``."""
    items = "\n".join(f'  <li><a href="{html.escape(e["href"])}">{html.escape(e["title"])}</a></li>'
                      for e in entries)
    extra = (f'<p><a href="{site_reference.GLOSSARY}">Glossary</a> · '
             f'<a href="{site_reference.BIBLIOGRAPHY}">Bibliography</a></p>\n')
    badge = ""
    if binder:
        url = f"https://mybinder.org/v2/gh/{html.escape(binder)}/HEAD?urlpath=lab/tree/notebooks"
        badge = (f'<p><a class="sslviz-launch" href="{url}">Launch the notebooks on Binder</a> '
                 "(runs them in your browser; needs internet)</p>\n")
    if book:
        badge += ('<p><a class="sslviz-book" href="book.pdf">All the lectures as one PDF</a> '
                  "(the printable book)</p>\n")
    after = extra
    if report:
        after += (f'<p class="sslviz-report"><a href="{html.escape(report["href"])}">'
                 f'{html.escape(report["title"])}</a>: every source\'s claims beside our runs</p>'
                 "\n")
    return (site_pages.page_head("sslviz lectures", site_reference.colours_css())
            + "<h1>Semi-supervised text classification: the lectures</h1>\n" + badge
            + '<ol class="sslviz-contents">\n' + items + "\n</ol>\n" + after
            + site_pages.page_foot())


REPORT_PAGE = {"href": "replication.html", "title": "What reproduced"}
"""The replication report's page (``docs/replication.md``, :mod:`sslviz.experiments.report`)."""


def report_page(markdown_text):
    """HTML of the replication report's page: its Markdown rendered (nbconvert's mistune) and
    cleaned like a lecture's (:func:`clean_html`), with a link back to the contents."""
    try:
        from nbconvert.filters.markdown_mistune import markdown2html_mistune
    except ImportError:
        raise SiteError(f"nbconvert is not installed; {INSTALL_HINT}") from None
    body = clean_html(markdown2html_mistune(markdown_text))
    nav = '<p><a rel="contents" href="index.html">Contents</a></p>\n'
    return (site_pages.page_head(f"sslviz: {REPORT_PAGE['title']}",
                                 site_reference.colours_css(), width="90em")
            + nav + body + "\n" + nav + site_pages.page_foot())


def _numbered(paths, entries):
    """Lecture number (the ``NN_`` prefix) to page, for the links between lectures."""
    return {int(Path(p).name[:2]): e["href"] for p, e in zip(paths, entries, strict=True)
            if Path(p).name[:2].isdigit()}


def render_page(exporter, nb, path, entries, i, binder, targets):
    """One lecture page: the notebook with links to the lectures it names (``targets``: number to
    page), the site's bar and the page's contents; returns (HTML, sections)."""
    current = int(Path(path).name[:2]) if Path(path).name[:2].isdigit() else None
    view = site_pages.link_notebook(static_view(nb), targets, current)
    nav = {"root": "", "prev": entries[i - 1] if i else None,
           "next": entries[i + 1] if i + 1 < len(entries) else None,
           "licence": LICENCE_NOTE, "head": site_pages.head_assets(),
           "toolbar": site_pages.toolbar(f"{site_pages.NOTEBOOK_FOLDER}/{Path(path).name}",
                                         site_pages.launch_links(binder, Path(path).name)),
           "colours": site_reference.colours_css(), "describe": figure_description,
           "glossary": site_reference.GLOSSARY, "bibliography": site_reference.BIBLIOGRAPHY}
    resources = {"metadata": {"name": entries[i]["title"]}, "sslviz": nav}
    body, _ = exporter.from_notebook_node(view, resources=resources)
    sections = site_pages.page_sections(body)
    return body.replace("<!--sslviz-toc-->", site_pages.contents_nav(sections), 1), sections


def render(paths, out, binder=None):
    """Render ``paths`` (in order) into the folder ``out``; return the list of page entries.

    ``binder``: ``owner/name`` of the GitHub repository for the Binder and Colab links (None:
    none)."""
    with importlib.resources.as_file(site_pages.TEMPLATES) as templates:  # nbconvert reads files
        return _render(paths, out, binder, _exporter(templates))


def _render(paths, out, binder, exporter):
    import nbformat

    notebooks = [nbformat.read(path, as_version=4) for path in paths]
    entries = [_link(p, lecture_title(nb, p)) for p, nb in zip(paths, notebooks, strict=True)]
    mathjax = mathjax_folder()
    shutil.copytree(mathjax / MATHJAX_FONTS, out / "mathjax" / MATHJAX_FONTS)
    shutil.copy2(mathjax / MATHJAX_SCRIPT, out / "mathjax" / MATHJAX_SCRIPT)
    copy_assets(out, exporter)
    (out / site_pages.NOTEBOOK_FOLDER).mkdir()
    targets = _numbered(paths, entries)
    searched = []
    cited_by = {}
    for i, (path, nb) in enumerate(zip(paths, notebooks, strict=True)):
        for number in undescribed_figures(nb):
            print(f"warning: {Path(path).name}, cell {number}: a picture without a description "
                  "(alt text); show it with sslviz.widgets.static.described", file=sys.stderr)
        body, sections = render_page(exporter, nb, path, entries, i, binder, targets)
        body, keys = site_reference.link_page(body)
        for key in keys:
            cited_by.setdefault(key, []).append(i + 1)
        (out / entries[i]["href"]).write_text(body, encoding="utf-8")
        shutil.copy2(path, out / site_pages.NOTEBOOK_FOLDER / Path(path).name)
        searched.append({**entries[i], "sections": sections})
    (out / site_pages.SEARCH_INDEX).write_text(site_pages.search_index(searched), encoding="utf-8")
    write_reference_pages(out, entries, cited_by)
    report = None
    if REPORT.is_file():  # a source checkout (a wheel has no docs folder)
        report = REPORT_PAGE
        (out / report["href"]).write_text(report_page(REPORT.read_text(encoding="utf-8")),
                                          encoding="utf-8")
    (out / "index.html").write_text(contents_page(entries, binder, report), encoding="utf-8")
    (out / "lectures.json").write_text(json.dumps(entries, indent=1), encoding="utf-8")
    return entries


def write_reference_pages(out, entries, cited_by):
    """The glossary and the bibliography (``cited_by``: source key -> lecture numbers)."""
    colours = site_reference.colours_css()
    (out / site_reference.GLOSSARY).write_text(site_reference.glossary_page(entries, colours),
                                               encoding="utf-8")
    (out / site_reference.BIBLIOGRAPHY).write_text(
        site_reference.bibliography_page(entries, cited_by, colours), encoding="utf-8")


def make_book(out, entries, binder=None):
    """``out/book.pdf``: every page of the site printed by headless Chromium into one PDF (from
    ``out/book.html``, all the lectures on one page); the contents page then links to it.
    Returns the PDF's path, or None (with a message on stderr) where Chromium is missing."""
    chromium = site_pages.find_chromium()
    if chromium is None:
        print("--pdf: Chromium was not found, so no book.pdf is made: install it (Debian/Ubuntu: "
              "`sudo apt-get install chromium`) or point SSLVIZ_CHROMIUM at a Chromium binary",
              file=sys.stderr)
        return None
    pages = [(e["href"], (out / e["href"]).read_text(encoding="utf-8")) for e in entries]
    head = re.search(r"<head>.*?</head>", pages[0][1], re.DOTALL)[0]
    head = re.sub(r"<title>.*?</title>", "<title>sslviz: the lectures</title>", head, count=1,
                  flags=re.DOTALL)
    (out / "book.html").write_text(site_pages.book_page(pages, head), encoding="utf-8")
    pdf = site_pages.print_book(out, chromium=chromium)
    report = REPORT_PAGE if (out / REPORT_PAGE["href"]).is_file() else None
    (out / "index.html").write_text(contents_page(entries, binder, report, book=True),
                                    encoding="utf-8")
    return pdf


def build(out=None, notebooks=None, binder=None, pdf=False):
    """Build the site into ``out`` atomically (a temporary folder beside it, then a rename);
    ``pdf``: with the printable book (:func:`make_book`).

    ``out`` must be new, empty or an earlier site (:func:`sslviz.cli.check_output_folder`), and
    hold none of the notebooks; both are checked before anything is rendered."""
    paths = [Path(p) for p in notebooks] if notebooks else lectures()
    out = home() / "build" / "site" if out is None else out
    out = cli.check_output_folder(out, command=COMMAND, option="OUT", replaced=True,
                                  earlier=_earlier_site).resolve()
    inside = [str(p) for p in paths if out in p.resolve().parents]
    if inside:
        raise cli.UsageError(f"OUT {out} holds the notebook {inside[0]}, which the build would "
                             "remove: name another folder")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        entries = render(paths, tmp, binder)
        if pdf:
            make_book(tmp, entries, binder)
        cli.mark_output_folder(tmp, COMMAND)
        os.chmod(tmp, 0o755)
        old = out.with_name(f".{out.name}.old")
        shutil.rmtree(old, ignore_errors=True)
        if out.exists():
            os.replace(out, old)
        os.replace(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return entries


def _earlier_site(folder):
    """True for a site built before the output marker: only the files a build makes, with this
    module's contents page."""
    names = {path.name for path in Path(folder).iterdir()}
    try:
        index = (Path(folder) / "index.html").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return ({"index.html", "lectures.json", "mathjax"} <= names
            and all(name.endswith(".html") or name in ("lectures.json", "mathjax")
                    for name in names)
            and '<ol class="sslviz-contents">' in index)


def repository(chosen=None):
    """``owner/name`` for the Binder and Colab links: ``chosen``, else ``$SSLVIZ_BINDER_REPO``,
    else the GitHub repository in ``pyproject.toml``'s ``[project.urls]``; None (said on stderr)
    when there is none."""
    found = chosen or os.environ.get("SSLVIZ_BINDER_REPO") or site_pages.project_repository()
    if not found:
        print("no GitHub repository in pyproject.toml's [project.urls] (Repository): the pages "
              "carry no Binder or Colab links", file=sys.stderr)
    return found or None


@cli.command
def main(argv=None) -> int:
    parser = cli.Parser(prog=COMMAND, description=__doc__.split("\n")[0])
    parser.add_argument("out", nargs="?", help="output folder (default: build/site of the "
                        "checkout, else of the working folder)")
    parser.add_argument("--notebooks", nargs="+", metavar="NOTEBOOK",
                        help="notebooks to render, in order (default: notebooks/NN_*.ipynb of "
                        "the checkout, else of the working folder)")
    parser.add_argument("--binder", metavar="OWNER/NAME", help="GitHub repository for the "
                        "Binder and Colab links (default: $SSLVIZ_BINDER_REPO, else the "
                        "Repository of pyproject.toml's [project.urls])")
    parser.add_argument("--pdf", action="store_true", help="also print every lecture into one "
                        "book.pdf with headless Chromium (skipped, with a message, without it)")
    args = parser.parse_args(argv)
    notebooks = cli.checked_notebooks(args.notebooks) if args.notebooks else None
    repo = repository(args.binder)
    out = Path(args.out) if args.out else home() / "build" / "site"
    entries = build(out, notebooks, repo, args.pdf)  # a SiteError: one line, exit 2
    out = out.resolve()
    print(f"{len(entries)} lectures written to {out}/index.html")
    if (out / "book.pdf").is_file():
        print(f"the printable book: {out}/book.pdf")
    return 0


if __name__ == "__main__":
    sys.exit(main())
