"""``python3 run.py lab`` runs the student's own copy of the lectures (``work/``): the tracked
notebooks never change, a copy is never overwritten, one lecture can be reset with a backup kept,
and JupyterLab starts without its news toast."""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from helpers import PATIENCE_S

ROOT = Path(__file__).resolve().parents[1]
LECTURES = ("01_what_is_ssl.ipynb", "04_em_naive_bayes.ipynb")


@pytest.fixture(scope="module")
def run_script():
    spec = importlib.util.spec_from_file_location("sslviz_run_script", ROOT / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def clone(tmp_path):
    """A git repository holding run.py, the project's .gitignore and two real lectures."""
    git = shutil.which("git")
    if git is None:
        pytest.skip("needs git")
    root = tmp_path / "clone"
    (root / "notebooks").mkdir(parents=True)
    for name in ("run.py", ".gitignore"):
        shutil.copy2(ROOT / name, root / name)
    for name in LECTURES:
        shutil.copy2(ROOT / "notebooks" / name, root / "notebooks" / name)
    for command in (["init", "-q"], ["add", "-A"],
                    ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "c"]):
        subprocess.run([git, *command], cwd=root, check=True)
    return root


def git_status(root):
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=root,
                          capture_output=True, text=True, check=True).stdout


def test_the_work_copy_is_made_once_and_never_overwritten(run_script, clone):
    assert run_script.prepare_work(clone) == list(LECTURES)
    mine = clone / "work" / LECTURES[1]
    mine.write_text('{"my": "answers"}')
    assert run_script.prepare_work(clone) == []  # nothing to copy, nothing overwritten
    assert mine.read_text() == '{"my": "answers"}'
    (clone / "work" / LECTURES[0]).unlink()  # a lecture removed (or new after a pull): copied
    assert run_script.prepare_work(clone) == [LECTURES[0]]
    assert git_status(clone) == ""


def test_reset_keeps_the_old_copy_as_a_backup(run_script, clone):
    run_script.prepare_work(clone)
    mine = clone / "work" / LECTURES[1]
    mine.write_text("first answers")
    lecture = run_script.lecture_file("04", clone)
    assert lecture == clone / "notebooks" / LECTURES[1]
    backup = run_script.reset_lecture(lecture, clone, stamp="20260101-120000")
    assert backup == clone / "work" / "backups" / "04_em_naive_bayes-20260101-120000.ipynb"
    assert backup.read_text() == "first answers"
    assert mine.read_bytes() == lecture.read_bytes()
    mine.write_text("second answers")  # a second reset in the same second keeps both backups
    second = run_script.reset_lecture(lecture, clone, stamp="20260101-120000")
    assert second.name == "04_em_naive_bayes-20260101-120000-2.ipynb"
    assert second.read_text() == "second answers" and backup.read_text() == "first answers"
    assert run_script.reset_lecture(lecture, clone) is None  # a fresh copy needs no backup
    assert {p.name for p in (clone / "work" / "backups").iterdir()} == {backup.name, second.name}
    (clone / "work" / LECTURES[0]).unlink()  # no copy yet: the lecture is copied
    assert run_script.reset_lecture(clone / "notebooks" / LECTURES[0], clone) is None
    assert (clone / "work" / LECTURES[0]).is_file()
    assert git_status(clone) == ""


@pytest.mark.parametrize("name", ["04", "4", "04_em_naive_bayes", "04_em_naive_bayes.ipynb"])
def test_a_lecture_is_named_by_number_or_name(run_script, clone, name):
    assert run_script.lecture_file(name, clone).name == LECTURES[1]


@pytest.mark.parametrize("name", ["07", "em", "", "0"])
def test_an_unknown_lecture_is_refused_with_the_numbers_there_are(run_script, clone, name):
    with pytest.raises(run_script.UsageError,
                       match=rf"^--reset {name}: no lecture has that number or name; give one "
                             r"of 01, 04 \(e.g. --reset 04\)$"):
        run_script.lecture_file(name, clone)


def test_reset_options_are_taken_out_of_jupyters_arguments(run_script):
    assert run_script.lab_options(["--reset", "04", "--no-browser", "--reset=1", "--port", "9"]) \
        == (["04", "1"], ["--no-browser", "--port", "9"])
    for bad in (["--reset"], ["--reset", "--no-browser"]):
        with pytest.raises(run_script.UsageError, match="--reset needs a lecture number, e.g. "
                                                        "--reset 04"):
            run_script.lab_options(bad)


def test_a_bad_reset_stops_before_any_setup(run_script, clone, monkeypatch, capsys):
    monkeypatch.setattr(run_script, "ROOT", clone)
    monkeypatch.setattr(run_script, "ensure_environment", lambda *a, **k: pytest.fail("setup"))
    assert run_script.main(["lab", "--reset", "99"]) == 2
    assert "run.py: error: --reset 99: no lecture has that number" in capsys.readouterr().err


def test_lab_defaults_are_a_file_of_their_own(run_script, tmp_path):
    mine = tmp_path / "overrides.json"  # an administrator's or user's overrides: left alone
    mine.write_text('{"@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"}}')
    before = mine.read_text()
    path = run_script.write_lab_defaults(tmp_path)
    assert path == tmp_path / "overrides.d" / "sslviz.json"
    assert json.loads(path.read_text()) == {
        "@jupyterlab/apputils-extension:notification": {"fetchNews": "false",
                                                        "checkForUpdates": False}}
    assert mine.read_text() == before
    assert run_script.write_lab_defaults(tmp_path) == path  # a second start rewrites the same


# -- the real thing: JupyterLab on the copy, a lecture opened and saved through its API ---------
class Lab:
    def __init__(self, root, tmp, run_script):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.token = secrets.token_hex(16)
        settings = run_script.write_lab_defaults(tmp / "app-settings").parents[1]
        jupyter = Path(sys.executable).with_name("jupyter")
        command = run_script.lab_command(jupyter, [
            "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0", f"--IdentityProvider.token={self.token}",
            # what run.py writes into the environment, here beside the test's environment; and
            # an empty user settings folder, so that the tester's own settings play no part
            f"--LabApp.app_settings_dir={settings}",
            f"--LabApp.user_settings_dir={tmp / 'user-settings'}",
            f"--LabApp.workspaces_dir={tmp / 'workspaces'}"], is_root=os.geteuid() == 0)
        self.log = tmp / "lab.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(command, cwd=root, stdout=log,
                                            stderr=subprocess.STDOUT)

    def api(self, path, method="GET", body=None):
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/{path}", method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"token {self.token}",
                     "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=PATIENCE_S / 5) as response:
            return json.loads(response.read() or b"null")

    def wait(self):
        deadline = time.monotonic() + PATIENCE_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"jupyter lab exited:\n{self.log.read_text()[-3000:]}")
            try:
                return self.api("api/status")
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.3)
        pytest.fail(f"jupyter lab did not answer within {PATIENCE_S} s")

    def stop(self):
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=30)  # a grace period: then kill
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def test_running_and_saving_a_lecture_leaves_git_status_clean(run_script, clone, tmp_path):
    pytest.importorskip("jupyterlab")
    run_script.prepare_work(clone)
    lab = Lab(clone, tmp_path, run_script)
    try:
        lab.wait()
        listing = lab.api("api/contents")["content"]
        assert sorted(item["name"] for item in listing) == sorted(LECTURES)  # work/ is the root
        name = LECTURES[1]
        model = lab.api(f"api/contents/{name}?content=1")
        notebook = model["content"]
        notebook["cells"].append({"cell_type": "code", "execution_count": 1, "id": "mine",
                                  "metadata": {}, "outputs": [], "source": "answer = 42"})
        saved = lab.api(f"api/contents/{name}", "PUT",
                        {"type": "notebook", "format": "json", "content": notebook})
        assert saved["path"] == name
        checkpoint = lab.api(f"api/contents/{name}/checkpoints", "POST")  # what "save" also does
        assert checkpoint["id"]
        notification = lab.api("lab/api/settings/@jupyterlab/apputils-extension:notification")
        defaults = notification["schema"]["properties"]  # the user's (empty) settings add nothing
        assert notification["settings"] == {}
        assert defaults["fetchNews"]["default"] == "false"  # no "get news?" toast
        assert defaults["checkForUpdates"]["default"] is False
    finally:
        lab.stop()
    assert "answer = 42" in (clone / "work" / name).read_text()  # the save went to the copy
    assert (clone / "notebooks" / name).read_bytes() == (ROOT / "notebooks" / name).read_bytes()
    assert git_status(clone) == ""
