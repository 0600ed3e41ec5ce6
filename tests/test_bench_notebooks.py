"""``python -m sslviz.bench notebooks``: cold and warm runs against a private result cache."""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from sslviz.bench import main
from sslviz.bench_notebooks import (
    NotebookTimes,
    bench_notebooks,
    format_notebook_table,
    private_cache,
)


@pytest.fixture
def user_cache(tmp_path, monkeypatch):
    folder = tmp_path / "user-cache"
    (folder / "counts").mkdir(parents=True)
    (folder / "counts" / "corpus.npz").write_bytes(b"vectorized")
    (folder / "curves").mkdir()  # a result: must not be visible to a cold run
    monkeypatch.setenv("SSLVIZ_CACHE", str(folder))
    return folder


def cache_probe(tmp_path):
    """A notebook that records what its result cache holds, then stores one result."""
    log = tmp_path / "seen.jsonl"
    path = tmp_path / "probe.ipynb"
    nbformat.write(new_notebook(cells=[
        new_markdown_cell("# probe"),
        new_code_cell("import json, os\nimport numpy as np\nfrom sslviz.cache import ResultCache"),
        new_code_cell(f"with open({str(log)!r}, 'a') as f:\n"
                      "    f.write(json.dumps(sorted(os.listdir(os.environ['SSLVIZ_CACHE']))) "
                      "+ '\\n')"),
        new_code_cell("ResultCache('demo', code='sslviz.em').get_or_compute({'k': 1}, "
                      "lambda: {'x': np.arange(3)})"),
    ]), path)
    return path, log


def test_cold_sees_only_the_corpora_and_warm_sees_what_cold_stored(user_cache, tmp_path):
    path, log = cache_probe(tmp_path)
    rows = bench_notebooks([path], progress=False)
    assert [(r.notebook, r.run) for r in rows] == [("probe", "cold"), ("probe", "warm")]
    assert [json.loads(line) for line in log.read_text().splitlines()] == [
        ["counts"], ["counts", "demo"]]
    assert sorted(p.name for p in user_cache.iterdir()) == ["counts", "curves"]  # untouched
    assert os.environ["SSLVIZ_CACHE"] == str(user_cache)  # restored
    assert all(1 <= r.slowest_cell <= 3 and r.seconds >= r.slowest_seconds for r in rows)


def test_cold_corpora_starts_from_nothing(user_cache, tmp_path):
    with private_cache(link_corpora=False) as folder:
        assert os.environ["SSLVIZ_CACHE"] == str(folder) and list(folder.iterdir()) == []
    assert not folder.exists()
    with private_cache() as folder:
        assert (folder / "counts" / "corpus.npz").read_bytes() == b"vectorized"
        assert sorted(p.name for p in folder.iterdir()) == ["counts"]


def test_table_holds_each_run_to_its_target():
    rows = [NotebookTimes("01_a", "cold", 60.0, 3, 40.0, "curve = learning_curve(...)"),
            NotebookTimes("01_a", "warm", 15.04, 1, 9.0, "import numpy"),
            NotebookTimes("02_b", "cold", 60.06, 2, 50.0, "grid()"),
            NotebookTimes("02_b", "warm", 15.2, 2, 12.0, "grid()")]
    lines = format_notebook_table(rows).splitlines()
    assert lines[2].split()[:5] == ["01_a", "60.0", "yes", "15.0", "yes"]
    assert lines[2].endswith("#3 (40.0): curve = learning_curve(...)")
    assert lines[3].split()[:5] == ["02_b", "60.1", "NO", "15.2", "NO"]
    assert lines[-1].startswith("cold = empty result cache, vectorized corpora warm")


def test_a_failing_notebook_is_one_line_and_exit_1(user_cache, tmp_path, capsys):
    path = tmp_path / "broken.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell("x = 1"), new_code_cell("1 / 0")]), path)
    assert main(["notebooks", str(path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]  # after the progress bar
    assert err == "error: broken.ipynb: code cell 2 failed (ZeroDivisionError: division by zero)"


def test_the_command_writes_json(user_cache, tmp_path, capsys):
    path, _ = cache_probe(tmp_path)
    out = tmp_path / "times.json"
    assert main(["notebooks", str(path), "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert [(r["notebook"], r["run"]) for r in rows] == [("probe", "cold"), ("probe", "warm")]
    assert "probe" in capsys.readouterr().out
    assert Path(out).exists()


def test_cold_runs_read_the_store_and_count_what_it_lacks(user_cache, tmp_path, monkeypatch):
    from sslviz.cache import ResultCache
    from sslviz.lectures import STORED_KINDS

    path, _ = cache_probe(tmp_path)
    monkeypatch.setitem(STORED_KINDS, "probe", ("demo",))
    store = tmp_path / "store"
    monkeypatch.setenv("SSLVIZ_STORE", str(store))
    cold = bench_notebooks([path], progress=False)[0]
    assert cold.stored_missing == 1  # the store is empty: the cold run computed the result
    assert "stored results missing (computed by the cold run" in format_notebook_table([cold])
    ResultCache("demo", store, code="sslviz.em", store="").save({"k": 1}, {"x": np.arange(3)})
    assert bench_notebooks([path], progress=False)[0].stored_missing == 0
    assert bench_notebooks([path], progress=False, use_store=False)[0].stored_missing == 0
    assert os.environ["SSLVIZ_STORE"] == str(store)  # restored after --without-store
