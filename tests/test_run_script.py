"""The pure parts of run.py, and the files its test command relies on.

No environment is created and nothing is installed: the steps that would start pip, the datasets
command, ruff, pytest or JupyterLab are replaced by recorders.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import PATIENCE_S

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def run_script():
    spec = importlib.util.spec_from_file_location("sslviz_run_script", ROOT / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def project(tmp_path):
    """A fake checkout: a pyproject.toml and a venv folder with a (fake) python in it."""
    root = tmp_path / "clone"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    venv = root / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("")
    return root, venv


# ---------------------------------------------------------------- arguments


def test_parse_args_passes_everything_after_the_command_through(run_script):
    args = run_script.parse_args(["lab", "--no-browser", "--port", "8899"])
    assert (args.command, args.extra) == ("lab", ["--no-browser", "--port", "8899"])
    args = run_script.parse_args(["test", "-k", "em and not slow", "-x", "--", "-h"])
    assert (args.command, args.extra) == ("test", ["-k", "em and not slow", "-x", "--", "-h"])
    assert run_script.parse_args(["test"]).extra == []


@pytest.mark.parametrize("argv", [[], ["-h"], ["--help"], ["help"]])
def test_parse_args_help(run_script, argv):
    assert run_script.parse_args(argv).command == "help"


def test_parse_args_rejects_unknown_commands(run_script):
    with pytest.raises(run_script.UsageError, match="choose 'lab', 'test' or 'site'"):
        run_script.parse_args(["notebook"])


def test_main_help_and_usage_errors(run_script, capsys):
    assert run_script.main(["--help"]) == 0
    assert "python3 run.py {lab,test,site}" in capsys.readouterr().out
    assert run_script.main(["serve"]) == 2
    assert "unknown command 'serve'" in capsys.readouterr().err


def test_old_python_gets_a_clear_error(run_script, monkeypatch, capsys):
    monkeypatch.setattr(sys, "version_info", (3, 9, 18, "final", 0))
    assert run_script.main(["test"]) == 1
    err = capsys.readouterr().err
    assert "Python 3.9.18 is too old" in err and "3.10" in err


# ---------------------------------------------------------------- the environment


def test_venv_location_default_and_override(run_script, tmp_path):
    assert run_script.venv_dir(tmp_path, environ={}) == tmp_path / ".venv"
    other = tmp_path / "elsewhere"
    assert run_script.venv_dir(tmp_path, environ={"SSLVIZ_VENV": str(other)}) == other


def test_needs_install_until_the_stamp_matches_pyproject(run_script, project):
    root, venv = project
    assert run_script.needs_install(venv, root)  # no stamp yet
    run_script.write_stamp(venv, root)
    assert (venv / ".sslviz-stamp").exists()
    assert not run_script.needs_install(venv, root)
    assert not run_script.needs_install(venv, root)  # idempotent
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\ndependencies = ["numpy"]\n')
    assert run_script.needs_install(venv, root)  # pyproject changed
    run_script.write_stamp(venv, root)
    assert not run_script.needs_install(venv, root)
    assert sorted(p.name for p in venv.iterdir()) == [".sslviz-stamp", "bin"]  # no temp file


def test_needs_install_when_the_environment_has_no_python(run_script, project):
    root, venv = project
    run_script.write_stamp(venv, root)
    (venv / "bin" / "python").unlink()
    assert run_script.needs_install(venv, root)


def test_stamp_holds_the_sha256_of_pyproject(run_script, project):
    import hashlib

    root, venv = project
    run_script.write_stamp(venv, root)
    digest = hashlib.sha256((root / "pyproject.toml").read_bytes()).hexdigest()
    assert (venv / ".sslviz-stamp").read_text().split()[0] == digest


def test_environment_step_skips_pip_when_up_to_date(run_script, project, monkeypatch):
    root, venv = project
    calls = []
    monkeypatch.setattr(run_script, "run", lambda cmd, **kw: calls.append(list(map(str, cmd))) or 0)
    run_script.ensure_environment(root, venv)  # stamp missing: pip runs, then the stamp is written
    assert any(call[-3:] == ["install", "-e", ".[test]"] for call in calls)
    assert not run_script.needs_install(venv, root)
    calls.clear()
    run_script.ensure_environment(root, venv)
    assert calls == []


def test_lab_installs_the_classroom_and_test_adds_the_tools(run_script, project, monkeypatch):
    root, venv = project
    calls = []
    monkeypatch.setattr(run_script, "run", lambda cmd, **kw: calls.append(list(map(str, cmd))) or 0)
    run_script.ensure_environment(root, venv, extras=("lab",))
    assert calls[-1][-3:] == ["install", "-e", ".[lab]"]
    assert not run_script.needs_install(venv, root, ("lab",))
    assert run_script.needs_install(venv, root, ("test",))  # the test tools are not there yet
    run_script.ensure_environment(root, venv, extras=("test",))
    assert calls[-1][-3:] == ["install", "-e", ".[test]"]
    calls.clear()
    run_script.ensure_environment(root, venv, extras=("lab",))  # [test] includes [lab]
    assert calls == []
    run_script.ensure_environment(root, venv, extras=("site",))  # [test] includes [site] too
    assert calls == []
    run_script.ensure_environment(root, venv, extras=("cluster",))  # another extra: keep test
    assert calls[-1][-3:] == ["install", "-e", ".[cluster,test]"]
    assert run_script.installed_extras(venv, root) == {"cluster", "lab", "site", "test"}


def test_failed_pip_leaves_no_stamp(run_script, project, monkeypatch):
    root, venv = project
    monkeypatch.setattr(run_script, "run", lambda cmd, **kw: 1)
    with pytest.raises(SystemExit) as exit_info:
        run_script.ensure_environment(root, venv)
    assert exit_info.value.code == 1
    assert not (venv / ".sslviz-stamp").exists()


# ---------------------------------------------------------------- the data


def test_missing_data_message_names_the_files_and_sslviz_data(run_script):
    files = ["20news-bydate.tar.gz", "SmartStoplist.txt"]
    message = run_script.missing_data_message(files, "data")
    for name in files:
        assert name in message
    assert "SSLVIZ_DATA=/folder/that/holds/them" in message
    assert "data/README.md" in message
    assert "SSLVIZ_DATA" in run_script.missing_data_message([])


def test_ensure_data_lists_the_missing_files_after_a_failed_fetch(
    run_script, monkeypatch, tmp_path
):
    commands = []
    monkeypatch.setattr(
        run_script, "run", lambda cmd, **kw: commands.append(list(map(str, cmd))) or 1
    )

    def fake_subprocess_run(cmd, **kwargs):
        commands.append(list(map(str, cmd)))
        return subprocess.CompletedProcess(cmd, 1, stdout="a.tar.gz\n\nb.zip\n", stderr="")

    monkeypatch.setattr(run_script.subprocess, "run", fake_subprocess_run)
    assert run_script.ensure_data("py", tmp_path) == ["a.tar.gz", "b.zip"]
    assert commands[0][1:4] == ["-m", "sslviz.datasets", "fetch"]
    assert commands[0][4:] == ["--lectures"]
    assert commands[1][4:] == ["--lectures"]
    assert commands[1][3] == "missing"


def test_ensure_data_returns_none_when_fetch_succeeds(run_script, monkeypatch, tmp_path):
    monkeypatch.setattr(run_script, "run", lambda cmd, **kw: 0)
    assert run_script.ensure_data("py", tmp_path) is None


def test_pytest_always_sees_a_data_folder(run_script, tmp_path):
    env = run_script.pytest_environ(tmp_path, environ={"PATH": "x"})
    assert env == {"PATH": "x", "SSLVIZ_DATA": str(tmp_path / "data"),
                   "SSLVIZ_STRICT_CLAIMS": "1"}
    env = run_script.pytest_environ(tmp_path, environ={"SSLVIZ_DATA": "corpora"})
    assert env["SSLVIZ_DATA"] == "corpora"


def test_the_datasets_the_lectures_need():
    from sslviz.lectures import LECTURE_DATASETS

    assert set(LECTURE_DATASETS) == {"20newsgroups", "webkb", "reuters21578", "smart_stoplist",
                                     "senseval", "splice", "golub"}


def test_every_corpus_a_notebook_loads_is_in_its_lectures_record(run_script):
    """A notebook that loads a registered corpus (by its loader's name) has it in its record."""
    import json

    from sslviz.lectures import LECTURES

    loaders = {"load_20newsgroups": "20newsgroups", "load_webkb": "webkb", "webkb": "webkb",
               "link_views": "webkb", "load_reuters": "reuters21578", "reuters": "reuters21578",
               "load_senseval": "senseval", "sense_task": "senseval", "load_task": "senseval",
               "load_splice": "splice", "splice": "splice", "load_golub": "golub",
               "leukemia": "golub", '"smart"': "smart_stoplist", "20news": "20newsgroups"}
    folder = Path(run_script.__file__).parent / "notebooks"
    for lecture in LECTURES:
        cells = json.loads((folder / f"{lecture.stem}.ipynb").read_text())["cells"]
        text = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "code"
                       and "hosted-setup" not in c["metadata"].get("tags", []))
        needed = {name for word, name in loaders.items() if word in text}
        assert needed <= set(lecture.datasets), (lecture.stem, needed - set(lecture.datasets))


# ---------------------------------------------------------------- the commands


@pytest.fixture
def recorded(run_script, project, monkeypatch):
    """Replace every external step of the commands; return the list of commands 'run'."""
    root, venv = project
    calls = []
    codes = {}
    monkeypatch.setattr(run_script, "ensure_environment",
                        lambda root, **kw: venv / "bin" / "python")
    monkeypatch.setattr(run_script, "ensure_data", lambda python, root: None)

    def fake_run(cmd, **kwargs):
        cmd = list(map(str, cmd))
        calls.append(cmd)
        codes["env:" + cmd[2]] = kwargs.get("env")
        tool = cmd[2]  # python -m <tool>
        return codes.get(tool, 0)

    monkeypatch.setattr(run_script, "run", fake_run)
    return root, calls, codes


def test_test_command_runs_ruff_then_one_pytest(run_script, recorded):
    root, calls, codes = recorded
    (root / "notebooks").mkdir()
    code = run_script.command_test(run_script.Args("test", ["-k", "em"]), root)
    assert code == 0
    assert [c[2] for c in calls] == ["ruff", "pytest"]
    assert calls[0][3:] == ["check", "."]
    pytest_cmd = calls[1]
    assert pytest_cmd[3:5] == ["tests", "notebooks"]
    # a cell's functional timeout: as patient as the browser's Run All of a whole notebook
    cell_timeout = f"--nbval-cell-timeout={3 * PATIENCE_S}"
    for arg in ("--nbval-lax", "--nbval-current-env", cell_timeout):
        assert arg in pytest_cmd
    assert pytest_cmd[pytest_cmd.index("--nbval-sanitize-with") + 1] == "tests/nbval_sanitize.cfg"
    assert pytest_cmd[pytest_cmd.index("-p") + 1] == "no:cacheprovider"
    assert pytest_cmd[-2:] == ["-k", "em"]
    assert codes["env:pytest"]["SSLVIZ_DATA"]  # so that the realdata tests run, not skip


@pytest.mark.parametrize("cores, expected", [
    (1, []), (0, []), (2, ["-n", "2", "--dist", "loadgroup"]),
    (16, ["-n", "4", "--dist", "loadgroup"]),
])
def test_one_pytest_worker_per_core_up_to_four(run_script, cores, expected):
    assert run_script.worker_args(cores) == expected
    cmd = run_script.pytest_command("py", ["-x"], cpu_count=cores)
    assert cmd[-1] == "-x"  # the user's arguments come last, so `-n 0` can switch workers off
    assert cmd[-1 - len(expected):-1] == expected


@pytest.mark.parametrize("extra, defaults", [
    (["-k", "em", "-x"], True), (["-m", "not slow"], True), (["-k", "tests"], True),
    (["tests/test_tuning.py", "-x"], False), (["notebooks/04_em_naive_bayes.ipynb"], False),
    (["tests/test_em.py::test_fit", "-n", "0"], False),
])
def test_named_test_paths_replace_the_default_folders(run_script, extra, defaults):
    cmd = run_script.pytest_command("py", extra, cpu_count=1)
    assert ("tests" in cmd[3:5]) is defaults  # the default folders come right after "-m pytest"
    assert cmd[-len(extra):] == extra


def test_test_command_without_a_notebooks_folder_runs_the_unit_tests(run_script, recorded):
    root, calls, _ = recorded
    assert run_script.command_test(run_script.Args("test", []), root) == 0
    assert "notebooks" not in calls[-1]


def test_test_command_fails_when_ruff_fails(run_script, recorded, capsys):
    root, calls, codes = recorded
    codes["ruff"] = 1
    assert run_script.command_test(run_script.Args("test", []), root) == 1
    assert [c[2] for c in calls] == ["ruff"]
    assert "ruff found problems" in capsys.readouterr().out


@pytest.mark.parametrize("pytest_code", [1, 5])
def test_test_command_propagates_pytest_exit_codes(run_script, recorded, capsys, pytest_code):
    root, _, codes = recorded
    codes["pytest"] = pytest_code
    assert run_script.command_test(run_script.Args("test", []), root) == pytest_code
    if pytest_code == 5:
        assert "no tests" in capsys.readouterr().out


def test_test_command_stops_with_2_when_data_is_missing(run_script, recorded, monkeypatch, capsys):
    root, calls, _ = recorded
    monkeypatch.setattr(run_script, "ensure_data", lambda python, root: ["senseval.zip"])
    assert run_script.command_test(run_script.Args("test", []), root) == 2
    assert calls == []
    out = capsys.readouterr().out
    assert "senseval.zip" in out and "SSLVIZ_DATA" in out


def test_test_command_refuses_notebooks_under_tests(run_script, recorded, capsys):
    root, calls, _ = recorded
    (root / "tests").mkdir()
    (root / "tests" / "stray.ipynb").write_text("{}")
    assert run_script.command_test(run_script.Args("test", []), root) == 2
    assert calls == []
    assert "stray.ipynb" in capsys.readouterr().out


def test_lab_command_opens_jupyterlab_even_without_data(run_script, recorded, monkeypatch, capsys):
    root, _, _ = recorded
    monkeypatch.setattr(run_script, "ensure_data", lambda python, root: ["webkb.tar.gz"])
    execs, chdirs = [], []
    monkeypatch.setattr(run_script.os, "execv", lambda path, argv: execs.append((path, argv)))
    monkeypatch.setattr(run_script.os, "chdir", chdirs.append)
    run_script.command_lab(run_script.Args("lab", ["--no-browser", "--port", "8899"]), root)
    out = capsys.readouterr().out
    assert "webkb.tar.gz" in out and "SSLVIZ_DATA" in out
    ((path, argv),) = execs
    assert Path(path) == root / ".venv" / "bin" / "jupyter"
    assert argv[1:7] == ["lab", "work/", "--LabApp.news_url=None", "--no-browser", "--port",
                         "8899"]
    assert chdirs == [root]
    overrides = root / ".venv/share/jupyter/lab/settings/overrides.d/sslviz.json"
    assert json.loads(overrides.read_text())["@jupyterlab/apputils-extension:notification"] == {
        "fetchNews": "false", "checkForUpdates": False}


# ---------------------------------------------------------------- files the commands rely on


def test_the_repository_has_no_notebooks_under_tests(run_script):
    assert run_script.notebooks_in_tests(ROOT) == []


def test_the_sanitize_file_hides_progress_bar_timings_and_ids():
    plugin = pytest.importorskip("nbval.plugin")
    text = (ROOT / "tests" / "nbval_sanitize.cfg").read_text()
    patterns = plugin.get_sanitize_patterns(text)
    assert len(patterns) >= 5

    def sanitize(s):
        import re

        for regex, replace in patterns:
            s = re.sub(regex, replace, s)
        return s

    a = "EM: 100%|##########| 10/10 [00:01<00:00,  9.87it/s]"
    b = "EM: 100%|##########| 10/10 [00:03<00:00,  3.12it/s]"
    assert sanitize(a) == sanitize(b)
    assert sanitize("0%|   | 0/10 [00:00<?, ?it/s]") == sanitize("0%|   | 0/10 [00:00<?, ?it/s]")
    assert sanitize("<Figure at 0x7f3a2b>") == sanitize("<Figure at 0x55ab01>")
    assert sanitize("model_id='" + "a" * 32 + "'") == sanitize("model_id='" + "b" * 32 + "'")
    assert sanitize("data:image/png;base64,iVBORw0K==") == sanitize("data:image/png;base64,AAAA")
    assert sanitize("accuracy 0.812") != sanitize("accuracy 0.813")  # results stay checked


def test_ci_script_points_sslviz_data_at_the_shared_folder_and_runs_the_tests():
    script = ROOT / ".ci" / "run"
    text = script.read_text()
    assert text.startswith("#!/usr/bin/env bash")
    assert "set -euo pipefail" in text
    assert '"$(dirname "$0")/../../shared/data"' in text
    assert text.rstrip().endswith("exec python3 run.py test")
    assert "apt-get update" in text
    assert "apt-get install -y chromium fonts-liberation" in text
    assert "export SSLVIZ_REQUIRE_BROWSER=1" in text
    assert script.stat().st_mode & 0o111, ".ci/run must be executable"
    bash = shutil.which("bash")
    if bash:
        assert subprocess.run([bash, "-n", str(script)]).returncode == 0


@pytest.mark.parametrize(
    ("path", "ignored"),
    [
        ("data/20news-bydate.tar.gz", True),
        ("data/cache/x.npz", True),
        ("data/README.md", False),
        (".venv/bin/python", True),
        ("notebooks/figures/a.png", True),
        ("notebooks/.ipynb_checkpoints/a-checkpoint.ipynb", True),
        ("sslviz.egg-info/PKG-INFO", True),
        ("sslviz/__pycache__/x.pyc", True),
        ("notebooks/01_what_is_ssl.ipynb", False),
        ("work/04_em_naive_bayes.ipynb", True),
        ("work/backups/04_em_naive_bayes-20260101-120000.ipynb", True),
        ("sslviz/work/x.py", False),
    ],
)
def test_gitignore(path, ignored):
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and a git checkout")
    result = subprocess.run(
        [git, "check-ignore", "--no-index", "-q", path], cwd=ROOT, capture_output=True
    )
    assert result.returncode == (0 if ignored else 1), result.stderr


def test_lab_command_allows_root_only_when_running_as_root(run_script):
    run = run_script
    assert run.lab_command("jupyter", ["--no-browser"], is_root=False) == [
        "jupyter", "lab", "work/", "--LabApp.news_url=None", "--no-browser"]
    assert run.lab_command("jupyter", [], is_root=True)[-1] == "--allow-root"
    assert run.lab_command("jupyter", ["--allow-root"], is_root=True).count("--allow-root") == 1


def test_browser_note_says_how_to_enable_the_browser_tests(run_script, tmp_path):
    fake = tmp_path / "chromium"
    fake.write_text("")
    assert run_script.browser_note({"SSLVIZ_CHROMIUM": str(fake)}) is None
    note = run_script.browser_note({"SSLVIZ_CHROMIUM": str(tmp_path / "none")})
    assert note.startswith(f"SSLVIZ_CHROMIUM={tmp_path / 'none'} is not a file")
    assert "will be SKIPPED" in note
    assert "sudo apt-get install chromium fonts-liberation" in note


def test_stage_clock_lists_each_stage_and_the_total(run_script, monkeypatch):
    ticks = iter([0.0, 1.5, 4.0, 124.0])
    monkeypatch.setattr(run_script.time, "perf_counter", lambda: next(ticks))
    clock = run_script.StageClock()
    for name in ("environment", "ruff", "pytest"):
        clock.lap(name)
    assert clock.summary() == ("stage times: environment 2 s, ruff 2 s, pytest 120 s "
                               "(total 2.1 min)")


def test_site_command_builds_the_site_with_the_extra_arguments(run_script, recorded):
    root, calls, codes = recorded
    assert run_script.parse_args(["site", "out"]).command == "site"
    assert run_script.command_site(run_script.Args("site", ["out"]), root) == 0
    assert calls == [[calls[0][0], "-m", "sslviz.site", "out"]]
    codes["sslviz.site"] = 2  # e.g. the MathJax package missing: its one-line error, then exit 2
    assert run_script.command_site(run_script.Args("site", []), root) == 2
