"""load_senseval on small zip archives built here, and on the real senseval.zip (counts of the
data manifest).

The fake archive has the member layout and the markup of NLTK's file (``<wf>`` words, ``<head>``,
``<compound>``, ``<s/>`` markers, bare words such as ``FRASL`` between the tagged words); the
registry entry is swapped for one that accepts exactly the fake, so the loader goes through the
same locate-and-verify path as with the real file.
"""

from __future__ import annotations

import collections
import hashlib
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fake_data import register_fake

from sslviz.datasets import (
    DatasetMissingError,
    SensevalCorpus,
    load_senseval,
    status,
)

LINE = """<corpus lang="en">
<lexelt item="line-n">
<instance id="line-n.w7_010:888:">
<answer instance="line-n.w7_010:888:" senseid="cord"/>
<context>
 <wf pos="DT">the</wf> <wf pos="NN">worker</wf> <wf pos="VBD">tied</wf> <wf pos="DT">the</wf>
 <head> <wf pos="NN">line</wf></head> <wf pos=".">.</wf>
</context>
</instance>
<instance id="line-n.art7} aphb 02200986:">
<answer instance="line-n.art7} aphb 02200986:" senseid="phone"/>
<context>
 <wf pos="DT">a</wf> <wf pos="JJ">3-1</wf> FRASL <wf pos="JJ">2-inch</wf> In New York
 <head> <wf pos="NNS">lines</wf></head> of dialogue
</context>
</instance>
<instance id="line-n.w8_001:5:">
<answer instance="line-n.w8_001:5:" senseid="product"/>
<answer instance="line-n.w8_001:5:" senseid="phone"/>
<context>
 <wf pos="NNP">ibm</wf> <wf pos="VBD">introduced</wf> <wf pos="DT">a</wf> <wf pos="JJ">new</wf>
 <head> <wf pos="NN">line</wf></head>
</context>
</instance>
</lexelt>
</corpus>
"""
HARD = """<corpus lang="en">
<lexelt item="hard-a">
<instance id="hard-a.sjm-274_1:">
<answer instance="hard-a.sjm-274_1:" senseid="HARD1"/>
<context>
<s snum="29"/> <wf pos="PRP">it</wf> <wf pos="VBZ">is</wf> <head> <wf pos="JJ">hard</wf></head>
 <compound> <wf pos="JJ">to-find</wf> </compound> <wf pos=".">.</wf>
</context>
</instance>
</lexelt>
</corpus>
"""
BROKEN = {
    "no answer": """<corpus><lexelt item="serve-v"><instance id="serve-v.1"><context>
<wf pos="VB">serve</wf></context></instance></lexelt></corpus>""",
    "two heads": """<corpus><lexelt item="serve-v"><instance id="serve-v.2">
<answer instance="serve-v.2" senseid="SERVE2"/><context><head><wf pos="VB">serve</wf></head>
<head><wf pos="VB">served</wf></head></context></instance></lexelt></corpus>""",
}


def _make_zip(path: Path, members: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("senseval/", "")
        archive.writestr("senseval/README", "SENSEVAL 2 CORPUS (fake)")
        for name, text in members.items():
            archive.writestr(f"senseval/{name}", text)
    return path


@pytest.fixture
def fake_zip(tmp_path, monkeypatch) -> Path:
    path = _make_zip(tmp_path / "senseval.zip",
                     {"line.pos": LINE, "hard.pos": HARD, "serve.pos": BROKEN["no answer"],
                      "interest.pos": BROKEN["two heads"]})
    return register_fake(monkeypatch, "senseval", path)


def test_tokens_heads_senses_and_ids(fake_zip):
    line = load_senseval("line")
    assert isinstance(line, SensevalCorpus) and len(line) == 3
    assert line.word == "line"
    assert line.tokens == [
        ["the", "worker", "tied", "the", "line", "."],
        ["a", "3-1", "/", "2-inch", "in", "new", "york", "lines", "of", "dialogue"],
        ["ibm", "introduced", "a", "new", "line"],
    ]
    assert line.pos[1] == ["DT", "JJ", "", "JJ", "", "", "", "NNS", "", ""]
    assert line.head.dtype == np.int64 and line.head.tolist() == [4, 7, 4]
    assert [t[h] for t, h in zip(line.tokens, line.head, strict=True)] == ["line", "lines", "line"]
    assert line.sense_names == ["cord", "phone", "product"]
    assert line.target.tolist() == [0, 1, 2]
    assert line.senses.tolist() == ["cord", "phone", "product"]
    assert line.answers == [("cord",), ("phone",), ("product", "phone")]  # the first one counts
    assert line.ids == ["line-n.w7_010:888:", "line-n.art7} aphb 02200986:", "line-n.w8_001:5:"]
    assert line.source == fake_zip
    assert line.sha256 == hashlib.sha256(fake_zip.read_bytes()).hexdigest()
    assert line.DESCR.startswith("FAKE senseval corpus") and "3 instances" in line.DESCR


def test_sentence_markers_are_skipped_and_compounds_read(fake_zip):
    hard = load_senseval("hard")
    assert hard.tokens == [["it", "is", "hard", "to-find", "."]]
    assert hard.pos == [["PRP", "VBZ", "JJ", "JJ", "."]]
    assert hard.head.tolist() == [2] and hard.sense_names == ["HARD1"]


def test_context_marks_the_head(fake_zip):
    line = load_senseval("line")
    assert line.context(0) == "the worker tied the [line] ."
    assert line.context(1, width=2) == "new york [lines] of dialogue"
    assert line.context(2, width=1) == "new [line]"


def test_senses_filter_keeps_file_order_and_reindexes(fake_zip):
    line = load_senseval("line", senses=["product", "cord"])
    assert line.sense_names == ["cord", "product"]
    assert line.ids == ["line-n.w7_010:888:", "line-n.w8_001:5:"]
    assert line.target.tolist() == [0, 1]
    assert load_senseval("line", senses="phone").ids == ["line-n.art7} aphb 02200986:"]


def test_unknown_word_or_sense_lists_the_valid_ones(fake_zip):
    with pytest.raises(ValueError, match=r"unknown Senseval word 'lines'; valid words: "
                                         r"\['hard', 'interest', 'line', 'serve'\]"):
        load_senseval("lines")
    with pytest.raises(ValueError, match=r"unknown senses \['telephone'\]; valid senses: "
                                         r"\['cord', 'phone', 'product'\]"):
        load_senseval("line", senses=["phone", "telephone"])


def test_malformed_instances_are_named(fake_zip):
    with pytest.raises(ValueError, match=r"instance 'serve-v.1' has no sense"):
        load_senseval("serve")
    with pytest.raises(ValueError, match=r"instance 'serve-v.2' marks 2 head words"):
        load_senseval("interest")


def test_missing_archive_says_what_to_run(tmp_path, monkeypatch):
    path = register_fake(monkeypatch, "senseval",
                         _make_zip(tmp_path / "senseval.zip", {"line.pos": LINE}))
    path.unlink()
    with pytest.raises(DatasetMissingError, match="python -m sslviz.datasets fetch senseval"):
        load_senseval("line")


# --------------------------------------------------------------------------- the real file

REAL_COUNTS = {  # from the data manifest (MANIFEST.md)
    "line": {"product": 2217, "phone": 429, "text": 404, "division": 374, "cord": 373,
             "formation": 349},
    "hard": {"HARD1": 3455, "HARD2": 502, "HARD3": 376},
    "serve": {"SERVE10": 1814, "SERVE12": 1272, "SERVE2": 853, "SERVE6": 439},
}
REAL_TOTALS = {"line": 4146, "hard": 4333, "serve": 4378, "interest": 2368}


@pytest.fixture(scope="module")
def real_folder(real_data_dir):
    [row] = status("senseval", data_dir=real_data_dir)
    if row.state not in ("present", "present (unverified)"):
        pytest.skip(f"{row.file} is {row.state} in {real_data_dir}")
    return real_data_dir


@pytest.mark.parametrize("word", ["line", "hard", "serve", "interest"])
def test_real_counts_match_the_manifest(real_folder, word):
    corpus = load_senseval(word, data_dir=real_folder)
    counts = collections.Counter(corpus.senses.tolist())
    assert len(corpus) == REAL_TOTALS[word]
    if word == "interest":
        assert len(counts) == 6
    else:
        assert counts == REAL_COUNTS[word]
    assert all(len(answers) == 1 for answers in corpus.answers)
    assert len(set(corpus.ids)) == len(corpus)
    # the head is the ambiguous word, in one of its forms
    stems = {"line": "line", "hard": "hard", "serve": "serv", "interest": "interest"}
    heads = {tokens[h] for tokens, h in zip(corpus.tokens, corpus.head, strict=True)}
    assert all(head.startswith(stems[word]) for head in heads), heads
    assert all(len(t) == len(p) for t, p in zip(corpus.tokens, corpus.pos, strict=True))
    assert all(token == token.lower() for tokens in corpus.tokens for token in tokens)
    assert not any("FRASL" in tokens or "frasl" in tokens for tokens in corpus.tokens)


def test_real_line_two_senses(real_folder):
    line = load_senseval("line", senses=["product", "phone"], data_dir=real_folder)
    assert line.sense_names == ["phone", "product"]
    assert np.bincount(line.target).tolist() == [429, 2217]
    assert line.context(0, width=3).count("[") == 1
