"""The loaders on the real corpora, against the counts of the data manifest (MANIFEST.md).

Skipped unless ``SSLVIZ_DATA`` names a folder holding the files (``real_data_dir`` fixture of
``conftest.py``); a dataset whose file is absent there is skipped on its own. Each corpus is loaded
once per module; the whole file takes a few seconds.
"""

from __future__ import annotations

import collections
import time

import pytest

from sslviz.datasets import (
    load_20newsgroups,
    load_reuters,
    load_stoplist,
    load_webkb,
    locate,
    status,
)

pytestmark = pytest.mark.realdata

OK_STATES = ("present", "present (unverified)")

NEWS_COUNTS = {  # group: (train, test), from MANIFEST.md
    "alt.atheism": (480, 319), "comp.graphics": (584, 389), "comp.os.ms-windows.misc": (591, 394),
    "comp.sys.ibm.pc.hardware": (590, 392), "comp.sys.mac.hardware": (578, 385),
    "comp.windows.x": (593, 395), "misc.forsale": (585, 390), "rec.autos": (594, 396),
    "rec.motorcycles": (598, 398), "rec.sport.baseball": (597, 397),
    "rec.sport.hockey": (600, 399), "sci.crypt": (595, 396), "sci.electronics": (591, 393),
    "sci.med": (594, 396), "sci.space": (593, 394), "soc.religion.christian": (599, 398),
    "talk.politics.guns": (546, 364), "talk.politics.mideast": (564, 376),
    "talk.politics.misc": (465, 310), "talk.religion.misc": (377, 251),
}
R8_TRAIN = {"earn": 2840, "acq": 1596, "crude": 253, "trade": 251, "money-fx": 206,
            "interest": 190, "ship": 108, "grain": 41}
R8_TEST = {"earn": 1083, "acq": 696, "crude": 121, "money-fx": 87, "interest": 81, "trade": 75,
           "ship": 36, "grain": 10}
KNOWN_POST = "20news-bydate-train/sci.space/59848"
KNOWN_POST_START = (
    "From: leech@cs.unc.edu (Jon Leech)\n"
    "Subject: Space FAQ 12/15 - Controversial Questions\n"
    "Keywords: Frequently Asked Questions\n"
)


def _require(real_data_dir, name):
    [row] = status(name, data_dir=real_data_dir)
    if row.state not in OK_STATES:
        pytest.skip(f"{row.file} is {row.state} in {real_data_dir}")
    return real_data_dir


def _counts(bunch):
    return dict(collections.Counter(bunch.target_names[i] for i in bunch.target))


def _timed(load, **kwargs):
    start = time.perf_counter()
    bunch = load(**kwargs)
    return bunch, time.perf_counter() - start


@pytest.fixture(scope="module")
def news(real_data_dir):
    folder = _require(real_data_dir, "20newsgroups")
    locate("20newsgroups", data_dir=folder)  # hash outside the timing
    bunch, seconds = _timed(load_20newsgroups, data_dir=folder)
    print(f"\nfull 20 Newsgroups load (18,846 posts): {seconds:.2f} s")
    bunch.seconds = seconds
    return bunch


@pytest.fixture(scope="module")
def webkb(real_data_dir):
    folder = _require(real_data_dir, "webkb")
    locate("webkb", data_dir=folder)
    bunch, seconds = _timed(load_webkb, data_dir=folder)
    print(f"\nWebKB load (4 classes): {seconds:.2f} s")
    return bunch


@pytest.fixture(scope="module")
def reuters(real_data_dir):
    folder = _require(real_data_dir, "reuters21578")
    locate("reuters21578", data_dir=folder)
    bunch, seconds = _timed(load_reuters, data_dir=folder)
    print(f"\nReuters R8 load (train + test): {seconds:.2f} s")
    return bunch


def test_no_registered_file_is_corrupt(real_data_dir):
    rows = status(data_dir=real_data_dir)
    assert [row for row in rows if row.state == "corrupt"] == []


def test_20news_counts_per_group_and_split(news):
    assert len(news.data) == 18846
    assert news.target_names == sorted(NEWS_COUNTS)
    split_of = [name.split("/")[0].rsplit("-", 1)[1] for name in news.filenames]
    assert split_of == ["train"] * 11314 + ["test"] * 7532
    for split, column in (("train", 0), ("test", 1)):
        labels = [label for label, s in zip(news.target, split_of, strict=True) if s == split]
        counts = collections.Counter(news.target_names[label] for label in labels)
        assert counts == {group: pair[column] for group, pair in NEWS_COUNTS.items()}


def test_20news_known_post_text(news):
    post = news.data[news.filenames.index(KNOWN_POST)]
    assert post.startswith(KNOWN_POST_START)
    assert news.target_names[news.target[news.filenames.index(KNOWN_POST)]] == "sci.space"


def test_20news_subset_test(real_data_dir):
    folder = _require(real_data_dir, "20newsgroups")
    test = load_20newsgroups(subset="test", categories=["sci.space", "rec.autos"], data_dir=folder)
    assert _counts(test) == {"rec.autos": 396, "sci.space": 394}


def test_webkb_counts(webkb):
    assert len(webkb.data) == 4199
    assert _counts(webkb) == {"course": 930, "faculty": 1124, "project": 504, "student": 1641}
    assert set(webkb.groups) == {"cornell", "misc", "texas", "washington", "wisconsin"}


def test_webkb_texts_have_no_header_or_markup(webkb):
    assert not any(text.startswith(("MIME-Version:", "Date:", "Server:")) for text in webkb.data)
    assert not any("<!--" in text for text in webkb.data)
    # Markup survives only where the page shows it escaped (&lt;/a&gt;), as in these two:
    pages = zip(webkb.filenames, webkb.data, strict=True)
    showing_markup = {name.split("/")[-1] for name, text in pages if "</a>" in text.lower()}
    assert showing_markup == {"http:^^www.cs.ucsb.edu^~urs^", "http:^^www.columbia.edu^~mig^"}
    assert sum(not text for text in webkb.data) < 10


def test_reuters_r8_counts(reuters):
    assert len(reuters.data) == 5485 + 2189
    assert len(set(reuters.filenames)) == len(reuters.filenames)  # no story twice
    counts_train = collections.Counter(reuters.target_names[i] for i in reuters.target[:5485])
    counts_test = collections.Counter(reuters.target_names[i] for i in reuters.target[5485:])
    assert counts_train == R8_TRAIN and counts_test == R8_TEST


def test_reuters_subsets_agree(real_data_dir, reuters):
    folder = _require(real_data_dir, "reuters21578")
    test = load_reuters(subset="test", data_dir=folder)
    assert test.filenames == reuters.filenames[5485:]
    assert test.data[0] == reuters.data[5485] and "&lt;" not in "".join(test.data)


def test_smart_stoplist(real_data_dir):
    folder = _require(real_data_dir, "smart_stoplist")
    lines = locate("smart_stoplist", data_dir=folder).read_text().splitlines()
    words = [line for line in lines if not line.startswith("#")]
    assert len(words) == 571  # the SMART list as published: 571 lines ...
    assert [w for w, n in collections.Counter(words).items() if n > 1] == ["would"]  # ... one twice
    stop = load_stoplist("smart", data_dir=folder)
    assert len(stop) == 570 and {"a", "a's", "able", "zero", "would"} <= stop
