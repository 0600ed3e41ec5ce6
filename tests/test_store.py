"""The results stored with the project (``sslviz/stored_results/cache``): read when the user's
cache has no entry, never trusted for another key, never removed when damaged; the ``store``
command that makes them; and the project's own store (listed, present, small)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from sslviz import code_digest as cd
from sslviz.cache import CacheWarning, ResultCache, stored_key
from sslviz.experiments import store as store_module
from sslviz.experiments.store import (
    MANIFEST,
    MAX_ENTRY_BYTES,
    MAX_STORE_BYTES,
    STORED_KINDS,
    check_notebook,
    read_code,
    read_manifest,
    stale_kinds,
    store_notebook,
)

PROJECT_STORE = Path(__file__).resolve().parents[1] / "sslviz" / "stored_results" / "cache"


@pytest.fixture
def store(tmp_path, monkeypatch):
    folder = tmp_path / "store"
    monkeypatch.setenv("SSLVIZ_STORE", str(folder))
    return folder


def put(folder, kind, key, arrays):
    """Write an entry for ``key`` into ``folder`` (a cache root) the way the cache does."""
    ResultCache(kind, folder, code="sslviz.em", store="").save(key, arrays)


def test_an_entry_missing_from_the_cache_is_read_from_the_store(store):
    put(store, "demo", {"k": 1}, {"x": np.arange(3)})
    cache = ResultCache("demo", code="sslviz.em")
    assert cache.load({"k": 1})["x"].tolist() == [0, 1, 2]
    assert cache.load({"k": 2}) is None
    assert not cache.folder.exists()  # reading the store writes nothing into the user's cache


def test_the_users_cache_comes_first(store):
    put(store, "demo", {"k": 1}, {"x": np.arange(3)})
    ResultCache("demo", code="sslviz.em").save({"k": 1}, {"x": np.zeros(2)})
    assert ResultCache("demo", code="sslviz.em").load({"k": 1})["x"].tolist() == [0.0, 0.0]


def test_an_empty_store_variable_switches_the_store_off(store, monkeypatch):
    put(store, "demo", {"k": 1}, {"x": np.arange(3)})
    monkeypatch.setenv("SSLVIZ_STORE", "")
    assert ResultCache("demo", code="sslviz.em").load({"k": 1}) is None


def test_a_stored_entry_of_another_key_or_damaged_is_named_and_kept(store):
    put(store, "demo", {"k": 1}, {"x": np.arange(3)})
    path = store / "demo" / ResultCache("demo", code="sslviz.em").path({"k": 1}).name
    swapped = store / "demo" / ResultCache("demo", code="sslviz.em").path({"k": 2}).name
    path.rename(swapped)  # an entry under the name of another key
    with pytest.warns(CacheWarning, match="ignoring damaged stored result .*git checkout"):
        assert ResultCache("demo", code="sslviz.em").load({"k": 2}) is None
    assert swapped.is_file()  # the store is read-only
    swapped.write_bytes(b"not an npz")
    with pytest.warns(CacheWarning, match="ignoring damaged stored result"):
        computed = ResultCache("demo", code="sslviz.em").get_or_compute(
            {"k": 2}, lambda: {"x": np.ones(1)})
    assert computed["x"].tolist() == [1.0] and swapped.read_bytes() == b"not an npz"
    in_cache = ResultCache("demo", code="sslviz.em", store="").load({"k": 2})
    assert in_cache["x"].tolist() == [1.0]


def probe_notebook(tmp_path, value):
    """A lecture stand-in that stores one 'demo' result (key and value given)."""
    path = tmp_path / "probe.ipynb"
    nbformat.write(new_notebook(cells=[
        new_code_cell("import numpy as np\nfrom sslviz.cache import ResultCache"),
        new_code_cell("ResultCache('demo', code='sslviz.em')"
                      f".get_or_compute({{'v': {value}}}, "
                      f"lambda: {{'x': np.full(2, {value}.0)}})"),
        new_code_cell("ResultCache('other', code='sslviz.em')"
                      ".save({'v': 0}, {'x': np.zeros(1)})"),
    ]), path)
    return path


def test_the_store_command_keeps_a_lectures_kinds_and_drops_what_it_no_longer_uses(
        store, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(STORED_KINDS, "probe", ("demo",))
    assert store_notebook(probe_notebook(tmp_path, 1)) == {"demo": 1}
    first = ResultCache("demo", code="sslviz.em").path({"v": 1}).name
    assert read_manifest() == {"probe": {"demo": [first]}}
    assert read_code() == {"probe": {"demo": {"sslviz.em": cd.code_digest("sslviz.em")}}}
    assert not (store / "other").exists()  # not a stored kind
    assert "also computed, not stored: other" in capsys.readouterr().out
    assert ResultCache("demo", code="sslviz.em").load({"v": 1})["x"].tolist() == [1.0, 1.0]

    store_notebook(probe_notebook(tmp_path, 2))  # the lecture changed its setting
    second = ResultCache("demo", code="sslviz.em").path({"v": 2}).name
    assert read_manifest() == {"probe": {"demo": [second]}}
    assert sorted(p.name for p in (store / "demo").iterdir()) == [second]
    assert json.loads((store / MANIFEST).read_text())["made_by"].endswith("store")


def test_the_store_command_can_store_from_the_cache_folder_the_lecture_filled(
        store, tmp_path, monkeypatch):
    monkeypatch.setitem(STORED_KINDS, "probe", ("demo",))
    filled = tmp_path / "filled"
    put(filled, "demo", {"v": 1}, {"x": np.full(2, 7.0)})  # what the lecture's run left there
    assert store_notebook(probe_notebook(tmp_path, 1), cache=filled) == {"demo": 1}
    # read from the folder, not computed again (the notebook would have computed 1.0)
    assert ResultCache("demo", code="sslviz.em").load({"v": 1})["x"].tolist() == [7.0, 7.0]


def test_the_store_commands_cache_option_takes_one_lecture_and_a_folder(tmp_path, capsys):
    notebook = (Path(__file__).resolve().parents[1] / "notebooks"
                / "09_hybrid_generative_discriminative.ipynb")
    with pytest.raises(SystemExit) as stop:
        store_module.main(["--cache", str(tmp_path / "absent"), str(notebook)])
    assert stop.value.code == 2
    assert "is not a folder (the cache folder the lecture filled)" in capsys.readouterr().err
    assert store_module.main(["--cache", str(tmp_path), "--check", str(notebook)]) == 2
    assert ("--cache stores one lecture from the cache folder it filled: name exactly one "
            "NOTEBOOK, without --check") in capsys.readouterr().err


def test_check_finds_a_stored_number_the_code_no_longer_computes(store, tmp_path, monkeypatch):
    monkeypatch.setitem(STORED_KINDS, "probe", ("demo",))
    notebook = probe_notebook(tmp_path, 1)
    store_notebook(notebook)
    assert check_notebook(notebook) == []
    name = ResultCache("demo", code="sslviz.em").path({"v": 1}).name
    put(store, "demo", {"v": 1}, {"x": np.full(2, 1.5)})  # a stored number that is not computed
    assert check_notebook(notebook) == [f"demo/{name}: array 'x' differs"]


def test_the_store_command_refuses_a_lecture_without_stored_results(capsys):
    assert store_module.main(["notebooks/01_what_is_ssl.ipynb"]) == 2
    assert "01_what_is_ssl.ipynb stores no results" in capsys.readouterr().err


def test_the_projects_store_is_listed_complete_and_small():
    manifest = read_manifest(PROJECT_STORE)
    assert set(manifest) == set(STORED_KINDS), "run python -m sslviz.experiments store"
    for stem, kinds in STORED_KINDS.items():  # a kind the lecture never computes is a typo
        assert all(manifest[stem].get(kind) for kind in kinds), (stem, manifest[stem])
    listed = {(kind, name) for stem, kinds in manifest.items() for kind, names in kinds.items()
              for name in names}
    assert all(kind in STORED_KINDS[stem] for stem, kinds in manifest.items() for kind in kinds)
    on_disk = {(p.parent.name, p.name) for p in PROJECT_STORE.glob("*/*.npz")}
    assert listed == on_disk
    large = [p.name for p in PROJECT_STORE.glob("*/*.npz") if p.stat().st_size > MAX_ENTRY_BYTES]
    assert not large, f"stored entries this large are data, not results: {large}"
    size = sum(p.stat().st_size for p in PROJECT_STORE.glob("*/*.npz"))
    assert size <= MAX_STORE_BYTES, f"the store holds {size:,} bytes"


def test_the_projects_store_was_made_by_todays_code():
    """Fast (reads the manifest only). When it fails, the message names the command."""
    stale = stale_kinds(PROJECT_STORE)
    assert not stale, "stored results made by other code:\n" + "\n".join(stale)


def test_every_stored_entry_holds_the_code_its_manifest_records():
    code, manifest = read_code(PROJECT_STORE), read_manifest(PROJECT_STORE)
    for stem, kinds in manifest.items():
        for kind, names in kinds.items():
            for name in names:
                assert stored_key(PROJECT_STORE / kind / name)["code"]["digest"] == \
                    code[stem][kind][stored_key(PROJECT_STORE / kind / name)["code"]["module"]]


def test_a_changed_line_of_em_makes_the_store_check_fail_with_the_command(
        store, tmp_path, monkeypatch):
    monkeypatch.setitem(STORED_KINDS, "probe", ("demo",))
    store_notebook(probe_notebook(tmp_path, 1))  # an entry computed by the code of sslviz.em
    copy = tmp_path / "copy" / "sslviz"
    shutil.copytree(cd.PACKAGE_ROOT, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert stale_kinds(store, root=copy) == []
    em = copy / "em.py"
    em.write_text(em.read_text(encoding="utf-8") + "\n\ndef _unused():\n    return 0\n",
                  encoding="utf-8")
    cd.code_digest.cache_clear()
    assert stale_kinds(store, root=copy) == [
        "probe: the code behind stored kind 'demo' changed (sslviz.em, or a module it imports): "
        "rerun `python -m sslviz.experiments store notebooks/probe.ipynb`"]


def test_a_kind_without_a_digest_is_stale(store):
    (store / MANIFEST).parent.mkdir(parents=True)
    (store / MANIFEST).write_text(json.dumps({"notebooks": {"probe": {"demo": ["x.npz"]}}}))
    assert stale_kinds(store) == [
        "probe: stored kind 'demo' has no code digest: "
        "rerun `python -m sslviz.experiments store notebooks/probe.ipynb`"]
