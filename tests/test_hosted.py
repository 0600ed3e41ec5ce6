"""The hosted-start cell (:mod:`sslviz.hosted`), run for real in a fresh virtual environment.

Binder and Colab cannot be reached from here, so the test plays the hosted service: a new venv
without sslviz (its dependencies borrowed from this environment through a ``.pth`` line;
only pip's build backend comes from the package index), the service's marker variable set,
the package installed from this clone (``SSLVIZ_INSTALL``) and the corpora fetched from a
local folder (``SSLVIZ_MIRROR``), each file checked against its sha256.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest
from helpers import PATIENCE_S

from sslviz.datasets import locate, status
from sslviz.hosted import SETUP_CELL
from sslviz.lectures import LECTURE_DATASETS

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory):
    """A venv without sslviz whose other packages are this environment's."""
    folder = tmp_path_factory.mktemp("hosted") / "venv"
    venv.EnvBuilder(with_pip=False).create(folder)
    python = folder / "bin" / "python"
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = subprocess.run([python, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()
    # a plain path line: the folder is added, but its own .pth files (the editable sslviz) are not
    Path(site, "borrowed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def run_cell(python, cwd, **environ):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "SSLVIZ_INSTALL", "SSLVIZ_MIRROR", "BINDER_LAUNCH_HOST",
                        "BINDER_REQUEST", "COLAB_RELEASE_TAG")}
    env.update(environ)
    return subprocess.run([python, "-c", SETUP_CELL + "\nimport sslviz; print(sslviz.__file__)"],
                          capture_output=True, text=True, cwd=cwd, env=env, timeout=2 * PATIENCE_S)


def test_without_sslviz_and_not_hosted_the_cell_says_how_to_start(bare_python, tmp_path):
    result = run_cell(bare_python, tmp_path)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "ModuleNotFoundError: sslviz is not installed in this kernel: from the sslviz folder run "
        "`python3 run.py lab` (README, 'The two commands')")


def test_with_sslviz_the_cell_does_nothing(tmp_path):
    result = subprocess.run([sys.executable, "-c", SETUP_CELL],
                            capture_output=True, text=True, cwd=tmp_path,
                            env={**os.environ, "BINDER_LAUNCH_HOST": "https://mybinder.org/"})
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


@pytest.mark.slow
def test_on_a_hosted_service_the_cell_installs_sslviz_and_fetches_checked_corpora(
        bare_python, tmp_path):
    shared = Path(os.environ.get("SSLVIZ_DATA", ROOT / "data"))
    if not (shared / "SmartStoplist.txt").exists():
        pytest.skip(f"no corpora in {shared} to serve as the mirror")
    data = tmp_path / "data"
    data.mkdir()
    result = run_cell(bare_python, tmp_path, BINDER_LAUNCH_HOST="https://mybinder.org/",
                      SSLVIZ_INSTALL=f"{ROOT}[lab]", SSLVIZ_MIRROR=shared.as_uri(),
                      SSLVIZ_DATA=str(data))
    assert result.returncode == 0, result.stderr[-3000:]
    installed = Path(result.stdout.strip().splitlines()[-1])
    assert installed.is_relative_to(bare_python.parents[1])  # installed into the new venv
    rows = status(LECTURE_DATASETS, data_dir=data)
    assert {(row.dataset, row.state) for row in rows} == {
        (name, "present") for name in LECTURE_DATASETS}
    assert locate("smart_stoplist", data_dir=data).read_bytes() == (
        shared / "SmartStoplist.txt").read_bytes()


def test_the_hosted_start_run_py_and_binder_fetch_the_lectures_datasets():
    """One list, sslviz.lectures: run.py (which cannot import sslviz before installing it),
    Binder and the hosted cell all ask ``python -m sslviz.datasets fetch --lectures``."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("run_script", ROOT / "run.py")
    run_script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run_script)
    assert run_script.LECTURE_DATA == ("--lectures",)
    post_build = (ROOT / ".binder" / "postBuild").read_text()
    assert "python -m sslviz.datasets fetch --lectures" in post_build
    assert '"sslviz.datasets", "fetch", "--lectures"' in SETUP_CELL


def test_fetch_lectures_means_every_lecture_dataset(monkeypatch, capsys):
    from sslviz.datasets import __main__ as datasets_main

    asked = []
    monkeypatch.setattr(datasets_main, "fetch", lambda names: asked.append(names) or [])
    assert datasets_main.main(["fetch", "--lectures"]) == 0
    assert tuple(asked[0]) == LECTURE_DATASETS
    assert datasets_main.main(["fetch", "golub", "--lectures"]) == 0
    assert asked[1][0] == "golub" and set(asked[1]) == set(LECTURE_DATASETS)
