"""sslviz.text: Nigam-style tokens, stop lists, pruning, and the on-disk cache of load_counts.

The cache tests build a tiny fake 20 Newsgroups archive in ``tmp_path`` and swap the registry
entry for one that accepts exactly that file (as tests/test_datasets_loaders.py does), with
``SSLVIZ_DATA`` and ``SSLVIZ_CACHE`` pointing at temporary folders.
"""

import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from fake_data import make_tar_gz, register_fake
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

import sslviz.datasets
import sslviz.text
from sslviz.cache import CacheWarning
from sslviz.text import (
    TOKEN_PATTERN,
    CountCorpus,
    TextOptions,
    load_counts,
    make_vectorizer,
    preprocess,
    stop_list,
    vectorize,
)


def tokens(texts, options=None):
    """{token: total count} of ``vectorize``."""
    X, vocabulary = vectorize(texts, TextOptions() if options is None else options)
    return dict(zip(vocabulary.tolist(), np.asarray(X.sum(axis=0)).ravel().tolist(),
                    strict=True))


# --------------------------------------------------------------------------- preprocessing


def test_preprocess_lowercases_and_maps_digits():
    assert preprocess("At 12:30 on 10am") == "at DD:DD on DDam"
    assert preprocess("At 12:30", lowercase=False) == "At DD:DD"
    assert preprocess("At 12:30", map_digits=False) == "at 12:30"
    assert preprocess("Ünïcode ١٢ 3", map_digits=True) == "ünïcode DD D"  # any Unicode digit


def test_tokens_of_hand_written_texts():
    counts = tokens(["At 12:30 on 10am, I said: don't!", "Call 555-1234 at 9:45 or at 10.5 a b"])
    assert counts == {
        "at": 3, "DD:DD": 1, "D:DD": 1, "on": 1, "DDam": 1, "i": 1, "said": 1, "don't": 1,
        "call": 1, "DDD": 1, "DDDD": 1, "or": 1, "DD.D": 1, "a": 1, "b": 1,
    }


def test_token_pattern_keeps_inner_punctuation_and_a_trailing_star():
    found = re.findall(TOKEN_PATTERN, "e.g. u.s.a. it's foo* 'quoted' x:y: end.")
    assert found == ["e.g", "u.s.a", "it's", "foo*", "quoted", "x:y", "end"]


def test_vectorize_without_lowercase_or_digit_mapping():
    assert tokens(["Mars 2024"], TextOptions(lowercase=False, map_digits=False)) == {
        "Mars": 1, "2024": 1}
    assert tokens(["Mars 2024"], TextOptions(lowercase=False)) == {"Mars": 1, "DDDD": 1}


def test_vectorize_counts_match_a_hand_count():
    texts = ["apple banana apple", "banana cherry", "apple date date date apple"]
    X, vocabulary = vectorize(texts)
    assert vocabulary.tolist() == ["apple", "banana", "cherry", "date"]
    assert sp.isspmatrix_csr(X) or isinstance(X, sp.csr_array)
    np.testing.assert_array_equal(X.toarray(), [[2, 1, 0, 0], [0, 1, 1, 0], [2, 0, 0, 3]])


def test_min_df_and_max_features_against_a_hand_count():
    texts = ["apple banana apple", "banana cherry", "apple date date date apple"]
    # document frequencies: apple 2, banana 2, cherry 1, date 1
    X, vocabulary = vectorize(texts, TextOptions(min_df=2))
    assert vocabulary.tolist() == ["apple", "banana"]
    np.testing.assert_array_equal(X.toarray(), [[2, 1], [0, 1], [2, 0]])
    # corpus frequencies: apple 4, date 3, banana 2, cherry 1
    X, vocabulary = vectorize(texts, TextOptions(max_features=2))
    assert vocabulary.tolist() == ["apple", "date"]
    np.testing.assert_array_equal(X.toarray(), [[2, 0], [0, 0], [2, 3]])
    X, vocabulary = vectorize(texts, TextOptions(max_features=3, min_df=2))
    assert vocabulary.tolist() == ["apple", "banana"]


def test_sklearn_stop_list_removes_its_words():
    assert stop_list("sklearn") == frozenset(ENGLISH_STOP_WORDS)
    counts = tokens(["The cat sat on the mat because it was there"],
                    TextOptions(stop_words="sklearn"))
    assert counts == {"cat": 1, "sat": 1, "mat": 1}
    assert tokens(["The cat"]) == {"the": 1, "cat": 1}


def test_stop_words_are_removed_after_lowercasing():
    counts = tokens(["THE Cat ON the Mat"], TextOptions(stop_words="sklearn"))
    assert counts == {"cat": 1, "mat": 1}


def test_smart_stop_list_from_the_real_file(real_data_dir, monkeypatch):
    monkeypatch.setenv("SSLVIZ_DATA", str(real_data_dir))
    words = stop_list("smart")
    assert len(words) == 570  # 571 lines after the comment, "would" twice
    assert {"a", "a's", "about", "the", "x", "yourselves"} <= words
    assert not any(word.startswith("#") for word in words)
    counts = tokens(["A's about the time you came, x marks it's spot"],
                    TextOptions(stop_words="smart"))
    assert counts == {"time": 1, "marks": 1, "spot": 1}


def test_unknown_stop_list():
    with pytest.raises(ValueError, match=r"^unknown stop list 'english'; choose one of "
                       r"\('smart', 'sklearn'\)$"):
        stop_list("english")


@pytest.mark.parametrize("kwargs, message", [
    ({"stop_words": "english"},
     "stop_words must be one of [None, 'smart', 'sklearn'], got 'english'"),
    ({"min_df": 0}, "min_df must be an integer >= 1, got 0"),
    ({"min_df": 0.5}, "min_df must be an integer >= 1, got 0.5"),
    ({"min_df": True}, "min_df must be an integer >= 1, got True"),
    ({"max_features": 0}, "max_features must be an integer >= 1, got 0"),
    ({"max_features": 10.0}, "max_features must be an integer >= 1, got 10.0"),
    ({"max_features": True}, "max_features must be an integer >= 1, got True"),
    ({"lowercase": "yes"}, "lowercase must be True or False, got 'yes'"),
    ({"map_digits": None}, "map_digits must be True or False, got None"),
])
def test_text_options_errors(kwargs, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        TextOptions(**kwargs)


def test_text_options_are_frozen_and_configure_the_vectorizer():
    options = TextOptions(min_df=2, max_features=5)
    with pytest.raises(AttributeError):
        options.min_df = 3
    vectorizer = make_vectorizer(options)
    assert (vectorizer.min_df, vectorizer.max_features) == (2, 5)
    assert vectorizer.token_pattern == TOKEN_PATTERN and vectorizer.stop_words is None


# --------------------------------------------------------------------------- load_counts cache

NEWS = {
    "20news-bydate-train/sci.space/2": b"From: a\nSubject: Moon\n\nThe orbit at 12:30 2 moons",
    "20news-bydate-train/alt.atheism/1": b"From: b\nSubject: God\n\nfaith and reason, reason",
    "20news-bydate-train/sci.space/1": b"From: a\nSubject: Mars\n\nlaunch the rocket",
    "20news-bydate-test/alt.atheism/3": b"From: e\nSubject: faith\n\ncaf\xe9 faith",
    "20news-bydate-test/sci.space/4": b"From: c\nSubject: orbit\n\norbit orbit rocket",
}


def make_news_archive(folder: Path, members=NEWS) -> Path:
    return make_tar_gz(folder / "20news-bydate.tar.gz", members)


@pytest.fixture
def news(tmp_path, monkeypatch, result_cache):
    """A fake archive in tmp_path/data; returns the test's private cache folder."""
    data = tmp_path / "data"
    data.mkdir()
    register_fake(monkeypatch, "20newsgroups", make_news_archive(data))
    return result_cache


def cache_files(cache):
    folder = cache / "counts"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def assert_same_corpus(a: CountCorpus, b: CountCorpus):
    assert a.X.shape == b.X.shape and a.X.dtype == b.X.dtype
    assert (a.X != b.X).nnz == 0
    np.testing.assert_array_equal(a.y, b.y)
    np.testing.assert_array_equal(a.vocabulary, b.vocabulary)
    np.testing.assert_array_equal(a.filenames, b.filenames)
    assert list(a.target_names) == list(b.target_names)


def test_load_counts_vectorizes_the_loaded_corpus(news):
    corpus = load_counts("20newsgroups", subset="all")
    assert corpus.target_names == ["alt.atheism", "sci.space"]
    assert corpus.y.tolist() == [0, 1, 1, 0, 1]  # train, then test; sorted member names
    assert corpus.filenames.tolist()[0] == "20news-bydate-train/alt.atheism/1"
    expected_X, expected_vocabulary = vectorize(
        [NEWS[name].decode("latin-1") for name in corpus.filenames])
    np.testing.assert_array_equal(corpus.vocabulary, expected_vocabulary)
    assert (corpus.X != expected_X).nnz == 0
    column = corpus.vocabulary.tolist().index("reason")
    assert corpus.X[0, column] == 2 and "DD:DD" in corpus.vocabulary
    assert cache_files(news) and len(cache_files(news)) == 1


def test_second_load_reads_only_the_cache(news, monkeypatch):
    first = load_counts("20newsgroups", TextOptions(stop_words="sklearn"), subset="train")

    def refuse(*args, **kwargs):
        raise AssertionError("the second load must read the cache, not the corpus")

    monkeypatch.setattr(sslviz.datasets, "load_20newsgroups", refuse)
    monkeypatch.setattr(sslviz.text, "vectorize", refuse)
    second = load_counts("20newsgroups", TextOptions(stop_words="sklearn"), subset="train")
    assert_same_corpus(first, second)
    assert isinstance(second.X, sp.csr_matrix | sp.csr_array)
    assert "the" not in second.vocabulary
    with pytest.raises(AssertionError, match="must read the cache"):
        load_counts("20newsgroups", TextOptions(stop_words="sklearn"), subset="test")


def test_cache_file_holds_no_pickles_and_no_temporaries_remain(news):
    load_counts("20newsgroups", subset="all")
    (name,) = cache_files(news)
    assert name.startswith("counts-") and name.endswith(".npz")
    with np.load(news / "counts" / name, allow_pickle=False) as f:
        arrays = {key: f[key] for key in f.files}
    strings = ("target_names", "vocabulary", "filenames")  # UTF-8 text and lengths on disk
    assert set(arrays) == {"data", "indices", "indptr", "shape", "y", *strings, "__key__",
                           "__strings__", *(f"__lengths__.{name}" for name in strings)}
    assert all(arrays[name].dtype == np.uint8 for name in strings)
    assert all(array.dtype.kind != "O" for array in arrays.values())
    assert [p.name for p in (news / "counts").iterdir()] == [name]  # no .part files
    assert not list(news.rglob("*.part*"))


def test_different_options_or_arguments_use_different_cache_files(news):
    base = load_counts("20newsgroups", subset="all")
    pruned = load_counts("20newsgroups", TextOptions(min_df=2), subset="all")
    train = load_counts("20newsgroups", subset="train")
    assert len(cache_files(news)) == 3
    assert len(pruned.vocabulary) < len(base.vocabulary)
    assert train.X.shape[0] == 3 and base.X.shape[0] == 5
    # reading each back gives its own corpus
    assert_same_corpus(load_counts("20newsgroups", TextOptions(min_df=2), subset="all"), pruned)
    assert_same_corpus(load_counts("20newsgroups", subset="all"), base)
    assert len(cache_files(news)) == 3


def test_remove_keys_the_cache_only_when_it_removes_something(news):
    base = load_counts("20newsgroups", subset="all")
    assert_same_corpus(load_counts("20newsgroups", subset="all", remove=()), base)
    assert len(cache_files(news)) == 1  # remove=() reads the default's entry
    # the default's key is what it was before remove= existed: no entry to rebuild for it
    assert sslviz.text._cache_key("20newsgroups", TextOptions(),
                                  {"subset": "all", "remove": ()})["loader"] == {"subset": "all"}
    headerless = load_counts("20newsgroups", subset="all", remove=("headers",))
    assert len(cache_files(news)) == 2
    assert "subject" in base.vocabulary and "subject" not in headerless.vocabulary
    assert_same_corpus(load_counts("20newsgroups", subset="all", remove=["headers"]), headerless)
    assert len(cache_files(news)) == 2  # one key per set of parts, however it is spelled


def test_a_changed_archive_is_not_served_from_a_stale_cache(news, tmp_path, monkeypatch):
    load_counts("20newsgroups", subset="all")
    changed = {**NEWS, "20news-bydate-test/sci.space/4": b"From: c\nSubject: x\n\nzeppelin"}
    register_fake(monkeypatch, "20newsgroups", make_news_archive(tmp_path / "data", changed))
    corpus = load_counts("20newsgroups", subset="all")
    assert "zeppelin" in corpus.vocabulary
    assert len(cache_files(news)) == 2


def test_use_cache_false_recomputes_and_repairs_the_entry(news):
    first = load_counts("20newsgroups", subset="all")
    (name,) = cache_files(news)
    (news / "counts" / name).write_bytes(b"not a zip file")
    corpus = load_counts("20newsgroups", subset="all", use_cache=False)
    assert_same_corpus(corpus, first)
    assert_same_corpus(load_counts("20newsgroups", subset="all"), first)  # read back, no warning


def test_a_damaged_entry_is_named_discarded_and_rebuilt(news):
    first = load_counts("20newsgroups", subset="all")
    (name,) = cache_files(news)
    path = news / "counts" / name
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])  # truncated
    with pytest.warns(CacheWarning, match=f"discarding damaged cache entry .*{name}"):
        second = load_counts("20newsgroups", subset="all")
    assert_same_corpus(second, first)
    assert cache_files(news) == [name]


def test_an_unwritable_cache_still_returns_the_corpus(news, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("the cache folder cannot live here")
    monkeypatch.setenv("SSLVIZ_CACHE", str(blocker))
    with pytest.warns(CacheWarning, match="could not write the cache entry"):
        corpus = load_counts("20newsgroups", subset="all")
    assert corpus.X.shape[0] == 5


def test_load_counts_unknown_corpus():
    with pytest.raises(ValueError, match=r"^unknown corpus 'imdb'; choose one of "
                       r"\['20newsgroups', 'reuters21578', 'webkb'\]$"):
        load_counts("imdb")


# -- posts without what names their author (lecture 01's header intervention) -----------------
def test_strip_post_removes_header_attribution_and_signature():
    from sslviz.text import strip_post

    post = ("From: callison@uokmax.ecn.uoknor.edu (james p. callison)\nSubject: brakes\n\n"
            "In article <1@x.edu>, ann@x.edu writes:\n> old text\nNew brakes squeal.\n"
            "Bob wrote:\nfine\n-- \nJames P. Callison, uokmax.ecn.uoknor.edu")
    assert strip_post(post) == "> old text\nNew brakes squeal.\nfine"
    assert strip_post("no header at all\nbody") == "no header at all\nbody"  # no blank line
    with pytest.raises(ValueError, match="a post must be a string, got bytes"):
        strip_post(b"From: a\n\nbody")


def test_without_dotted_words_keeps_the_other_columns_in_order():
    from sslviz.text import without_dotted_words

    X = sp.csr_matrix(np.array([[1, 2, 3, 4], [5, 6, 7, 8]]))
    kept, vocabulary = without_dotted_words(X, np.array(["car", "uokmax.ecn.edu", "d.d", "orbit"]))
    np.testing.assert_array_equal(kept.toarray(), [[1, 4], [5, 8]])
    assert vocabulary.tolist() == ["car", "orbit"]


def test_headerless_newsgroups_counts_bodies_in_load_counts_order(tmp_path, monkeypatch):
    from sslviz.experiments.what_is_ssl import headerless_newsgroups

    posts = {
        "20news-bydate-train/rec.autos/1": b"From: callison@uokmax.edu\n\ncar brakes\n--\nJim",
        "20news-bydate-train/sci.space/2": b"From: ann@x.edu\nSubject: orbit\n\norbit moon",
        "20news-bydate-test/rec.autos/3": (b"From: b@y.edu\n\n"
                                           b"In article <2@y.edu> b@y.edu writes:\ncar"),
    }
    path = make_tar_gz(tmp_path / "20news-bydate.tar.gz", posts,
                       dirs=["20news-bydate-train/", "20news-bydate-test/"])
    register_fake(monkeypatch, "20newsgroups", path)
    options = TextOptions()
    bare = headerless_newsgroups(["rec.autos", "sci.space"], options)
    whole = sslviz.text.load_counts("20newsgroups", options, use_cache=False,
                                    categories=["rec.autos", "sci.space"])
    np.testing.assert_array_equal(bare.filenames, whole.filenames)
    np.testing.assert_array_equal(bare.y, whole.y)
    assert sorted(bare.vocabulary) == ["brakes", "car", "moon", "orbit"]
    counts = dict(zip(bare.vocabulary, np.asarray(bare.X.sum(axis=0)).ravel(), strict=True))
    assert counts == {"brakes": 1, "car": 2, "moon": 1, "orbit": 1}
    assert {"callison", "from", "subject", "jim", "writes"} <= set(whole.vocabulary)
