"""sslviz.experiments.results_file: the three rules by which a summary replaces a results file."""

from __future__ import annotations

import json

import pytest

from sslviz.cli import UsageError
from sslviz.experiments import results_file


def _merge(summary, previous):
    return {**summary, "records": sorted(set(summary["records"]) | set(previous["records"]))}


def _count(content):
    return len(content["records"])


def _refusal(held, would_hold):
    return f"held {held}, would hold {would_hold}"


def _settle(summary, previous, path):
    return results_file.settle(summary, previous, path, merge=_merge, count=_count,
                               refusal=_refusal, what="the file")


def test_same_code_merges_what_the_file_holds(tmp_path):
    previous = {"code": {"digest": "a"}, "records": [1, 2]}
    summary = _settle({"code": {"digest": "a"}, "records": [2, 3]}, previous, tmp_path / "r.json")
    assert summary["records"] == [1, 2, 3]
    assert list(tmp_path.iterdir()) == []  # nothing kept beside, nothing written


def test_other_code_with_fewer_records_is_refused(tmp_path):
    previous = {"code": {"digest": "old"}, "records": [1, 2]}
    with pytest.raises(UsageError, match=r"^held 2, would hold 1$"):
        _settle({"code": {"digest": "new"}, "records": [3]}, previous, tmp_path / "r.json")
    assert list(tmp_path.iterdir()) == []


def test_other_code_replaced_is_kept_beside_under_its_digest(tmp_path, capsys):
    previous = {"code": {"digest": "old"}, "records": [1]}
    summary = {"code": {"digest": "new"}, "records": [1, 2]}
    assert _settle(summary, previous, tmp_path / "r.json") == summary  # no merge across code
    kept = tmp_path / "r.old.json"
    assert json.loads(kept.read_text(encoding="utf-8")) == previous
    assert capsys.readouterr().out == "the file was computed by other code; kept as r.old.json\n"


def test_no_file_yet_and_json_round_trip(tmp_path):
    path = tmp_path / "r.json"
    assert results_file.read_json(path) is None
    summary = {"code": {"digest": "a"}, "records": [1]}
    assert _settle(summary, None, path) == summary
    results_file.write_json(path, summary)
    assert results_file.read_json(path) == summary
    assert path.read_text(encoding="utf-8").endswith("}\n")
    assert results_file.merged(summary, None, _merge) is summary
