"""The sense-tagged Senseval corpora (*line*, *hard*, *serve*, *interest*), read from the zip.

Not a set of documents but of *instances* of one ambiguous word: :func:`load_senseval` returns its
own small dataclass, :class:`SensevalCorpus`, instead of a Bunch.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sslviz.datasets.fetch import file_sha256, locate
from sslviz.datasets.loaders import _check_choices
from sslviz.datasets.registry import get_dataset

__all__ = ["SENSEVAL_WORDS", "SensevalCorpus", "load_senseval"]

SENSEVAL_WORDS = ("hard", "interest", "line", "serve")

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
