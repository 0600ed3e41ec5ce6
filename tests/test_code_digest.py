"""Results that know their code: the digest of a module and what it imports, in every cache key.

The digests are checked against hand-made packages (which imports count, what a change is) and
against a copy of sslviz with one line of ``em.py`` changed.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import numpy as np
import pytest

import sslviz
from sslviz import code_digest as cd
from sslviz.cache import ResultCache, stored_key

PACKAGE = Path(sslviz.__file__).resolve().parent


def make_package(root, files):
    """A throw-away ``sslviz`` package under ``root`` with ``files`` ({relative path: source})."""
    package = root / "sslviz"
    for relative, source in {"__init__.py": "", **files}.items():
        path = package / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
    return package


@pytest.fixture
def toy(tmp_path):
    return make_package(tmp_path, {
        "a.py": "from .b import f\nimport numpy\n",
        "b.py": "from . import c\ndef f():\n    return c.g()\n",
        "c.py": "def g():\n    return 1\n",
        "d.py": "X = 2\n",
        "sub/__init__.py": "",
        "sub/e.py": "from .. import a\nfrom ..cache import ResultCache\n",
        "cache.py": "import os\n",
    })


def test_the_closure_skips_carriers(toy):
    assert cd.closure("sslviz.a", toy) == ["sslviz.a", "sslviz.b", "sslviz.c"]
    # the cache is a carrier: neither digested nor followed; "from .. import a" is module a
    assert cd.closure("sslviz.sub.e", toy) == ["sslviz.a", "sslviz.b", "sslviz.c", "sslviz.sub.e"]


def test_a_change_anywhere_in_the_closure_changes_the_digest_and_only_there(tmp_path):
    digests = []
    for body in ("return 1", "return 2"):
        root = make_package(tmp_path / body[-1], {
            "a.py": "from .b import f\n", "b.py": "from . import c\ndef f():\n    return c.g()\n",
            "c.py": f"def g():\n    {body}\n", "d.py": "X = 2\n"})
        digests.append((cd.code_digest("sslviz.a", root), cd.code_digest("sslviz.d", root)))
    (a1, d1), (a2, d2) = digests
    assert a1 != a2  # c changed, a imports it through b
    assert d1 == d2  # d imports nothing that changed


def test_comments_docstrings_and_blank_lines_are_not_code():
    plain = "def f(x):\n    y = x + 1\n    return y  # and y\n"
    dressed = ('"""Module."""\n\n# a comment\ndef f(x):\n    """What f does.\n\n    More.\n'
               '    """\n\n    y = x + 1   \n    return y\n')
    assert cd.normalized_source(plain) == cd.normalized_source(dressed)
    assert cd.normalized_source(plain) != cd.normalized_source(plain.replace("+ 1", "+ 2"))
    # a string that is not a docstring is code, and a '#' inside a string is not a comment
    assert "'#'" in cd.normalized_source("x = '#'\n")
    assert cd.normalized_source("def f():\n    'doc'\n    s = 'x'\n") == "def f():\n    s = 'x'"


def test_the_em_experiments_rest_on_em_and_not_on_the_plots():
    modules = cd.closure("sslviz.experiments.em")
    assert {"sslviz.em", "sslviz.tuning", "sslviz.experiments.em"} <= set(modules)
    assert not [m for m in modules if m.startswith(("sslviz.plots", "sslviz.widgets"))]
    assert not set(modules) & cd.CARRIERS


def test_code_of_names_the_module_of_a_function_a_class_or_a_module():
    from sslviz.em import SemiSupervisedNB
    from sslviz.experiments import em as em_experiments

    expected = {"module": "sslviz.experiments.em",
                "digest": cd.code_digest("sslviz.experiments.em")}
    assert cd.code_of(em_experiments.learning_curve) == expected
    assert cd.code_of(em_experiments) == expected
    assert cd.code_of("sslviz.experiments.em") == expected
    assert cd.code_of(SemiSupervisedNB)["module"] == "sslviz.em"
    with pytest.raises(ValueError, match="is a module, or a function or class"):
        cd.code_of(3)
    with pytest.raises(ValueError, match="is not a module of the sslviz package"):
        cd.code_of("sslviz.no_such_module")


def test_code_outside_the_package_is_digested_by_its_own_source():
    here = cd.code_of(make_package)
    assert here["module"] == __name__ and len(here["digest"]) == 16
    assert cd.code_of(make_package) == cd.code_of(test_the_closure_skips_carriers)
    assert cd.code_of(np.mean)["module"].startswith("numpy")


def test_every_key_carries_the_code_and_other_code_never_reads_it(result_cache):
    key = {"data": "abc", "alpha": 0.1}
    ResultCache("demo", code="sslviz.em").save(key, {"x": np.arange(2)})
    [path] = (result_cache / "demo").glob("*.npz")
    assert stored_key(path) == {**key, "code": cd.code_of("sslviz.em")}
    assert ResultCache("demo", code="sslviz.em").load(key)["x"].tolist() == [0, 1]
    assert ResultCache("demo", code="sslviz.cem").load(key) is None  # other code
    assert ResultCache("demo", code=None).load(key) is None  # no code
    with pytest.raises(ValueError, match="'code' is reserved for the code in a cache key"):
        ResultCache("demo", code="sslviz.em").load({"code": 1})


def test_every_cache_writer_in_the_package_names_its_code():
    calls = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "ResultCache":
                code = [k.value for k in node.keywords if k.arg == "code"]
                calls.append((path.name, code and not (isinstance(code[0], ast.Constant)
                                                       and code[0].value is None)))
    assert len(calls) >= 8
    assert [name for name, named in calls if not named] == []


def test_a_changed_line_of_em_changes_the_code_of_the_lectures_that_use_it(tmp_path):
    copy = tmp_path / "sslviz"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    modules = ("sslviz.experiments.em", "sslviz.experiments.fisher", "sslviz.experiments.yarowsky")
    before = {m: cd.code_digest(m, copy) for m in modules}
    assert before == {m: cd.code_digest(m) for m in modules}  # a copy is the same code
    em = copy / "em.py"
    em.write_text(em.read_text(encoding="utf-8") + "\n# a comment only\n", encoding="utf-8")
    cd.code_digest.cache_clear()
    assert {m: cd.code_digest(m, copy) for m in modules} == before
    em.write_text(em.read_text(encoding="utf-8") + "\nTOLERANCE_NOTE = 1\n", encoding="utf-8")
    cd.code_digest.cache_clear()
    after = {m: cd.code_digest(m, copy) for m in modules}
    assert after["sslviz.experiments.em"] != before["sslviz.experiments.em"]
    assert after["sslviz.experiments.fisher"] != before["sslviz.experiments.fisher"]
    assert after["sslviz.experiments.yarowsky"] == before["sslviz.experiments.yarowsky"]
