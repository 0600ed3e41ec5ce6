"""The two views of WebKB pages, rebuilt from links in a small archive built here."""

from __future__ import annotations

import pytest
from fake_data import make_tar_gz, register_fake

from sslviz.datasets.webkb_links import anchors, load_webkb_link_views, normal_url, page_url

HEADER = b"Date: x\nContent-type: text/html\n\n"
PAGES = {
    # a course page of Cornell; linked to from a student page (relative) and a department page
    "webkb/course/cornell/http:^^cs.cornell.edu^Info^CS414.html":
        HEADER + b"<html><title>CS 414</title>Operating systems <a href='CS414.html#top'>me</a>",
    "webkb/student/cornell/http:^^cs.cornell.edu^~s^":
        HEADER + b"<a href='../Info/CS414.html'>my OS course</a> <a href=x.html></a>",
    "webkb/department/cornell/http:^^cs.cornell.edu^":
        HEADER + b"<A HREF=\"http://CS.cornell.edu:80/Info/CS414.html\">Operating "
                 b"<b>Systems</b></A><a href='/%7Es/index.html'>a student</a>",
    # "other" pages are link sources but not in the page set; misc is another university folder
    "webkb/other/cornell/http:^^cs.cornell.edu^o.html":
        HEADER + b"<a href='http://cs.cornell.edu/Info/CS414.html'>414</a>",
    "webkb/faculty/misc/http:^^www.example.edu^f.html": HEADER + b"a faculty page",
}


@pytest.fixture
def archive(tmp_path, monkeypatch):
    path = make_tar_gz(tmp_path / "webkb-data.gtar.gz", PAGES, dirs=["webkb/"])
    return register_fake(monkeypatch, "webkb", path)


def test_urls_are_matched_in_a_normal_form():
    assert page_url("webkb/student/cornell/http:^^cs.cornell.edu^~s^") == \
        "http://cs.cornell.edu/~s/"
    assert normal_url("http://CS.cornell.edu:80/~s/index.html#x") == "cs.cornell.edu/~s"
    assert normal_url("http://cs.cornell.edu/%7Es/") == "cs.cornell.edu/~s"


def test_anchor_text_of_a_page(archive):
    assert anchors("<a href=a.html>one <i>two</i></a> <a href='b'>three") == [
        ("a.html", "one two"), ("b", "three")]


def test_each_page_gets_the_anchor_text_of_links_from_other_pages(archive):
    views = load_webkb_link_views()
    assert views.urls == ["http://cs.cornell.edu/Info/CS414.html", "http://cs.cornell.edu/",
                          "http://cs.cornell.edu/~s/"]
    assert views.classes.tolist() == ["course", "department", "student"]
    assert views.target.tolist() == [1, 0, 0]
    course_links = views.link_text[0].split(" ")
    assert set(course_links) == {"my", "OS", "course", "Operating", "Systems", "414"}
    assert views.n_inlinks.tolist() == [3, 0, 1]  # its own "#top" link does not count
    assert views.link_text[2] == "a student" and views.link_text[1] == ""
    assert views.page_text[0] == "CS 414\nOperating systems me"


def test_the_vectorized_views_keep_linked_pages_and_are_cached(archive, result_cache):
    from sslviz.text import TextOptions, load_link_views, vectorize

    options = TextOptions(stop_words="sklearn", min_df=1)
    views = load_link_views(options, options)
    raw = load_webkb_link_views()
    linked = [i for i, n in enumerate(raw.n_inlinks) if n > 0]  # the department page has none
    for view, texts in (("page", raw.page_text), ("link", raw.link_text)):
        X, vocabulary = vectorize([texts[i] for i in linked], options)
        assert (views[view] != X).nnz == 0 and views[view].shape == (2, len(vocabulary))
        assert views[f"{view}_vocabulary"].tolist() == list(vocabulary)
    assert views["target"].tolist() == [1, 0]
    assert any(result_cache.glob("counts/*"))  # stored with the vectorized corpora
    again = load_link_views(options, options)
    assert (again["link"] != views["link"]).nnz == 0
