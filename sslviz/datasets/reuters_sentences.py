"""Reuters-21578 as a sentence-extraction task: an analog of Amini & Gallinari's summary data.

The paper classifies the sentences of a story as *in the summary* or not, from five features of
Kupiec, Pedersen & Chen (1995), and ranks them by the classifier's score. Its corpora (Reuters
stories with human extract summaries, TIPSTER SUMMAC cmp-lg) are not available. The analog:

* **Stories**: Reuters-21578 stories with a headline (``<TITLE>``) and a body (``<BODY>``), any
  topic; the body is split into paragraphs (Reuters indents each) and sentences (a full stop, ``?``
  or ``!`` followed by a capital, except after common abbreviations and initials); the closing
  "Reuter" is dropped. Stories with ``min_sentences`` to ``max_sentences`` sentences and at least
  two content words in the headline are kept, and ``n_stories`` of them drawn with a seed.
* **Target**: the headline plays the part of the human abstract. A sentence's *overlap* is the
  share of the headline's content words (lower-cased, light stemming, stop words and Reuters
  fillers such as *said*, *mln*, *pct* removed) that occur in it; it is *relevant* when the overlap
  reaches a threshold (:meth:`SentenceCorpus.relevant`).
* **Features** (computed from the body only; the headline defines the target and is never
  seen by a model), after Kupiec et al.:

  ``position``  log(1 + index of the sentence in the story) - Kupiec's paragraph feature;
  ``length``    log(1 + words) - his sentence-length cut-off, kept continuous;
  ``thematic``  share of the sentence's content words among the story's 10 most frequent
                content words (those seen at least twice) - his thematic-word feature;
  ``uppercase`` capitalised words after the first word that recur in the story (names, firms)
                - his upper-case feature;
  ``numbers``   numeric tokens - a cue feature (newswire leads quote figures; Kupiec's cue
                phrases are fixed expressions of scientific prose such as "in conclusion").

How it differs from the paper: the target is derived from the headline (a short, vocabulary-based
"summary", not sentences picked by a person), so relevance and the thematic feature are related by
construction; the lead sentence is relevant far more often than in a human extract of a long text.
Stories are split 1/3 for training and 2/3 for testing, and labeled fractions are counted in
stories (:func:`split_stories`), as in the paper.

Cost: one pass over the archive (about 4 s), then cached (kind ``"reuters_sentences"``).
"""

from __future__ import annotations

import html
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
from sklearn.utils import check_random_state

from sslviz.cache import ResultCache
from sslviz.datasets.fetch import file_sha256, locate
from sslviz.datasets.loaders import _BODY, _SGM, _TITLE, _parse_sgm, _read_members
from sslviz.splits import Split
from sslviz.validation import check_int, check_number

RESULT_VERSION = 1  # bump for a change sslviz.code_digest cannot see (a dependency's)
FEATURES = ("position", "length", "thematic", "uppercase", "numbers")
FILLERS = frozenset({"said", "says", "say", "mln", "dlr", "dlrs", "pct", "reuter", "reuters",
                     "inc", "corp", "co", "ltd", "plc", "cts", "vs", "billion", "year",
                     "shr", "net", "qtr", "avg", "shrs", "oper", "rev", "nil", "nine", "mths"})
STOP = frozenset(ENGLISH_STOP_WORDS) | FILLERS
ABBREVIATIONS = frozenset({"mr", "mrs", "ms", "dr", "inc", "corp", "co", "ltd", "jr", "sr", "st",
                           "no", "vs", "jan", "feb", "mar", "apr", "aug", "sept", "sep", "oct",
                           "nov", "dec", "gov", "sen", "rep", "gen", "lt", "col", "calif", "tex",
                           "fla", "ill", "mass", "conn", "penn", "wash", "ariz", "colo", "mich",
                           "minn", "wis", "okla", "la", "pa", "md", "va", "ga", "mo", "n.y",
                           "bros", "dept", "est", "approx", "fig", "etc", "pty", "cie", "mt"})
_WORD = re.compile(r"[A-Za-z][A-Za-z'&-]*|\d[\d,./-]*")
_BOUNDARY = re.compile(r"[.!?][\"')]?\s+(?=[\"'(]?[A-Z0-9])")
_PARAGRAPH = re.compile(r"\n[ \t]{2,}|\n\s*\n")
_REUTER_END = re.compile(r"\s*\bReuter\b\s*$|\s*\bREUTER\b\s*$")
_DATELINE = re.compile(r"<DATELINE>(.*?)</DATELINE>", re.S)
_TICKER = re.compile(r"<[A-Z0-9.]{1,6}>")


@dataclass(frozen=True)
class SentenceCorpus:
    """Sentences of Reuters stories with Kupiec-style features and headline overlap.

    Attributes
    ----------
    features : ndarray of shape (n_sentences, 5), the columns of ``feature_names``
    feature_names : tuple of str
    overlap : ndarray of shape (n_sentences,)
        Share of the story's headline content words found in the sentence.
    story : ndarray of shape (n_sentences,), int: index into ``headlines``
    index : ndarray of shape (n_sentences,), int: 0 for a story's first sentence
    sentences, headlines, story_ids : ndarray of str
    description : str
    """

    features: np.ndarray
    feature_names: tuple
    overlap: np.ndarray
    story: np.ndarray
    index: np.ndarray
    sentences: np.ndarray
    headlines: np.ndarray
    story_ids: np.ndarray
    description: str

    def relevant(self, threshold=0.5):
        """1 where the sentence holds at least ``threshold`` of its headline's content words."""
        check_number("threshold", threshold, above=0, maximum=1)
        return (self.overlap >= threshold - 1e-12).astype(int)

    @property
    def n_stories(self):
        return len(self.headlines)


def stem(word):
    """A light stem: lower case, no possessive, no plural ``s``/``es``."""
    word = word.lower().removesuffix("'s")
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def content_words(text):
    """Stemmed content words of ``text`` (no numbers, stop words or Reuters fillers)."""
    return [stem(w) for w in _WORD.findall(text)
            if w[0].isalpha() and len(w) > 1 and w.lower() not in STOP and stem(w) not in STOP]


def split_sentences(body):
    """The sentences of a Reuters body, in order (paragraphs, then full stops before capitals)."""
    body = html.unescape(body).replace("\x03", "").replace("<", "").replace(">", "")
    body = _REUTER_END.sub("", body.strip())
    sentences = []
    for paragraph in _PARAGRAPH.split(body):
        text = " ".join(paragraph.split())
        start = 0
        for match in _BOUNDARY.finditer(text):
            before = text[start:match.start() + 1].split()
            last = before[-1].rstrip(".!?\"')").lower() if before else ""
            if last in ABBREVIATIONS or len(last) == 1 or "." in last:
                continue  # "Inc.", initials "J.", "U.S."
            sentences.append(text[start:match.start() + 1].strip())
            start = match.end()
        if text[start:].strip():
            sentences.append(text[start:].strip())
    return [s for s in sentences if len(_WORD.findall(s)) >= 3]


def sentence_features(sentences):
    """Kupiec-style features of one story's sentences, shape (n_sentences, 5) (see module)."""
    words = [_WORD.findall(s) for s in sentences]
    contents = [content_words(s) for s in sentences]
    counts = Counter(w for c in contents for w in c)
    thematic = {w for w, n in counts.most_common(10) if n >= 2}
    capitals = Counter(w for ws in words for w in ws[1:] if w[0].isupper())
    rows = []
    for i, (ws, content) in enumerate(zip(words, contents, strict=True)):
        rows.append((
            np.log1p(i),
            np.log1p(len(ws)),
            sum(w in thematic for w in content) / max(1, len(content)),
            sum(1 for w in ws[1:] if w[0].isupper() and capitals[w] >= 2),
            sum(1 for w in ws if w[0].isdigit()),
        ))
    return np.array(rows, dtype=float)


def headline_overlap(headline, sentences):
    """Share of the headline's distinct content words found in each sentence."""
    target = set(content_words(headline))
    return np.array([len(target & set(content_words(s))) / len(target) for s in sentences])


def load_reuters_sentences(n_stories=1000, *, min_sentences=5, max_sentences=30, random_state=0,
                           data_dir=None, use_cache=True):
    """The sentence-extraction analog (see the module docstring), cached after the first call.

    Parameters
    ----------
    n_stories : int, default=1000
        Stories drawn (the paper's Reuters set had 1,000).
    min_sentences, max_sentences : int, default=5, 30
    random_state : int, default=0
        Seed of the draw of stories.
    data_dir : path or None
        Folder holding the archive instead of :func:`sslviz.datasets.data_dir`.
    use_cache : bool, default=True

    Returns
    -------
    SentenceCorpus
    """
    n_stories = check_int("n_stories", n_stories, minimum=1)
    min_sentences = check_int("min_sentences", min_sentences, minimum=2)
    max_sentences = check_int("max_sentences", max_sentences, minimum=min_sentences)
    path = locate("reuters21578", data_dir=data_dir)
    key = {"version": RESULT_VERSION, "sha256": file_sha256(path), "n_stories": n_stories,
           "min_sentences": min_sentences, "max_sentences": max_sentences,
           "random_state": random_state}
    arrays = ResultCache("reuters_sentences", code=__name__).get_or_compute(
        key, lambda: _build(path, n_stories, min_sentences, max_sentences, random_state),
        use_cache=use_cache)
    description = (f"{len(arrays['headlines'])} Reuters-21578 stories ({min_sentences}-"
                   f"{max_sentences} sentences, drawn with seed {random_state}), "
                   f"{len(arrays['story'])} sentences; target: overlap with the headline's "
                   "content words; features from the body only: " + ", ".join(FEATURES))
    return SentenceCorpus(arrays["features"], FEATURES, arrays["overlap"], arrays["story"],
                          arrays["index"], arrays["sentences"], arrays["headlines"],
                          arrays["story_ids"], description)


def _with_dateline_start(doc, body):
    """The body, preceded by the words of its first sentence that the dateline holds.

    Some datelines run into the story ("RIO DE JANEIRO, Feb 26 - Brazil's "Cruzado" anti-"): the
    part after the dash is the start of the first sentence.
    """
    dateline = _DATELINE.search(doc)
    if not dateline or " - " not in dateline.group(1):
        return body
    start = " ".join(dateline.group(1).split(" - ", 1)[1].split())
    if not start:
        return body
    return start + ("" if start.endswith("-") else " ") + body.lstrip()


def _build(path, n_stories, min_sentences, max_sentences, random_state):
    members = _read_members(path, lambda name: bool(_SGM.fullmatch(name)))
    candidates = []
    for name in sorted(members):
        for _, _, doc, filename in _parse_sgm(name, members[name].decode("latin-1")):
            title, body = _TITLE.search(doc), _BODY.search(doc)
            if not (title and body):
                continue
            headline = " ".join(_TICKER.sub(" ", html.unescape(title.group(1))).split())
            if len(set(content_words(headline))) < 2:
                continue
            sentences = split_sentences(_with_dateline_start(doc, body.group(1)))
            if min_sentences <= len(sentences) <= max_sentences:
                candidates.append((filename, headline, sentences))
    if len(candidates) < n_stories:
        raise ValueError(f"only {len(candidates)} stories have {min_sentences}-{max_sentences} "
                         f"sentences; ask for at most that many (n_stories={n_stories})")
    rng = check_random_state(random_state)
    chosen = sorted(rng.choice(len(candidates), n_stories, replace=False))
    parts = {"features": [], "overlap": [], "story": [], "index": [], "sentences": []}
    for number, i in enumerate(chosen):
        _, headline, sentences = candidates[i]
        parts["features"].append(sentence_features(sentences))
        parts["overlap"].append(headline_overlap(headline, sentences))
        parts["story"].append(np.full(len(sentences), number))
        parts["index"].append(np.arange(len(sentences)))
        parts["sentences"].append(np.array(sentences, dtype=str))
    arrays = {name: np.concatenate(values) for name, values in parts.items()}
    arrays["headlines"] = np.array([candidates[i][1] for i in chosen], dtype=str)
    arrays["story_ids"] = np.array([candidates[i][0] for i in chosen], dtype=str)
    return arrays


def split_stories(story, labeled_fraction, *, train_fraction=1 / 3, random_state=None):
    """Split stories 1/3 training, 2/3 test; label ``labeled_fraction`` of the training stories.

    Parameters
    ----------
    story : ndarray of shape (n_sentences,), the story of every sentence
    labeled_fraction : float in (0, 1]
        Share of the training *stories* whose sentences are labeled (at least one story).
    train_fraction : float in (0, 1), default=1/3
    random_state : int, RandomState or None

    Returns
    -------
    sslviz.splits.Split
        Sentence rows of the labeled stories, the unlabeled training stories and the test
        stories, each sorted.
    """
    check_number("labeled_fraction", labeled_fraction, above=0, maximum=1)
    check_number("train_fraction", train_fraction, above=0, below=1)
    rng = check_random_state(random_state)
    stories = rng.permutation(np.unique(story))
    n_train = max(1, round(len(stories) * train_fraction))
    n_labeled = max(1, round(n_train * labeled_fraction))
    groups = np.split(stories, [n_labeled, n_train])

    def rows(chosen):
        return np.flatnonzero(np.isin(story, chosen))

    return Split(*(rows(g) for g in groups))


# -- the paper's measure ---------------------------------------------------------------------------
READINGS = ("ir", "all_k")


def average_precision(scores, relevant, story, *, reading="ir"):
    """Average precision per story, then the mean over stories (the paper's measure).

    Each story's sentences are ranked by ``scores`` (higher first). The paper takes "the
    precision at k for k = 1, 2, ..." and averages; two readings:

    * ``"ir"`` (default) - information retrieval's average precision: the mean of the precision
      at the ranks where a relevant sentence is found (a tie block of equal scores counts at its
      end, as :func:`sklearn.metrics.average_precision_score` does; it equals that function on
      each story);
    * ``"all_k"`` - the literal reading: the mean of precision@k over every k from 1 to the
      number of sentences (ties broken by sentence order). It ends at the story's share of
      relevant sentences, whatever the ranking, so it rewards long stories less.

    Stories with no relevant sentence have no average precision and are left out.

    Parameters
    ----------
    scores, relevant, story : ndarray of shape (n_sentences,)
        Scores (use log-odds: posteriors round to 1.0 and tie), 0/1 relevance, story of each.
    reading : {"ir", "all_k"}

    Returns
    -------
    (mean over stories, ndarray of per-story values with NaN where undefined)
    """
    if reading not in READINGS:
        raise ValueError(f"reading must be one of {list(READINGS)}, got {reading!r}")
    scores, relevant, story = (np.asarray(a) for a in (scores, relevant, story))
    if not (scores.shape == relevant.shape == story.shape) or scores.ndim != 1:
        raise ValueError("scores, relevant and story must be 1-D arrays of the same length, got "
                         f"shapes {scores.shape}, {relevant.shape}, {story.shape}")
    if not np.all(np.isfinite(scores)):
        raise ValueError("scores hold NaN or infinite values; rank by finite log-odds")
    if scores.size == 0:
        return float("nan"), np.full(0, np.nan)
    # Every story at once: sentences by story, then by score (higher first, ties in sentence
    # order), and running counts that restart at each story.
    order = np.lexsort((-scores, story))
    ranked, rel = scores[order], relevant[order].astype(bool)
    _, starts, sizes = np.unique(story[order], return_index=True, return_counts=True)
    group = np.repeat(np.arange(len(starts)), sizes)
    hits = np.cumsum(rel)
    hits -= (hits - rel)[starts][group]  # relevant sentences up to each rank, in its story
    precision = hits / (np.arange(len(rel)) - starts[group] + 1)
    n_relevant = hits[starts + sizes - 1]
    if reading == "all_k":
        values = np.add.reduceat(precision, starts) / sizes
    else:  # a tie block of equal scores counts at its last sentence
        ends = np.flatnonzero(np.r_[(ranked[1:] != ranked[:-1]) | (group[1:] != group[:-1]),
                                    True])
        first = np.r_[True, group[ends][1:] != group[ends][:-1]]  # a story's first block
        gained = hits[ends] - np.where(first, 0, np.r_[0, hits[ends][:-1]])
        values = np.bincount(group[ends], weights=gained * precision[ends],
                             minlength=len(starts)) / np.maximum(n_relevant, 1)
    values = np.where(n_relevant > 0, values, np.nan)
    return float(np.nanmean(values)), values
