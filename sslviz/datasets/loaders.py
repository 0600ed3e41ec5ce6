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

The sense-tagged Senseval corpus is not a set of documents but of *instances* of one ambiguous
word; :func:`load_senseval` returns its own small dataclass, :class:`SensevalCorpus`.
"""

from __future__ import annotations

import html
import re
import tarfile
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
from sklearn.utils import Bunch

from sslviz.datasets.fetch import file_sha256, locate
from sslviz.datasets.registry import get_dataset

__all__ = [
    "R8_CLASSES",
    "SENSEVAL_WORDS",
    "WEBKB_CLASSES",
    "SensevalCorpus",
    "html_to_text",
    "load_20newsgroups",
    "load_reuters",
    "load_senseval",
    "load_stoplist",
    "load_webkb",
    "strip_http_header",
]

WEBKB_CLASSES = ("course", "faculty", "project", "student")
R8_CLASSES = ("acq", "crude", "earn", "grain", "interest", "money-fx", "ship", "trade")
SENSEVAL_WORDS = ("hard", "interest", "line", "serve")
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


def load_20newsgroups(subset: str = "all", categories=None, *, data_dir=None) -> Bunch:
    """Load the 20 Newsgroups "bydate" corpus from its archive.

    Parameters
    ----------
    subset : {"all", "train", "test"}, default="all"
        The date-based split; ``"all"`` is the training posts followed by the test posts.
    categories : list of str or None, default=None
        Newsgroup names to keep (e.g. ``["sci.space", "rec.autos"]``); ``None`` keeps all 20.
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
        Unknown subset or newsgroup name (the message lists the valid ones).
    DatasetMissingError, ChecksumMismatchError
        The archive is missing or damaged.

    Notes
    -----
    Posts are decoded as latin-1 (some contain 8-bit bytes that are not UTF-8) and keep their
    headers (From, Subject, Organization, Lines...). Header words such as names and
    organizations are strong, somewhat unfair, class cues; remove them when that matters.
    There are 11,314 training and 7,532 test posts.
    """
    splits = _check_subset(subset)
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
        (members[name].decode("latin-1"), group, name)
        for split in splits
        for name in sorted(members)
        for name_split, group in [_20news_split_group(name)]
        if name_split == split and group in chosen
    ]
    loaded = f"subset={subset!r}, {len(chosen)} newsgroups"
    return _bunch("20newsgroups", path, docs, chosen, loaded)


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


# --------------------------------------------------------------------------- Senseval

# The corpus spells a slash as a bare word: "3-1 FRASL 2-inch" (3 1/2-inch), "ps FRASL 2" (PS/2).
_SENSEVAL_SLASH = "FRASL"


@dataclass(frozen=True)
class SensevalCorpus:
    """The sense-tagged instances of one ambiguous word (from :func:`load_senseval`).

    Instance ``i`` is the context ``tokens[i]`` (a sentence or two) in which the word occurs at
    position ``head[i]``; ``tokens[i][head[i]]`` is the word as written (``"lines"``, ``"harder"``,
    ``"served"``...).

    Attributes
    ----------
    word : str
        ``"hard"``, ``"interest"``, ``"line"`` or ``"serve"``.
    tokens : list of list of str
        The words of each instance, lower-cased, in order (punctuation marks are tokens).
    pos : list of list of str
        Penn Treebank part-of-speech tag of each token; ``""`` for the few words the corpus leaves
        untagged (bare text between the tagged words).
    head : ndarray of int64, shape (n_instances,)
        Index of the ambiguous word in ``tokens[i]``.
    target : ndarray of int64, shape (n_instances,)
        Index into ``sense_names`` of each instance's sense (its first answer, see ``answers``).
    sense_names : list of str
        The senses kept, sorted (e.g. ``["cord", "division", ...]`` or ``["HARD1", ...]``).
    answers : list of tuple of str
        Every sense the annotators gave each instance, in file order. In this archive each
        instance has exactly one; the format allows several.
    ids : list of str
        Instance ids as in the file (e.g. ``"line-n.w7_010:888:"``; some contain spaces or
        braces). They name the source file, not the article: they do not group instances
        into documents.
    DESCR : str
    source : Path
        The archive; ``sha256`` its checksum.
    """

    word: str
    tokens: list
    pos: list
    head: np.ndarray
    target: np.ndarray
    sense_names: list
    answers: list
    ids: list
    DESCR: str
    source: Path
    sha256: str

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def senses(self) -> np.ndarray:
        """The sense name of every instance, shape (n_instances,)."""
        return np.asarray(self.sense_names, dtype=object)[self.target]

    def context(self, i: int, width: int | None = None) -> str:
        """Instance ``i`` as text, the ambiguous word in brackets, e.g. ``"a telephone [line]"``.

        ``width`` keeps only that many tokens on each side of the word.
        """
        tokens, head = self.tokens[i], int(self.head[i])
        start = 0 if width is None else max(0, head - width)
        stop = len(tokens) if width is None else head + width + 1
        return " ".join(f"[{t}]" if j == head else t
                        for j, t in enumerate(tokens[start:stop], start))


def load_senseval(word: str, senses=None, *, data_dir=None) -> SensevalCorpus:
    """Load the sense-tagged instances of one word from NLTK's ``senseval.zip``.

    Parameters
    ----------
    word : {"hard", "interest", "line", "serve"}
        The ambiguous word (archive member ``senseval/<word>.pos``).
    senses : sequence of str or None, default=None
        Senses to keep (e.g. ``["product", "phone"]``); instances of other senses are dropped.
        ``None`` keeps all.
    data_dir : str or Path or None, default=None
        Folder holding the archive instead of :func:`sslviz.datasets.data_dir`.

    Returns
    -------
    SensevalCorpus
        Instances in file order.

    Raises
    ------
    ValueError
        Unknown word or sense (the message lists the valid ones); an instance without an answer
        or without exactly one ``<head>`` (the message names it).
    DatasetMissingError, ChecksumMismatchError
        The archive is missing or damaged.

    Notes
    -----
    The files are XML: ``<instance id=...><answer instance=... senseid=.../><context>`` then
    the words as ``<wf pos="NN">line</wf>``, the ambiguous one wrapped in ``<head>...</head>``.
    What else occurs, and what the loader does with it:

    * ``<s snum="..."/>`` sentence markers (in *hard*): skipped.
    * ``<compound><wf>to-reach</wf></compound>`` (in *hard*): its words are read as usual.
    * Bare words between the ``<wf>`` elements (a few hundred instances): split on white space
      and kept as untagged tokens (POS ``""``), as NLTK's reader does. Most are ``FRASL``, the
      corpus's spelling of a slash (``"3-1 FRASL 2-inch"``, ``"ps FRASL 2"``), read as ``"/"``.
    * Several ``<answer>`` elements: all kept in ``answers``, the first one is the sense.

    Every word is lower-cased; the tagged words already are, only some bare words are not.
    Counts (all senses): hard 4,333 (HARD1 3,455, HARD2 502, HARD3 376); interest 2,368 (six
    senses); line 4,146 (product 2,217, phone 429, text 404, division 374, cord 373, formation
    349); serve 4,378 (SERVE10 1,814, SERVE12 1,272, SERVE2 853, SERVE6 439). The contexts carry
    no document ids, so Yarowsky's one-sense-per-discourse constraint cannot be applied.
    """
    if word not in SENSEVAL_WORDS:
        raise ValueError(f"unknown Senseval word {word!r}; valid words: {list(SENSEVAL_WORDS)}")
    path = locate("senseval", data_dir=data_dir)
    with zipfile.ZipFile(path) as archive:
        root = ET.fromstring(archive.read(f"senseval/{word}.pos"))
    parsed = [_senseval_instance(instance) for instance in root.iter("instance")]
    available = {answers[0] for _, _, _, answers, _ in parsed}
    chosen = sorted(available) if senses is None else _check_choices("senses", senses, available)
    kept = [row for row in parsed if row[3][0] in chosen]
    index = {name: i for i, name in enumerate(chosen)}
    description = get_dataset("senseval").description
    return SensevalCorpus(
        word=word,
        tokens=[row[0] for row in kept],
        pos=[row[1] for row in kept],
        head=np.array([row[2] for row in kept], dtype=np.int64),
        target=np.array([index[row[3][0]] for row in kept], dtype=np.int64),
        sense_names=chosen,
        answers=[row[3] for row in kept],
        ids=[row[4] for row in kept],
        DESCR=(f"{description}\n\nLoaded: word={word!r}, senses={chosen}; {len(kept)} instances "
               f"from {path}."),
        source=path,
        sha256=file_sha256(path),
    )


def _senseval_instance(instance):
    """(tokens, pos tags, head index, answers, id) of one ``<instance>`` element."""
    instance_id = instance.get("id", "?")
    answers = tuple(answer.get("senseid") for answer in instance.findall("answer"))
    if not answers or None in answers:
        raise ValueError(f"Senseval instance {instance_id!r} has no sense (no <answer senseid>)")
    tokens, tags, heads = [], [], []

    def bare(text):
        for token in (text or "").split():
            tokens.append("/" if token == _SENSEVAL_SLASH else token.lower())
            tags.append("")

    def walk(element):
        bare(element.text)
        for child in element:
            if child.tag == "wf":
                tokens.append((child.text or "").strip().lower())
                tags.append(child.get("pos", ""))
            elif child.tag == "head":
                heads.append(len(tokens))
                walk(child)
            elif child.tag != "s":  # <compound> and anything unknown: read what is inside
                walk(child)
            bare(child.tail)

    for context in instance.findall("context"):
        walk(context)
    if len(heads) != 1 or heads[0] >= len(tokens):
        raise ValueError(f"Senseval instance {instance_id!r} marks {len(heads)} head words; "
                         "exactly one <head> with a word inside is expected")
    return tokens, tags, heads[0], answers, instance_id


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
