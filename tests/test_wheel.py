"""The package as a student's `pip install` gets it: a wheel carries the stored results.

The wheel is built offline from a copy of the checkout (``pip wheel --no-build-isolation``, the
test environment's setuptools) -- directly, or from the source distribution a package index
would hold (the sdist built by setuptools' PEP 517 backend, then the wheel built from it) --
installed with pip into a folder of its own, and imported from
a folder with no checkout around it: the stored results it reads must be the ones inside the
installed package, and an entry must load through the result cache with the digest of the
installed code -- the same first "Run All" as in a checkout. The installed package also builds
the lecture site (its template and assets are package data) from a folder holding only
``notebooks/``, into ``build/site`` of that folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import textwrap
from pathlib import Path

import pytest
from helpers import PATIENCE_S

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow

PROBE = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    import sslviz, sslviz.paths as paths
    from sslviz.cache import ResultCache, stored_key
    from sslviz.experiments.hybrid_results import RESULTS_FILE, read_results
    from sslviz.experiments.store import read_code, read_manifest

    store = paths.store_dir()
    manifest, code = read_manifest(), read_code()
    stem, kinds = sorted(manifest.items())[0]
    kind, names = sorted(kinds.items())[0]
    [(module, digest)] = code[stem][kind].items()
    full = stored_key(store / kind / names[0])
    key = {k: v for k, v in full.items() if k != "code"}
    arrays = ResultCache(kind, sys.argv[1], code=module).load(key)
    print(json.dumps({"package": sslviz.__file__, "store": str(store),
                      "entries": sum(len(v) for k in manifest.values() for v in k.values()),
                      "loaded": None if arrays is None else sorted(arrays),
                      "results_file": str(RESULTS_FILE),
                      "corpora": len(read_results()["corpora"])}))
""")


def _copy_checkout(target):
    """The files git tracks (what a fresh clone holds), copied to ``target``."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def _build_sdist(source, target):
    """The source distribution of the checkout copy ``source``, written into ``target``."""
    build = ("import sys\nfrom setuptools import build_meta\n"
             "print(build_meta.build_sdist(sys.argv[1]))")
    done = subprocess.run([sys.executable, "-c", build, str(target)], cwd=source, check=True,
                          capture_output=True, text=True, timeout=PATIENCE_S)
    return target / done.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("route", ["checkout", "sdist"])
def test_an_installed_wheel_reads_the_stored_results_from_inside_the_package(tmp_path, route):
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs a git checkout to copy")
    source, wheels, site, elsewhere, dist = (tmp_path / n for n in ("src", "whl", "site",
                                                                     "away", "dist"))
    for folder in (source, wheels, site, elsewhere, dist):
        folder.mkdir()
    _copy_checkout(source)
    if route == "sdist":
        sdist = _build_sdist(source, dist)
        with tarfile.open(sdist) as archive:
            names = {Path(*Path(n).parts[1:]).as_posix() for n in archive.getnames()}
        assert {"LICENSE", "LICENSE-CONTENT.md", "README.md", "pyproject.toml",
                "sslviz/stored_results/hybrid_paper_scale.json",
                "sslviz/stored_results/cache/MANIFEST.json"} <= names
        source = sdist
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels),
                    str(source)], check=True, capture_output=True, timeout=PATIENCE_S)
    [wheel] = wheels.glob("sslviz-*.whl")
    subprocess.run([*pip, "install", "--no-deps", "--no-index", "-q", "--target", str(site),
                    str(wheel)], check=True, capture_output=True, timeout=PATIENCE_S)
    env = {k: v for k, v in os.environ.items() if k not in ("SSLVIZ_STORE", "PYTHONPATH")}
    env["PYTHONPATH"] = str(site)
    done = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path / "cache")], cwd=elsewhere,
                          env=env, capture_output=True, text=True, timeout=PATIENCE_S)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    installed = site / "sslviz"
    assert Path(seen["package"]).parent == installed  # not the checkout's package
    assert Path(seen["store"]) == installed / "stored_results" / "cache"
    in_checkout = json.loads((REPO / "sslviz" / "stored_results" / "cache" / "MANIFEST.json")
                             .read_text(encoding="utf-8"))["notebooks"]
    assert seen["entries"] == sum(len(v) for k in in_checkout.values() for v in k.values())
    assert seen["loaded"], "the stored entry did not load with the installed code's digest"
    assert Path(seen["results_file"]).parent == installed / "stored_results"
    assert seen["corpora"] == 3
    _check_the_site_builds(env, elsewhere, installed)
    [info] = site.glob("sslviz-*.dist-info")
    assert "License-Expression: BSD-3-Clause" in (info / "METADATA").read_text(encoding="utf-8")
    assert {p.name for p in (info / "licenses").iterdir()} == {"LICENSE", "LICENSE-CONTENT.md"}


def _check_the_site_builds(env, folder, installed):
    """``python -m sslviz.site`` of the installed package, run in ``folder`` (no checkout) with one
    lecture in ``folder/notebooks``: its page and the glossary carry the site's bar and assets."""
    import nbformat
    from nbformat.v4 import new_markdown_cell, new_notebook

    (folder / "notebooks").mkdir()
    nbformat.write(new_notebook(cells=[new_markdown_cell("# Lecture 1 — from a wheel\n\n"
                                                         "EM, as in $P(c \\mid d)$.")]),
                   folder / "notebooks" / "01_wheel.ipynb")
    done = subprocess.run([sys.executable, "-m", "sslviz.site"], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=PATIENCE_S)
    assert done.returncode == 0, done.stderr
    out = folder / "build" / "site"
    assert done.stdout.strip().endswith(f"1 lectures written to {out}/index.html")
    page = (out / "01_wheel.html").read_text(encoding="utf-8")
    assert "<title>Lecture 1 — from a wheel</title>" in page
    assert 'src="mathjax/tex-chtml-full.js"' in page and (out / "mathjax").is_dir()
    templates = installed / "site_templates" / "sslviz"
    for name in ("sslviz.js", "sslviz.css", "theme.js"):
        assert (out / "assets" / name).read_bytes() == (templates / "assets" / name).read_bytes()
    for name in ("01_wheel.html", "glossary.html", "bibliography.html", "index.html"):
        text = (out / name).read_text(encoding="utf-8")
        assert 'id="sslviz-search-input"' in text and "sslviz-theme-toggle" in text, name
