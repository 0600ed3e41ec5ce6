"""Loaders of sslviz.datasets on tiny fake archives built in ``tmp_path``.

Each fake archive has the member layout of the real one; the registry entry is swapped for one
whose accepted sha256 is the fake's, so the loaders go through the same locate-and-verify path.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
from fake_data import make_tar_gz, register_fake
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from sslviz.datasets import (
    ChecksumMismatchError,
    DatasetMissingError,
    load_20newsgroups,
    load_reuters,
    load_stoplist,
    load_webkb,
)
from sslviz.datasets.loaders import (
    check_remove,
    html_to_text,
    strip_http_header,
    strip_newsgroup_footer,
    strip_newsgroup_header,
    strip_newsgroup_quoting,
)

# --------------------------------------------------------------------------- 20 Newsgroups

NEWS = {
    "20news-bydate-test/sci.space/60001": b"From: c\nSubject: orbit\n\ntest space",
    "20news-bydate-train/sci.space/59848": b"From: a\nSubject: moon\n\ntrain space 2",
    "20news-bydate-train/alt.atheism/51060": b"From: b\nSubject: god\n\ntrain atheism 2",
    "20news-bydate-train/alt.atheism/49960": b"From: b\nSubject: caf\xe9\n\ntrain atheism 1",
    "20news-bydate-train/sci.space/100": b"From: a\nSubject: mars\n\ntrain space 1",
    "20news-bydate-test/rec.autos/103": b"From: d\nSubject: car\n\ntest autos",
    "20news-bydate-train/rec.autos/102": b"From: d\nSubject: car\n\ntrain autos",
    "20news-bydate-test/alt.atheism/53068": b"From: e\nSubject: faith\n\ntest atheism",
}
NEWS_TRAIN_ORDER = [
    "20news-bydate-train/alt.atheism/49960",
    "20news-bydate-train/alt.atheism/51060",
    "20news-bydate-train/rec.autos/102",
    "20news-bydate-train/sci.space/100",  # string order, as load_files and sorted() give
    "20news-bydate-train/sci.space/59848",
]
NEWS_TEST_ORDER = [
    "20news-bydate-test/alt.atheism/53068",
    "20news-bydate-test/rec.autos/103",
    "20news-bydate-test/sci.space/60001",
]


@pytest.fixture
def news_archive(tmp_path, monkeypatch) -> Path:
    dirs = ["20news-bydate-train/", "20news-bydate-test/", "20news-bydate-train/sci.space/"]
    path = make_tar_gz(tmp_path / "20news-bydate.tar.gz", NEWS, dirs=dirs)
    return register_fake(monkeypatch, "20newsgroups", path)


def test_20news_train_order_targets_and_texts(news_archive):
    news = load_20newsgroups(subset="train")
    assert news.filenames == NEWS_TRAIN_ORDER
    assert news.target_names == ["alt.atheism", "rec.autos", "sci.space"]
    assert news.target.dtype == np.int64
    assert news.target.tolist() == [0, 0, 1, 2, 2]
    assert news.data[0] == "From: b\nSubject: café\n\ntrain atheism 1"  # latin-1
    assert [NEWS[name].decode("latin-1") for name in NEWS_TRAIN_ORDER] == news.data


def test_20news_all_is_train_then_test(news_archive):
    news = load_20newsgroups()
    assert news.filenames == NEWS_TRAIN_ORDER + NEWS_TEST_ORDER
    assert news.target.tolist() == [0, 0, 1, 2, 2, 0, 1, 2]
    test = load_20newsgroups(subset="test")
    assert test.filenames == NEWS_TEST_ORDER
    assert test.data[2] == "From: c\nSubject: orbit\n\ntest space"


def test_20news_bunch_metadata(news_archive):
    news = load_20newsgroups(subset="test")
    assert news.source == news_archive
    assert news.sha256 == hashlib.sha256(news_archive.read_bytes()).hexdigest()
    assert news.DESCR.startswith("FAKE 20newsgroups corpus") and "3 documents" in news.DESCR


def test_20news_categories(news_archive):
    news = load_20newsgroups(subset="all", categories=["sci.space", "alt.atheism"])
    assert news.target_names == ["alt.atheism", "sci.space"]
    assert len(news.data) == 6 and news.target.tolist() == [0, 0, 1, 1, 0, 1]
    assert "rec.autos" not in "".join(news.filenames)


def test_20news_bad_arguments_name_the_valid_values(news_archive):
    with pytest.raises(ValueError, match=r"'sci.spice'.*alt.atheism.*sci.space"):
        load_20newsgroups(categories=["sci.space", "sci.spice"])
    with pytest.raises(ValueError, match=r"'validation'.*'all', 'train', 'test'"):
        load_20newsgroups(subset="validation")


# posts made by hand to exercise scikit-learn's three rules of ``remove=``
REPLY = ("From: ann@x.edu\nSubject: Re: cars\nLines: 9\n\n"
         "In article <1@y.com> bob@y.com writes:\n> the old car\n>> an older quote\n"
         "| a piped quote\nI agree, nice car.\nbob said: fine\n\n-- \nAnn Smith\nann@x.edu\n")
DASHES = "Subject: orbit\n\nthe moon\nQuoted from Carl:\nstars\n----------\nsig line\n  \n"
NO_BLANK = "Subject: one line only\nbody says: hi"
TOP_CUT = "-----\nonly a body after a rule\nmore"
POSTS = [REPLY, DASHES, NO_BLANK, TOP_CUT, "", "\n\n", "a\n\nb\n\nc"]


def test_the_three_rules_on_a_hand_made_post():
    assert strip_newsgroup_header(REPLY).startswith("In article <1@y.com>")
    assert strip_newsgroup_header(NO_BLANK) == ""  # no blank line: all of it is header
    assert strip_newsgroup_footer(REPLY) == REPLY.split("\n-- \n")[0]  # cut at the last "-- "
    assert strip_newsgroup_footer(DASHES) == "Subject: orbit\n\nthe moon\nQuoted from Carl:\nstars"
    assert strip_newsgroup_footer(TOP_CUT) == TOP_CUT  # the only rule is the first line
    assert strip_newsgroup_quoting(REPLY) == ("From: ann@x.edu\nSubject: Re: cars\nLines: 9\n\n"
                                              "I agree, nice car.\n\n-- \nAnn Smith\n"
                                              "ann@x.edu\n")


@pytest.mark.parametrize("post", POSTS)
def test_the_three_rules_equal_scikit_learns(post):
    # scikit-learn's helpers are not public API: the oracle of this test only
    oracle = pytest.importorskip("sklearn.datasets._twenty_newsgroups")
    assert strip_newsgroup_header(post) == oracle.strip_newsgroup_header(post)
    assert strip_newsgroup_footer(post) == oracle.strip_newsgroup_footer(post)
    assert strip_newsgroup_quoting(post) == oracle.strip_newsgroup_quoting(post)


def test_20news_remove_strips_as_scikit_learn_in_its_order(tmp_path, monkeypatch):
    oracle = pytest.importorskip("sklearn.datasets._twenty_newsgroups")
    members = {"20news-bydate-train/rec.autos/1": REPLY.encode(),
               "20news-bydate-train/sci.space/2": DASHES.encode()}
    register_fake(monkeypatch, "20newsgroups",
                  make_tar_gz(tmp_path / "20news-bydate.tar.gz", members))
    everything = load_20newsgroups(subset="train", remove=("quotes", "footers", "headers"))
    expected = [oracle.strip_newsgroup_quoting(oracle.strip_newsgroup_footer(
        oracle.strip_newsgroup_header(text))) for text in (REPLY, DASHES)]
    assert everything.data == expected
    assert everything.data[0] == "I agree, nice car.\n"  # the blank line above the "-- "
    assert "removed headers, footers, quotes" in everything.DESCR
    headers = load_20newsgroups(subset="train", remove="headers")  # one name alone
    assert headers.data == [oracle.strip_newsgroup_header(text) for text in (REPLY, DASHES)]
    whole = load_20newsgroups(subset="train")
    assert whole.data == [REPLY, DASHES] == load_20newsgroups(subset="train", remove=()).data
    assert "removed" not in whole.DESCR


def test_check_remove_orders_and_refuses_by_name():
    assert check_remove(()) == () and check_remove([]) == ()
    assert check_remove(["quotes", "headers", "quotes"]) == ("headers", "quotes")
    assert check_remove("footers") == ("footers",)
    with pytest.raises(ValueError, match=r"^unknown part\(s\) to remove \['header'\]; valid "
                                         r"parts: \['headers', 'footers', 'quotes'\] "
                                         r"\(scikit-learn's names\)$"):
        check_remove(("header",))
    with pytest.raises(ValueError, match=r"^remove must be a tuple of parts to strip from the "
                                         r"posts, any of \('headers', 'footers', 'quotes'\) "
                                         r"\(e\.g\. remove=\('headers',\); \(\) keeps the "
                                         r"posts whole\), got None$"):
        check_remove(None)


def test_20news_refuses_a_bad_remove_before_reading(news_archive, monkeypatch):
    import sslviz.datasets.loaders as loaders

    monkeypatch.setattr(loaders, "locate", lambda *a, **k: pytest.fail("read the archive"))
    with pytest.raises(ValueError, match=r"unknown part\(s\) to remove \['signatures'\]"):
        load_20newsgroups(remove=("headers", "signatures"))


def test_loader_refuses_a_corrupt_archive(news_archive):
    news_archive.write_bytes(news_archive.read_bytes()[:-10])
    with pytest.raises(ChecksumMismatchError, match=str(news_archive)):
        load_20newsgroups()


def test_loader_on_missing_archive_explains(monkeypatch, tmp_path):
    path = tmp_path / "20news-bydate.tar.gz"
    make_tar_gz(path, NEWS)
    register_fake(monkeypatch, "20newsgroups", path)
    path.unlink()
    with pytest.raises(DatasetMissingError, match="python -m sslviz.datasets fetch 20newsgroups"):
        load_20newsgroups()


# --------------------------------------------------------------------------- WebKB

PAGE_CRLF = (
    b"MIME-Version: 1.0\r\nServer: CERN/3.0\r\nContent-Type: text/html\r\n\r\n"
    b"<html><head><title>CS 414 &amp; 415</title>\n"
    b"<style>h1 {color: red}</style><script>var x = '<b>no</b>';</script></head>\n"
    b"<body><!-- a comment\nover lines --><h1>Operating   Systems</h1>"
    b"<p>Lecture <b>notes</b> &lt;here&gt;, r&eacute;sum&eacute;&nbsp;page.</p>\n\n\n"
    b"<ul><li>One<li>Two</ul></body></html>\r\n"
)
TEXT_CRLF = "CS 414 & 415\nOperating Systems\nLecture notes <here>, résumé page.\nOne\nTwo"
PAGE_LF = b"Date: Sun, 24 Nov 1996\nContent-type: text/html\n\n<P>Faculty   page<BR>Room 5</P>"
PAGE_NO_HEADER = b"<HEAD><TITLE>Project</TITLE></HEAD>\n\n<BODY>ftp page</BODY>"
PAGE_ALERT = (
    b"WWW Alert:  Redirection response\nDate: Fri, 04 Apr 1997\r\nLocation: x\r\n\r\n"
    b"<HTML>moved</HTML>"
)
WEBKB = {
    "webkb/student/texas/http:^^www.cs.utexas.edu^users^b": PAGE_ALERT,
    "webkb/course/cornell/http:^^cs.cornell.edu^CS414.html": PAGE_CRLF,
    "webkb/faculty/wisconsin/http:^^www.cs.wisc.edu^~a^": PAGE_LF,
    "webkb/project/misc/ftp:^^ftp.example.edu^p.html": PAGE_NO_HEADER,
    "webkb/other/cornell/http:^^cs.cornell.edu^other.html": PAGE_LF,
    "webkb/student/cornell/http:^^cs.cornell.edu^~s^": PAGE_LF,
}


@pytest.fixture
def webkb_archive(tmp_path, monkeypatch) -> Path:
    path = make_tar_gz(tmp_path / "webkb-data.gtar.gz", WEBKB, dirs=["webkb/", "webkb/other/"])
    return register_fake(monkeypatch, "webkb", path)


def test_strip_http_header_crlf_lf_and_none():
    assert strip_http_header(PAGE_CRLF.decode()).startswith("<html><head><title>")
    assert strip_http_header(PAGE_LF.decode()) == "<P>Faculty   page<BR>Room 5</P>"
    assert strip_http_header(PAGE_NO_HEADER.decode()) == PAGE_NO_HEADER.decode()
    assert strip_http_header(PAGE_ALERT.decode()) == "<HTML>moved</HTML>"
    assert strip_http_header("Date: today\nServer: x\n") == ""


def test_html_to_text_is_exact():
    assert html_to_text(strip_http_header(PAGE_CRLF.decode("latin-1"))) == TEXT_CRLF
    assert html_to_text("<b>W</b>elcome to <a href='x'>my</a><br>page") == "Welcome to my\npage"
    assert html_to_text("a<script>b</script>c<!-- d -->e") == "ace"
    assert html_to_text("unclosed <script>never shown") == "unclosed"
    assert html_to_text("a<!-- <dd> <IMG src=x>b\n<!-- c</a>\nd") == "a b\nd"  # never closed
    assert html_to_text("a<!-- x --> b <!-- y\n -- > z -->c") == "a b c"


def test_webkb_default_classes(webkb_archive):
    webkb = load_webkb()
    assert webkb.target_names == ["course", "faculty", "project", "student"]
    assert webkb.filenames == [
        "webkb/course/cornell/http:^^cs.cornell.edu^CS414.html",
        "webkb/faculty/wisconsin/http:^^www.cs.wisc.edu^~a^",
        "webkb/project/misc/ftp:^^ftp.example.edu^p.html",
        "webkb/student/cornell/http:^^cs.cornell.edu^~s^",
        "webkb/student/texas/http:^^www.cs.utexas.edu^users^b",
    ]
    assert webkb.target.tolist() == [0, 1, 2, 3, 3]
    assert webkb.groups.tolist() == ["cornell", "wisconsin", "misc", "cornell", "texas"]
    assert webkb.data == [TEXT_CRLF, "Faculty page\nRoom 5", "Project\nftp page",
                          "Faculty page\nRoom 5", "moved"]


def test_webkb_classes_and_errors(webkb_archive):
    webkb = load_webkb(classes=("other", "faculty"))
    assert webkb.target_names == ["faculty", "other"] and webkb.target.tolist() == [0, 1]
    with pytest.raises(ValueError, match=r"'lecturer'.*course.*other.*student"):
        load_webkb(classes=["course", "lecturer"])


# --------------------------------------------------------------------------- Reuters-21578


def _story(newid, split, topics, body, yes="YES", extra=""):
    d = "".join(f"<D>{topic}</D>" for topic in topics)
    return (
        f'<REUTERS TOPICS="{yes}" LEWISSPLIT="{split}" CGISPLIT="TRAINING-SET" OLDID="1" '
        f'NEWID="{newid}">\n<DATE>26-FEB-1987</DATE>\n<TOPICS>{d}</TOPICS>\n<PLACES></PLACES>\n'
        f"{body}\n</REUTERS>\n"
    )


SGM_000 = (
    '<!DOCTYPE lewis SYSTEM "lewis.dtd">\n'
    + _story(1, "TRAIN", ["earn"],
             "<TEXT>&#2;\n<TITLE>PROFIT UP &lt;ABC&gt;</TITLE>\n<DATELINE>NY</DATELINE>"
             "<BODY>Profit rose &amp; rose.\n Reuter\n&#3;</BODY></TEXT>")
    + _story(2, "TRAIN", ["earn", "acq"], "<TEXT><TITLE>TWO TOPICS</TITLE></TEXT>")
    + _story(3, "TEST", ["acq"], "<TEXT><TITLE>BUYS CO</TITLE><BODY>It bought.</BODY></TEXT>")
    + _story(4, "TRAIN", ["cocoa"], "<TEXT><TITLE>COCOA</TITLE><BODY>Beans.</BODY></TEXT>")
    + _story(5, "TRAIN", ["earn"], "<TEXT><TITLE>NO TOPICS FLAG</TITLE></TEXT>", yes="NO")
    + _story(6, "NOT-USED", ["earn"], "<TEXT><TITLE>NOT USED</TITLE></TEXT>")
    + _story(7, "TRAIN", [], "<TEXT><TITLE>NO TOPIC</TITLE></TEXT>")
)
SGM_001 = _story(
    8, "TRAIN", ["trade"], '<TEXT TYPE="BRIEF">&#2;\n<TITLE>TRADE BRIEF</TITLE>\n&#3;</TEXT>'
) + _story(9, "TEST", ["ship"], '<TEXT TYPE="UNPROC">&#2;\nSHIPS &amp; PORTS\n&#3;</TEXT>')
R8 = ["acq", "crude", "earn", "grain", "interest", "money-fx", "ship", "trade"]
REUTERS = {
    "README.txt": b"not a story",
    "all-topics-strings.lc.txt": "\n".join(["cocoa", *R8]).encode(),
    "reut2-001.sgm": SGM_001.encode("latin-1"),
    "reut2-000.sgm": SGM_000.encode("latin-1"),
}


@pytest.fixture
def reuters_archive(tmp_path, monkeypatch) -> Path:
    path = make_tar_gz(tmp_path / "reuters21578.tar.gz", REUTERS)
    return register_fake(monkeypatch, "reuters21578", path)


def test_reuters_modapte_single_label(reuters_archive):
    train = load_reuters(subset="train")
    assert train.filenames == ["reut2-000.sgm#1", "reut2-001.sgm#8"]
    assert train.data == ["PROFIT UP <ABC>\nProfit rose & rose.\n Reuter", "TRADE BRIEF"]
    assert train.target_names == R8
    assert train.target.tolist() == [2, 7]
    test = load_reuters(subset="test")
    assert test.filenames == ["reut2-000.sgm#3", "reut2-001.sgm#9"]
    assert test.data == ["BUYS CO\nIt bought.", "SHIPS & PORTS"]
    assert test.target.tolist() == [0, 6]
    everything = load_reuters()
    assert everything.filenames == train.filenames + test.filenames


def test_reuters_other_classes_and_errors(reuters_archive):
    cocoa = load_reuters(classes=["cocoa"])
    assert cocoa.data == ["COCOA\nBeans."] and cocoa.target_names == ["cocoa"]
    with pytest.raises(ValueError, match=r"'money'.*acq.*money-fx"):
        load_reuters(classes=("acq", "money"))
    with pytest.raises(ValueError, match="'modapte'"):
        load_reuters(subset="modapte")


# --------------------------------------------------------------------------- stop lists


def test_smart_stoplist(tmp_path, monkeypatch):
    path = tmp_path / "SmartStoplist.txt"
    path.write_text("#stop word list from SMART\na\na's\nable\nwould\nwould\nzero\n")
    register_fake(monkeypatch, "smart_stoplist", path)
    assert load_stoplist() == frozenset({"a", "a's", "able", "would", "zero"})
    assert load_stoplist("smart") == load_stoplist(name="smart")


def test_sklearn_stoplist_and_unknown_name():
    assert load_stoplist("sklearn") == frozenset(ENGLISH_STOP_WORDS)
    with pytest.raises(ValueError, match=r"'nltk'.*'smart', 'sklearn'"):
        load_stoplist("nltk")
