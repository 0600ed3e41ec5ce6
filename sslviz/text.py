"""Text to word counts: tokenizing, stop lists, vocabulary pruning, and an on-disk cache.

Tokenization follows Nigam et al. (2000): text is lower-cased and every digit becomes ``D``, so
``12:30`` is the token ``DD:DD`` and ``10am`` is ``DDam`` (times, years and prices then share a few
tokens instead of thousands of rare ones). Counting is scikit-learn's ``CountVectorizer``.

Vectorizing a whole corpus takes seconds; :func:`load_counts` therefore caches the count matrix
through :class:`sslviz.cache.ResultCache` (``<cache>/counts``), keyed by the corpus file's sha256,
the loader's arguments and the vectorizer options. A second load reads only that file; a damaged
entry is rebuilt.
"""

from __future__ import annotations

import functools
import re
from dataclasses import asdict, dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer

from . import datasets
from .cache import ResultCache
from .validation import check_bool, check_choice, check_int

__all__ = ["LOADERS", "STOP_LISTS", "TOKEN_PATTERN", "CountCorpus", "TextOptions", "load_counts",
           "load_link_views", "make_vectorizer", "preprocess", "stop_list", "strip_post",
           "vectorize", "without_dotted_words"]

#: Words with inner ``:``, ``.`` or ``'`` kept (``DD:DD``, ``D.D``, ``don't``), optional ``*``.
TOKEN_PATTERN = r"(?u)\w+(?:[:.']\w+)*\*?"
STOP_LISTS = ("smart", "sklearn")
#: Bump when tokenization or any corpus loader changes what a document's text is.
RESULT_VERSION = 1  # bump for a change sslviz.code_digest cannot see (a dependency's)
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class TextOptions:
    """How documents become counts.

    Parameters
    ----------
    lowercase : bool, default=True
    map_digits : bool, default=True
        Replace every digit by ``D`` (after lower-casing), as Nigam et al. did.
    stop_words : {None, "smart", "sklearn"}, default=None
        Remove the SMART stop list (570 distinct words, Salton's SMART system) or scikit-learn's
        English list.
    min_df : int, default=1
        Keep words occurring in at least this many documents.
    max_features : int or None, default=None
        Keep only the most frequent words of the corpus.
    """

    lowercase: bool = True
    map_digits: bool = True
    stop_words: str | None = None
    min_df: int = 1
    max_features: int | None = None

    def __post_init__(self):
        check_bool("lowercase", self.lowercase)
        check_bool("map_digits", self.map_digits)
        check_choice("stop_words", self.stop_words, (None, *STOP_LISTS))
        object.__setattr__(self, "min_df", check_int("min_df", self.min_df, minimum=1))
        if self.max_features is not None:
            object.__setattr__(self, "max_features",
                               check_int("max_features", self.max_features, minimum=1))


@dataclass(frozen=True)
class CountCorpus:
    """A vectorized corpus: counts, labels and vocabulary."""

    X: sp.csr_matrix  # (n_documents, n_words) word counts
    y: np.ndarray  # (n_documents,) int class index
    target_names: list
    vocabulary: np.ndarray  # (n_words,) str, the column names of X
    filenames: np.ndarray  # (n_documents,) str, where each document came from


def preprocess(text, *, lowercase=True, map_digits=True):
    """Lower-case ``text`` and map digits to ``D`` (``"At 12:30"`` -> ``"at DD:DD"``)."""
    if not isinstance(text, str):
        raise ValueError(f"a document must be a string, got {type(text).__name__}")
    if lowercase:
        text = text.lower()
    if map_digits:
        text = _DIGIT.sub("D", text)
    return text


def stop_list(name):
    """The words of a named stop list (``"smart"`` or ``"sklearn"``) as a frozenset."""
    if name == "sklearn":
        return frozenset(ENGLISH_STOP_WORDS)
    if name == "smart":
        return datasets.load_stoplist("smart")
    raise ValueError(f"unknown stop list {name!r}; choose one of {STOP_LISTS}")


def make_vectorizer(options=TextOptions()):
    """A ``CountVectorizer`` configured by ``options``."""
    if not isinstance(options, TextOptions):
        raise ValueError(f"options must be a TextOptions (e.g. TextOptions(min_df=2)), got "
                         f"{type(options).__name__}")
    stop_words = None
    if options.stop_words is not None:
        stop_words = sorted(preprocess(w, lowercase=options.lowercase, map_digits=False)
                            for w in stop_list(options.stop_words))
    return CountVectorizer(
        preprocessor=functools.partial(preprocess, lowercase=options.lowercase,
                                       map_digits=options.map_digits),
        token_pattern=TOKEN_PATTERN,
        stop_words=stop_words,
        min_df=options.min_df,
        max_features=options.max_features,
    )


def vectorize(texts, options=TextOptions()):
    """Count the words of ``texts``: returns ``(X, vocabulary)`` (csr matrix, str array)."""
    vectorizer = make_vectorizer(options)
    X = vectorizer.fit_transform(texts).tocsr()
    return X, vectorizer.get_feature_names_out()


LOADERS = {
    "20newsgroups": "load_20newsgroups",
    "webkb": "load_webkb",
    "reuters21578": "load_reuters",
}


def load_counts(name, options=TextOptions(), *, use_cache=True, **loader_kwargs):
    """Load a registered corpus as word counts, from the cache when possible.

    Parameters
    ----------
    name : {"20newsgroups", "webkb", "reuters21578"}
    options : TextOptions
    use_cache : bool, default=True
        ``False`` vectorizes the corpus again and replaces its cache entry.
    **loader_kwargs
        Passed to the corpus loader (e.g. ``subset="train"``, ``categories=[...]``,
        ``remove=("headers",)``).

    Returns
    -------
    CountCorpus
    """
    if name not in LOADERS:
        raise ValueError(f"unknown corpus {name!r}; choose one of {sorted(LOADERS)}")
    arrays = ResultCache("counts", code=__name__).get_or_compute(
        _cache_key(name, options, loader_kwargs),
        lambda: _count_arrays(name, options, loader_kwargs), use_cache=use_cache)
    X = sp.csr_matrix((arrays["data"], arrays["indices"], arrays["indptr"]),
                      shape=tuple(arrays["shape"]))
    return CountCorpus(X, arrays["y"], arrays["target_names"].tolist(), arrays["vocabulary"],
                       arrays["filenames"])


def load_link_views(page_options, link_options, *, data_dir=None):
    """WebKB's pages that other pages link to, as two count matrices, cached like
    :func:`load_counts` (parsing the archive's links takes most of a minute; lectures 10 and 11
    share the result).

    Returns
    -------
    dict
        ``page`` and ``link`` (CSR counts of the page words and of the in-link anchor words, one
        row per page with at least one in-link), ``page_vocabulary``, ``link_vocabulary`` and
        ``target`` (1 for course pages), from
        :func:`sslviz.datasets.webkb_links.load_webkb_link_views`.
    """
    key = {"version": RESULT_VERSION, "corpus": "webkb-link-views",
           "sha256": datasets.file_sha256(datasets.locate("webkb", data_dir=data_dir)),
           "options": [asdict(page_options), asdict(link_options)], "token_pattern": TOKEN_PATTERN}
    arrays = ResultCache("counts", code=__name__).get_or_compute(
        key, lambda: _link_view_arrays(page_options, link_options, data_dir))
    out = {"target": arrays["target"]}
    for view in ("page", "link"):
        out[view] = sp.csr_matrix((arrays[f"{view}_data"], arrays[f"{view}_indices"],
                                   arrays[f"{view}_indptr"]), shape=tuple(arrays[f"{view}_shape"]))
        out[f"{view}_vocabulary"] = arrays[f"{view}_vocabulary"]
    return out


def _link_view_arrays(page_options, link_options, data_dir):
    from .datasets.webkb_links import load_webkb_link_views

    bunch = load_webkb_link_views(data_dir=data_dir)
    keep = bunch.n_inlinks > 0
    out = {"target": bunch.target[keep]}
    for view, texts, options in (("page", bunch.page_text, page_options),
                                 ("link", bunch.link_text, link_options)):
        X, vocabulary = vectorize([t for t, k in zip(texts, keep, strict=True) if k], options)
        out.update({f"{view}_data": X.data, f"{view}_indices": X.indices,
                    f"{view}_indptr": X.indptr, f"{view}_shape": np.array(X.shape),
                    f"{view}_vocabulary": np.asarray(vocabulary, dtype=str)})
    return out


def _count_arrays(name, options, loader_kwargs):
    bunch = getattr(datasets, LOADERS[name])(**loader_kwargs)
    X, vocabulary = vectorize(bunch.data, options)
    return {"data": X.data, "indices": X.indices, "indptr": X.indptr, "shape": np.array(X.shape),
            "y": np.asarray(bunch.target), "target_names": np.asarray(bunch.target_names, str),
            "vocabulary": np.asarray(vocabulary, dtype=str),
            "filenames": np.asarray(bunch.filenames, dtype=str)}


def _cache_key(name, options, loader_kwargs):
    loader = dict(loader_kwargs)
    if "remove" in loader:  # one key per set of parts; none when nothing is removed (the default)
        remove = datasets.check_remove(loader.pop("remove"))
        if remove:
            loader["remove"] = list(remove)
    return {
        "version": RESULT_VERSION,
        "corpus": name,
        "sha256": datasets.file_sha256(datasets.locate(name)),
        "loader": dict(sorted(loader.items())),
        "options": asdict(options),
        "token_pattern": TOKEN_PATTERN,
    }


_ATTRIBUTION = re.compile(r"^(in article\b.*|.*\b(writes|wrote|says):\s*)$", re.IGNORECASE)


def strip_post(text):
    """A Usenet post without what names its author: the header (every line before the first
    blank line), attribution lines ("In article <...> name@host writes:") and the signature
    (from the last line starting with ``--``).

    >>> strip_post("From: ann@x.edu\\nSubject: cars\\n\\nann@x.edu writes:\\nnice car\\n--\\nAnn")
    'nice car'
    """
    if not isinstance(text, str):
        raise ValueError(f"a post must be a string, got {type(text).__name__}")
    _, blank, body = text.partition("\n\n")
    lines = (body if blank else text).split("\n")
    dashes = [i for i, line in enumerate(lines) if line.startswith("--")]
    if dashes:
        lines = lines[:dashes[-1]]
    return "\n".join(line for line in lines if not _ATTRIBUTION.match(line.strip())).strip()


def without_dotted_words(X, vocabulary):
    """Drop the columns of words with a dot (host names such as ``uokmax.ecn.uoknor.edu``):
    returns ``(X, vocabulary)`` restricted to the other words."""
    keep = np.flatnonzero(np.char.find(np.asarray(vocabulary, dtype=str), ".") < 0)
    return sp.csr_matrix(X)[:, keep], np.asarray(vocabulary)[keep]
