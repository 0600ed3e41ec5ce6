"""Loaders for the text corpora, reading straight from the archives (nothing is extracted).

Each ``load_*`` function locates the verified archive (:func:`sslviz.datasets.locate`), reads it
once, sequentially (a gzip stream is cheap to read forwards and expensive to seek in), and returns
a :class:`sklearn.utils.Bunch` with

``data``         list of str, the documents;
``target``       int64 array of shape (n_samples,), indices into ``target_names``;
``target_names`` list of str, the class names, sorted;
``filenames``    list of str, the archive member each document comes from;
``DESCR``        str, origin and citation of the corpus, and what was loaded;
``source``       Path of the archive; ``sha256`` its checksum (to key caches of derived data).

Order is deterministic: training documents before test documents, and within a split by sorted
member name (the order of :func:`sklearn.datasets.load_files` on the extracted folders), then by
position inside a member. Nothing is shuffled: shuffle with a seeded generator when you split.

Cost: one pass over the archive. The full 20 Newsgroups (14 MB compressed, 36 MB of text) loads
in about a second; WebKB spends most of its time in :mod:`html.parser`.

The sense-tagged Senseval corpus is loaded by :mod:`sslviz.datasets.senseval`.
"""

from __future__ import annotations

import html
import re
import tarfile
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
from sklearn.utils import Bunch

from sslviz.datasets.fetch import file_sha256, locate
from sslviz.datasets.registry import get_dataset

__all__ = [
    "NEWSGROUP_PARTS",
    "R8_CLASSES",
    "WEBKB_CLASSES",
    "check_remove",
    "html_to_text",
    "load_20newsgroups",
    "load_reuters",
    "load_stoplist",
    "load_webkb",
    "strip_http_header",
    "strip_newsgroup_footer",
    "strip_newsgroup_header",
    "strip_newsgroup_quoting",
]

WEBKB_CLASSES = ("course", "faculty", "project", "student")
R8_CLASSES = ("acq", "crude", "earn", "grain", "interest", "money-fx", "ship", "trade")
_SUBSETS = ("all", "train", "test")
_STOPLISTS = ("smart", "sklearn")


# --------------------------------------------------------------------------- shared helpers


def _check_subset(subset: str) -> tuple[str, ...]:
    if subset not in _SUBSETS:
        raise ValueError(f"unknown subset {subset!r}; valid subsets: {list(_SUBSETS)}")
    return ("train", "test") if subset == "all" else (subset,)


def _check_choices(kind: str, chosen, valid) -> list[str]:
    """Return the sorted distinct ``chosen`` values, or raise naming the bad ones."""
    if isinstance(chosen, str):
        chosen = [chosen]
    chosen = sorted(set(chosen))
    if not chosen:
        raise ValueError(f"no {kind} chosen; valid {kind}: {sorted(valid)}")
    bad = [value for value in chosen if value not in valid]
    if bad:
        raise ValueError(f"unknown {kind} {bad}; valid {kind}: {sorted(valid)}")
    return chosen


def _read_members(path: Path, wanted) -> dict[str, bytes]:
    """Read the regular members whose name satisfies ``wanted(name)`` in one sequential pass.

    Leading ``./`` is stripped from member names.
    """
    members = {}
    with tarfile.open(path, mode="r|*") as tar:
        for member in tar:
            name = member.name[2:] if member.name.startswith("./") else member.name
            if member.isfile() and wanted(name):
                members[name] = tar.extractfile(member).read()
    return members


def _bunch(dataset: str, path: Path, docs, target_names, loaded: str, **extra) -> Bunch:
    """Assemble the result from ``docs``: (text, class name, filename) triples in order."""
    index = {name: i for i, name in enumerate(target_names)}
    description = get_dataset(dataset).description
    return Bunch(
        data=[text for text, _, _ in docs],
        target=np.array([index[label] for _, label, _ in docs], dtype=np.int64),
        target_names=list(target_names),
        filenames=[filename for _, _, filename in docs],
        DESCR=f"{description}\n\nLoaded: {loaded}; {len(docs)} documents from {path}.",
        source=path,
        sha256=file_sha256(path),
        **extra,
    )


# --------------------------------------------------------------------------- 20 Newsgroups


def load_20newsgroups(subset: str = "all", categories=None, *, remove=(),
                      data_dir=None) -> Bunch:
    """Load the 20 Newsgroups "bydate" corpus from its archive.

    Parameters
    ----------
    subset : {"all", "train", "test"}, default="all"
        The date-based split; ``"all"`` is the training posts followed by the test posts.
    categories : list of str or None, default=None
        Newsgroup names to keep (e.g. ``["sci.space", "rec.autos"]``); ``None`` keeps all 20.
    remove : tuple of {"headers", "footers", "quotes"}, default=()
        Parts of every post to strip, as :func:`sklearn.datasets.fetch_20newsgroups` does:
        the header block (:func:`strip_newsgroup_header`), the signature
        (:func:`strip_newsgroup_footer`) and quoted lines with their attributions
        (:func:`strip_newsgroup_quoting`), applied in that order. ``()`` keeps the posts whole.
    data_dir : str or Path or None, default=None
        Folder holding the archive instead of :func:`sslviz.datasets.data_dir`.

    Returns
    -------
    Bunch
        ``data``, ``target``, ``target_names`` (sorted group names), ``filenames`` (archive member
        names such as ``20news-bydate-train/sci.space/59848``), ``DESCR``, ``source``, ``sha256``.

    Raises
    ------
    ValueError
        Unknown subset, newsgroup name or part to remove (the message lists the valid ones).
    DatasetMissingError, ChecksumMismatchError
        The archive is missing or damaged.

    Notes
    -----
    Posts are decoded as latin-1 (some contain 8-bit bytes that are not UTF-8). By default they
    keep their headers (From, Subject, Organization, Lines...), signatures and quotes. Header
    words such as names and organizations are strong, somewhat unfair, class cues; pass
    ``remove=("headers", "footers", "quotes")`` when that matters.
    There are 11,314 training and 7,532 test posts.
    """
    splits = _check_subset(subset)
    remove = check_remove(remove)
    path = locate("20newsgroups", data_dir=data_dir)
    members = _read_members(path, lambda name: name.startswith("20news-bydate-"))
    groups = {split: set() for split in ("train", "test")}
    for name in members:
        split, group = _20news_split_group(name)
        if split:
            groups[split].add(group)
    available = set().union(*(groups[split] for split in splits))
    chosen = sorted(available) if categories is None else _check_choices(
        "newsgroups", categories, available
    )
    docs = [
        (_strip_parts(members[name].decode("latin-1"), remove), group, name)
        for split in splits
        for name in sorted(members)
        for name_split, group in [_20news_split_group(name)]
        if name_split == split and group in chosen
    ]
    loaded = f"subset={subset!r}, {len(chosen)} newsgroups"
    if remove:
        loaded += f", removed {', '.join(remove)}"
    return _bunch("20newsgroups", path, docs, chosen, loaded)


#: The parts of a post ``remove=`` may strip, in the order they are stripped (scikit-learn's
#: names and order).
NEWSGROUP_PARTS = ("headers", "footers", "quotes")


def check_remove(remove) -> tuple[str, ...]:
    """``remove`` as the tuple of distinct parts it names, in :data:`NEWSGROUP_PARTS` order.

    One name alone (``"headers"``) counts as a tuple of one. Anything else than names from
    :data:`NEWSGROUP_PARTS` is refused with a ``ValueError`` that lists them.
    """
    if isinstance(remove, str):
        remove = (remove,)
    if not isinstance(remove, tuple | list | set | frozenset):
        raise ValueError(f"remove must be a tuple of parts to strip from the posts, any of "
                         f"{NEWSGROUP_PARTS} (e.g. remove=('headers',); () keeps the posts "
                         f"whole), got {remove!r}")
    bad = [part for part in remove if part not in NEWSGROUP_PARTS]
    if bad:
        raise ValueError(f"unknown part(s) to remove {bad}; valid parts: {list(NEWSGROUP_PARTS)}"
                         " (scikit-learn's names)")
    return tuple(part for part in NEWSGROUP_PARTS if part in remove)


def _strip_parts(text: str, remove: tuple[str, ...]) -> str:
    for part, strip in zip(NEWSGROUP_PARTS, (strip_newsgroup_header, strip_newsgroup_footer,
                                             strip_newsgroup_quoting), strict=True):
        if part in remove:
            text = strip(text)
    return text


def strip_newsgroup_header(text: str) -> str:
    """The post after its header block: everything after the first blank line (``""`` when
    there is no blank line), the rule of scikit-learn's ``remove=("headers",)``."""
    return text.partition("\n\n")[2]


def strip_newsgroup_footer(text: str) -> str:
    """The post without its signature: the (stripped) post cut at its last line that is empty
    or only dashes; the post unchanged when there is no such line or it is the first line (the
    rule of scikit-learn's ``remove=("footers",)``)."""
    lines = text.strip().split("\n")
    cuts = [i for i, line in enumerate(lines) if not line.strip().strip("-")]
    return "\n".join(lines[:cuts[-1]]) if cuts and cuts[-1] > 0 else text


#: A line that quotes another post or says whom it quotes (scikit-learn's rule).
_QUOTE_LINE = re.compile(r"(writes in|writes:|wrote:|says:|said:"
                         r"|^In article|^Quoted from|^\||^>)")


def strip_newsgroup_quoting(text: str) -> str:
    """The post without quoted lines (starting with ``>`` or ``|``) and without the lines that
    introduce a quote ("In article ...", "... writes:", "... wrote:", "said:", ...), the rule
    of scikit-learn's ``remove=("quotes",)``."""
    return "\n".join(line for line in text.split("\n") if not _QUOTE_LINE.search(line))


def _20news_split_group(name: str) -> tuple[str | None, str | None]:
    """``20news-bydate-train/<group>/<id>`` -> ("train", group); (None, None) otherwise."""
    parts = name.split("/")
    if len(parts) != 3 or parts[0] not in ("20news-bydate-train", "20news-bydate-test"):
        return None, None
    return parts[0].rsplit("-", 1)[1], parts[1]


# --------------------------------------------------------------------------- WebKB

_HEADER_LINE = re.compile(r"[A-Za-z][A-Za-z0-9 -]*:")
_BLANK_LINE = re.compile(r"\r?\n\r?\n")
_BLOCK_TAGS = frozenset(
    "address blockquote body br center dd div dl dt form frame h1 h2 h3 h4 h5 h6 head hr html "
    "li ol option p pre table td th title tr ul".split()
)
_SKIPPED_TAGS = frozenset({"script", "style"})
# A comment ends at the first "-->"; one never closed ends at the next ">" (as in 1990s browsers
# and Mosaic-era pages: "<!-- <dd> <IMG ...>"), not at the end of the page.
_COMMENT = re.compile(r"<!--.*?-->|<!--[^>]*>", re.S)


def strip_http_header(page: str) -> str:
    """Remove the HTTP header block that precedes each WebKB page.

    Parameters
    ----------
    page : str
        A page as stored in the WebKB archive.

    Returns
    -------
    str
        Everything after the first blank line (CRLF or LF line ends), if the page starts with a
        header line (``Name: value``, or the crawler's ``WWW Alert: ...``); the page unchanged if
        it does not (54 pages fetched by ftp or from files have no header).
    """
    if not _HEADER_LINE.match(page):
        return page
    blank = _BLANK_LINE.search(page)
    return page[blank.end():] if blank else ""


class _TextExtractor(HTMLParser):
    """Collect the text of an HTML page: no tags, comments, scripts or styles; entities decoded."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.pieces = []
        self._skipping = 0

    def handle_starttag(self, tag, attrs):
        if tag in _SKIPPED_TAGS:
            self._skipping += 1
        elif tag in _BLOCK_TAGS:
            self.pieces.append("\n")

    def handle_endtag(self, tag):
        if tag in _SKIPPED_TAGS:
            self._skipping = max(0, self._skipping - 1)
        elif tag in _BLOCK_TAGS:
            self.pieces.append("\n")

    def handle_data(self, data):
        if not self._skipping:
            self.pieces.append(data)


def html_to_text(markup: str) -> str:
    """Return the visible text of an HTML document.

    Parameters
    ----------
    markup : str
        HTML (the body of a page, header already removed).

    Returns
    -------
    str
        Tags, comments (an unclosed ``<!--`` ends at the next ``>``), ``<script>`` and
        ``<style>`` contents removed; entities unescaped
        (``&amp;`` -> ``&``); block-level tags (``p``, ``br``, ``li``, ``td``, headings...) end a
        line while inline tags (``b``, ``a``...) vanish without a space; within a line runs of
        white space become one space; blank lines are dropped.
    """
    parser = _TextExtractor()
    parser.feed(_COMMENT.sub("", markup))
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.pieces).splitlines())
    return "\n".join(line for line in lines if line)


def load_webkb(classes=WEBKB_CLASSES, *, data_dir=None) -> Bunch:
    """Load the WebKB "4 Universities" pages as plain text.

    Parameters
    ----------
    classes : sequence of str, default=("course", "faculty", "project", "student")
        Page classes to keep; the archive also has "department", "other" and "staff".
    data_dir : str or Path or None, default=None
        Folder holding the archive instead of :func:`sslviz.datasets.data_dir`.

    Returns
    -------
    Bunch
        ``data`` (visible text, see :func:`strip_http_header` and :func:`html_to_text`),
        ``target``, ``target_names`` (sorted classes), ``filenames`` (member names, whose last
        part is the page URL with ``/`` written as ``^``), ``groups`` (str array: the university
        folder of each page: cornell, misc, texas, washington, wisconsin), ``DESCR``,
        ``source``, ``sha256``.

    Notes
    -----
    The default classes give the 4,199 pages of Nigam et al. (2000): course 930, faculty 1,124,
    project 504, student 1,641. Pages are decoded as latin-1. Use ``groups`` for
    leave-one-university-out evaluation (:class:`sklearn.model_selection.LeaveOneGroupOut`).
    """
    path = locate("webkb", data_dir=data_dir)
    members = _read_members(path, lambda name: name.startswith("webkb/") and name.count("/") == 3)
    available = {name.split("/")[1] for name in members}
    chosen = _check_choices("classes", classes, available)
    names = [name for name in sorted(members) if name.split("/")[1] in chosen]
    docs = [
        (html_to_text(strip_http_header(members[name].decode("latin-1"))), name.split("/")[1], name)
        for name in names
    ]
    groups = np.array([name.split("/")[2] for name in names], dtype=str)
    return _bunch("webkb", path, docs, chosen, f"classes={chosen}", groups=groups)


# --------------------------------------------------------------------------- Reuters-21578

_REUTERS_DOC = re.compile(r"<REUTERS([^>]*)>(.*?)</REUTERS>", re.S)
_ATTRIBUTE = re.compile(r'(\w+)="([^"]*)"')
_TOPICS = re.compile(r"<TOPICS>(.*?)</TOPICS>", re.S)
_D = re.compile(r"<D>(.*?)</D>", re.S)
_TITLE = re.compile(r"<TITLE>(.*?)</TITLE>", re.S)
_BODY = re.compile(r"<BODY>(.*?)</BODY>", re.S)
_TEXT = re.compile(r"<TEXT[^>]*>(.*?)</TEXT>", re.S)
_TAG = re.compile(r"<[^>]+>")
_SGM = re.compile(r"reut2-\d{3}\.sgm")
_TOPIC_LIST = "all-topics-strings.lc.txt"


def _reuters_text(doc: str) -> str:
    """Title and body of a story, unescaped; the bare text of stories without them."""
    title, body = _TITLE.search(doc), _BODY.search(doc)
    if title or body:
        text = "\n".join(match.group(1) for match in (title, body) if match)
    else:  # TYPE="UNPROC" stories (36 in R8) have neither, only raw text
        text_match = _TEXT.search(doc)
        text = _TAG.sub(" ", text_match.group(1)) if text_match else ""
    return html.unescape(text).strip()


def _parse_sgm(name: str, sgml: str):
    """Yield (split, topics, text, filename) for each story of one ``reut2-NNN.sgm`` file."""
    for attributes, doc in _REUTERS_DOC.findall(sgml):
        attrs = dict(_ATTRIBUTE.findall(attributes))
        topics_match = _TOPICS.search(doc)
        topics = _D.findall(topics_match.group(1)) if topics_match else []
        split = attrs.get("LEWISSPLIT", "").lower() if attrs.get("TOPICS") == "YES" else ""
        yield split, topics, doc, f"{name}#{attrs.get('NEWID', '?')}"


def load_reuters(subset: str = "all", classes=R8_CLASSES, *, data_dir=None) -> Bunch:
    """Load the single-label ModApte stories of Reuters-21578 (by default: R8).

    Parameters
    ----------
    subset : {"all", "train", "test"}, default="all"
        ModApte split: ``LEWISSPLIT="TRAIN"`` / ``"TEST"`` with ``TOPICS="YES"``; ``"all"`` is
        the training stories followed by the test stories.
    classes : sequence of str, default=R8_CLASSES
        Topics to keep (any of the 135 in ``all-topics-strings.lc.txt``). A story is kept when
        it has exactly one topic and that topic is in ``classes`` (stories with several topics
        are dropped, not split).
    data_dir : str or Path or None, default=None
        Folder holding the archive instead of :func:`sslviz.datasets.data_dir`.

    Returns
    -------
    Bunch
        ``data`` (title, newline, body; entities such as ``&lt;`` unescaped), ``target``,
        ``target_names`` (sorted topics), ``filenames`` (``reut2-NNN.sgm#NEWID``), ``DESCR``,
        ``source``, ``sha256``.

    Notes
    -----
    R8 has 5,485 training and 2,189 test stories, heavily unbalanced (earn 2,840 and acq 1,596
    of the training stories, grain 41). Files are decoded as latin-1.
    """
    splits = _check_subset(subset)
    path = locate("reuters21578", data_dir=data_dir)
    members = _read_members(path, lambda name: bool(_SGM.fullmatch(name)) or name == _TOPIC_LIST)
    topic_list = members.pop(_TOPIC_LIST, b"").decode("latin-1").split()
    stories = [
        story
        for name in sorted(members)
        for story in _parse_sgm(name, members[name].decode("latin-1"))
    ]
    available = set(topic_list) | {topic for _, topics, _, _ in stories for topic in topics}
    chosen = _check_choices("classes", classes, available)
    docs = [
        (_reuters_text(doc), topics[0], filename)
        for split in splits
        for story_split, topics, doc, filename in stories
        if story_split == split and len(topics) == 1 and topics[0] in chosen
    ]
    loaded = f"subset={subset!r}, classes={chosen}"
    return _bunch("reuters21578", path, docs, chosen, loaded)


# --------------------------------------------------------------------------- stop lists


def load_stoplist(name: str = "smart", *, data_dir=None) -> frozenset[str]:
    """Return a stop list.

    Parameters
    ----------
    name : {"smart", "sklearn"}, default="smart"
        ``"smart"``: the SMART list (Salton; 570 distinct words), read from the registered file;
        ``"sklearn"``: scikit-learn's ``ENGLISH_STOP_WORDS`` (318 words, no file needed).
    data_dir : str or Path or None, default=None
        Folder holding the SMART file instead of :func:`sslviz.datasets.data_dir`.

    Returns
    -------
    frozenset of str
        Lower-case words (SMART includes contractions such as ``a's`` and single letters).

    Raises
    ------
    ValueError
        Unknown name (the message lists the choices).
    """
    if name == "sklearn":
        return frozenset(ENGLISH_STOP_WORDS)
    if name != "smart":
        raise ValueError(f"unknown stop list {name!r}; choices: {list(_STOPLISTS)}")
    path = locate("smart_stoplist", data_dir=data_dir)
    lines = path.read_text(encoding="latin-1").splitlines()
    return frozenset(
        line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")
    )
