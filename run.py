#!/usr/bin/env python3
"""The commands of sslviz. Standard library only; Python 3.10+ on Linux or macOS.

    python3 run.py lab  [--reset NN] [jupyter lab options]
                                                set up .venv and the data, open your copy of the
                                                lectures (work/; --reset NN: a fresh lecture NN)
    python3 run.py test [pytest options]        set up .venv and the data, run ruff and all tests
    python3 run.py site [sslviz.site options]   set up .venv, build the lecture site (build/site)

Each command first makes sure the environment exists: ``.venv`` beside this file (or the folder
named by ``SSLVIZ_VENV``) is created with the ``venv`` module of the Python running this script, and
``pip install -e .[lab]`` (``lab``) or ``.[test]`` (``test``: the classroom and the test tools) runs
only when ``pyproject.toml`` changed since the last install or an extra is missing (its sha256 and
the extras are kept in ``<venv>/.sslviz-stamp``), so a second start skips pip entirely. Nothing is
registered globally: JupyterLab runs from the environment and uses its own kernel.

``lab`` opens JupyterLab on ``work/``, the student's own copy of the lectures (git-ignored): each
lecture of ``notebooks/`` is copied there the first time it is missing and never overwritten, so
running and saving a lecture never changes a tracked file and ``git pull`` never conflicts.
``--reset NN`` moves lecture NN's copy to ``work/backups/`` and copies the lecture afresh. The
environment's JupyterLab gets defaults that keep the news and update checks off
(``share/jupyter/lab/settings/overrides.d/sslviz.json`` in the environment; the user's own
settings still win and are not touched).

Then the corpora the notebooks need are fetched (``python -m sslviz.datasets fetch ...``). Files
already in ``SSLVIZ_DATA`` (or ``data/``) are not downloaded again. Without internet, ``lab`` says
which files are missing and opens JupyterLab anyway; ``test`` stops with exit code 2.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

MIN_PYTHON = (3, 10)
ROOT = Path(__file__).resolve().parent
LECTURE_DATA = ("--lectures",)  # every corpus a lecture loads (sslviz.lectures)
PYTEST_ARGS = (
    "-rs",  # list skipped tests with their reason (e.g. browser tests without Chromium)
    "--nbval-lax",
    "--nbval-current-env",
    "--nbval-sanitize-with",
    "tests/nbval_sanitize.cfg",
    "--nbval-cell-timeout=1800",  # a cold cell (06's Table 1 grid) takes minutes on a busy machine
    "-p",
    "no:cacheprovider",
)
CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
EXIT_NO_DATA = 2
PYTEST_NO_TESTS = 5
# pyproject.toml's [test] extra includes [lab] (the notebooks run under nbval and in JupyterLab)
# and [site] (the site's browser test).
EXTRAS_INCLUDED = {"test": ("lab", "site")}
MAX_WORKERS = 4  # each worker that meets a browser test starts its own JupyterLab

USAGE = """\
usage: python3 run.py {lab,test,site} [extra arguments]

  lab    create/update the environment (.venv), fetch the corpora, open JupyterLab on work/,
         your own copy of the lectures (made from notebooks/ on first start, never overwritten;
         git ignores it). --reset NN: put lecture NN's copy in work/backups/ and start it afresh
         (e.g. --reset 04). Other arguments go to `jupyter lab` (e.g. --no-browser --port 8890).
  test   create/update the environment, check the corpora, run `ruff check .` and one pytest run
         over tests/ and notebooks/ (nbval). Extra arguments go to pytest (e.g. -k em -x).
  site   create/update the environment, render the committed notebooks into a static site,
         offline (build/site/index.html; nothing is executed). Extra arguments go to
         `python -m sslviz.site` (e.g. an output folder).

environment variables:
  SSLVIZ_VENV   where the environment lives (default: .venv beside run.py)
  SSLVIZ_DATA   folder that holds the corpora (default: data/ beside run.py)
  SSLVIZ_CHROMIUM  the Chromium the browser tests drive (default: /usr/bin/chromium)
"""


def say(message):
    """One progress line, flushed at once (subprocesses write to the same terminal)."""
    print(f"[sslviz] {message}", flush=True)


class Args:
    """The parsed command line: ``command`` and the arguments passed through unchanged."""

    def __init__(self, command, extra):
        self.command = command
        self.extra = list(extra)

    def __repr__(self):
        return f"Args(command={self.command!r}, extra={self.extra!r})"


class UsageError(Exception):
    pass


def parse_args(argv):
    """Split ``argv`` (without the program name) into the command and the pass-through arguments.

    Everything after the command goes unchanged to ``jupyter lab`` or ``pytest``, including ``-h``
    and ``--``. ``run.py -h`` / ``--help`` / ``help`` return ``Args("help", [])``.
    """
    argv = list(argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        return Args("help", [])
    command, extra = argv[0], argv[1:]
    if command not in ("lab", "test", "site"):
        raise UsageError(f"unknown command {command!r}; choose 'lab', 'test' or 'site'")
    return Args(command, extra)


# ---------------------------------------------------------------- the environment


def venv_dir(root=ROOT, environ=None):
    """``$SSLVIZ_VENV`` (relative paths are taken from the current folder) or ``<root>/.venv``."""
    environ = os.environ if environ is None else environ
    override = environ.get("SSLVIZ_VENV")
    if override:
        return Path(override).expanduser().resolve()
    return Path(root) / ".venv"


def venv_bin(venv, program):
    """Path of ``program`` inside the environment (``bin/`` on POSIX, ``Scripts\\`` on Windows)."""
    if os.name == "nt":
        return Path(venv) / "Scripts" / f"{program}.exe"
    return Path(venv) / "bin" / program


def stamp_path(venv):
    return Path(venv) / ".sslviz-stamp"


def stamp_text(root=ROOT, extras=("test",)):
    """What the stamp holds: ``sha256sum``-style line of pyproject.toml (digest, two spaces, path),
    then the extras installed (``extras: lab,test``).

    The path is part of it so that an environment shared via SSLVIZ_VENV by two clones is
    reinstalled for the clone that uses it (``-e .`` points at one folder only).
    """
    pyproject = Path(root) / "pyproject.toml"
    digest = hashlib.sha256(pyproject.read_bytes()).hexdigest()
    return f"{digest}  {pyproject.resolve()}\nextras: {','.join(sorted(set(extras)))}\n"


def installed_extras(venv, root=ROOT):
    """The extras the stamp records for the current pyproject.toml (empty set: reinstall)."""
    try:
        first, second = stamp_path(venv).read_text(encoding="utf-8").splitlines()[:2]
    except (OSError, ValueError):
        return set()
    if first + "\n" != stamp_text(root).splitlines(keepends=True)[0]:
        return set()
    names = {n for n in second.removeprefix("extras: ").split(",") if n}
    return names | {implied for name in names for implied in EXTRAS_INCLUDED.get(name, ())}


def needs_install(venv, root=ROOT, extras=("test",)):
    """True when the environment has no Python yet, no stamp, a stamp of another pyproject, or
    lacks one of ``extras``."""
    if not venv_bin(venv, "python").exists():
        return True
    have = installed_extras(venv, root)
    return not have or not set(extras) <= have


def write_stamp(venv, root=ROOT, extras=("test",)):
    """Record that ``pip install -e .[extras]`` succeeded for the current pyproject.toml."""
    target = stamp_path(venv)
    tmp = target.with_name(target.name + ".part")
    tmp.write_text(stamp_text(root, extras), encoding="utf-8")
    os.replace(tmp, target)


def run(cmd, **kwargs):
    """Run a command, return its exit code (it inherits stdin/stdout/stderr)."""
    return subprocess.run([str(c) for c in cmd], **kwargs).returncode


def ensure_environment(root=ROOT, venv=None, extras=("test",)):
    """Create the environment if missing; install the project with ``extras`` (``lab``: the
    classroom, ``test``: the classroom and the test tools) if pyproject.toml changed or an extra
    is missing. Extras installed before for the same pyproject.toml are kept.

    Returns the environment's Python. Exits with pip's or venv's exit code when a step fails.
    """
    venv = venv_dir(root) if venv is None else Path(venv)
    python = venv_bin(venv, "python")
    shown = _shown(venv, root)
    pip = [python, "-m", "pip", "--disable-pip-version-check"]
    created = not python.exists()
    if created:
        say(f"creating environment {shown} ...")
        code = run([sys.executable, "-m", "venv", venv])
        if code == 0:
            # Editable installs from pyproject.toml alone need pip >= 21.3; Python 3.10 ships older.
            say("updating pip inside the environment ...")
            code = run([*pip, "install", "--quiet", "--upgrade", "pip"], cwd=root)
        if code != 0:
            say(
                f"could not set up {shown} with {sys.executable} -m venv (exit code {code}). "
                "On Debian/Ubuntu install the python3-venv package; or point SSLVIZ_VENV elsewhere."
            )
            sys.exit(code)
    if needs_install(venv, root, extras):
        had = installed_extras(venv, root) if not created else set()
        why = "first install" if created else ("pyproject.toml changed" if not had
                                               else "new extras")
        wanted = set(extras) | had
        wanted = sorted(wanted - {i for n in wanted for i in EXTRAS_INCLUDED.get(n, ())})
        say(f"installing sslviz and its dependencies into {shown} ({why}; 1-6 minutes) ...")
        code = run([*pip, "install", "-e", f".[{','.join(wanted)}]"], cwd=root)
        if code != 0:
            say(f"pip failed (exit code {code}); fix the message above and run this again.")
            sys.exit(code)
        write_stamp(venv, root, wanted)
    else:
        say(f"environment {shown} is up to date")
    return python


def _shown(path, root=ROOT):
    try:
        return str(Path(path).relative_to(root))
    except ValueError:
        return str(path)


# ---------------------------------------------------------------- the data


def missing_data_message(missing, data_dir=None):
    """Explain which corpus files are missing and how to point SSLVIZ_DATA at them.

    Parameters
    ----------
    missing : list of str
        File names the datasets registry expects (may be empty if they could not be listed).
    data_dir : str or Path, optional
        Where they were looked for.
    """
    where = f" in {data_dir}" if data_dir else ""
    lines = [f"these data files are missing{where} and could not be downloaded:"]
    if missing:
        lines += [f"    {name}" for name in missing]
    else:
        lines.append("    (see the messages of `python -m sslviz.datasets fetch` above)")
    lines += [
        "Download them on a machine with internet (the official addresses are in data/README.md),",
        "or copy them from a colleague, into one folder and tell sslviz where it is:",
        "    SSLVIZ_DATA=/folder/that/holds/them python3 run.py lab",
        "    SSLVIZ_DATA=/folder/that/holds/them python3 run.py test",
        "(or `export SSLVIZ_DATA=/folder/that/holds/them` once in your shell profile).",
    ]
    return "\n".join(lines)


def ensure_data(python, root=ROOT, datasets=LECTURE_DATA):
    """Fetch the corpora the notebooks need.

    Returns None when every file is present, else the list of missing file names (empty when they
    could not be listed).

    Contract with ``sslviz.datasets``: ``python -m sslviz.datasets fetch --lectures`` exits 0
    when every file of the datasets the lectures load (``sslviz.lectures``) is present (found or
    downloaded and checked) and non-zero otherwise; ``python -m sslviz.datasets missing
    --lectures`` prints the missing files, one per line. If the second command is not
    available, the missing list stays empty and the message refers to the fetch output.
    """
    say("checking the lectures' data files ...")
    code = run([python, "-m", "sslviz.datasets", "fetch", *datasets], cwd=root)
    if code == 0:
        return None
    listed = subprocess.run(
        [str(python), "-m", "sslviz.datasets", "missing", *datasets],
        cwd=root,
        capture_output=True,
        text=True,
    )
    missing = []
    if listed.returncode in (0, 1):
        missing = [line.strip() for line in listed.stdout.splitlines() if line.strip()]
    return missing


def data_folder(root=ROOT, environ=None):
    """``$SSLVIZ_DATA``, else ``<root>/data`` (the default of sslviz.datasets in a checkout)."""
    environ = os.environ if environ is None else environ
    return environ.get("SSLVIZ_DATA") or str(Path(root) / "data")


def pytest_environ(root=ROOT, environ=None):
    """The environment for pytest: ``SSLVIZ_DATA`` always set, so the ``realdata`` tests run, and
    ``SSLVIZ_STRICT_CLAIMS=1``, so a lecture's claim that does not hold fails its cell."""
    env = dict(os.environ if environ is None else environ)
    env["SSLVIZ_DATA"] = data_folder(root, env)
    env["SSLVIZ_STRICT_CLAIMS"] = "1"
    return env


# ---------------------------------------------------------------- the browser


def find_chromium(environ=None):
    """``$SSLVIZ_CHROMIUM`` if it is a file, else the system Chromium, else None.

    ``tests/browser/lab.py`` calls this too, so the note and the tests agree.
    """
    environ = os.environ if environ is None else environ
    chosen = environ.get("SSLVIZ_CHROMIUM")
    if chosen:
        return chosen if Path(chosen).is_file() else None
    found = next((path for path in CHROMIUM_CANDIDATES if Path(path).is_file()), None)
    return found or shutil.which("chromium")


def browser_note(environ=None):
    """What to tell the user before the tests when the browser tests cannot run (else None)."""
    environ = os.environ if environ is None else environ
    if find_chromium(environ):
        return None
    wanted = environ.get("SSLVIZ_CHROMIUM")
    problem = f"SSLVIZ_CHROMIUM={wanted} is not a file" if wanted else "Chromium was not found"
    return (
        f"{problem}: the browser tests (tests/browser, JupyterLab in a real browser) will be "
        "SKIPPED.\n    To run them, install Chromium from your distribution, e.g.\n"
        "        sudo apt-get install chromium fonts-liberation\n"
        "    or point SSLVIZ_CHROMIUM at a Chromium/Chrome binary. (Never `playwright install`.)"
    )


# ---------------------------------------------------------------- the commands


def notebooks_in_tests(root=ROOT):
    """Notebooks under tests/ (nbval must only collect notebooks/, so there must be none)."""
    return sorted(p for p in (Path(root) / "tests").rglob("*.ipynb"))


def worker_args(cpu_count=None):
    """pytest-xdist arguments: one worker per core, at most ``MAX_WORKERS``; none on one core.

    ``--dist loadgroup``: the tests of one notebook (its nbval cells, its browser tests) share a
    group (``tests/conftest.py``), so they run in order on one worker and only the first of
    them meets a cold cache.
    """
    cpu_count = os.cpu_count() if cpu_count is None else cpu_count
    workers = min(cpu_count or 1, MAX_WORKERS)
    return ["-n", str(workers), "--dist", "loadgroup"] if workers > 1 else []


def names_a_test_path(arg):
    """Whether an extra argument names tests by path (``tests/test_em.py``, ``notebooks/``,
    ``tests/test_em.py::test_x``), not an option or an option's value such as ``-k em``."""
    return not arg.startswith("-") and ("/" in arg or arg.endswith((".py", ".ipynb")))


def pytest_command(python, extra, root=ROOT, cpu_count=None):
    """The single pytest run: unit tests and, if the folder exists, the notebooks (nbval); only
    the paths the user named, if the extra arguments name any."""
    paths = ["tests"]
    if (Path(root) / "notebooks").is_dir():
        paths.append("notebooks")
    if any(names_a_test_path(arg) for arg in extra):
        paths = []
    return [str(python), "-m", "pytest", *paths, *PYTEST_ARGS, *worker_args(cpu_count), *extra]


def lab_command(jupyter, extra, *, is_root=None):
    """``jupyter lab work/ ...`` without the news feed; as root (containers, classroom VMs) add
    ``--allow-root``, without which JupyterLab refuses to start."""
    if is_root is None:
        is_root = hasattr(os, "geteuid") and os.geteuid() == 0
    cmd = [str(jupyter), "lab", f"{WORK}/", "--LabApp.news_url=None", *extra]
    if is_root and "--allow-root" not in extra:
        cmd.append("--allow-root")
    return cmd


# ---------------------------------------------------------------- the student's copy

WORK = "work"  # git-ignored (.gitignore): the lectures as the student runs and saves them
BACKUPS = "backups"
LAB_DEFAULTS = {  # JupyterLab's defaults in the environment: no news toast, no update check
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false",
                                                    "checkForUpdates": False},
}


def lab_options(extra):
    """Split ``run.py lab``'s arguments into the lectures to reset (``--reset NN``, repeatable)
    and the arguments for ``jupyter lab``."""
    resets, rest, extra = [], [], list(extra)
    while extra:
        arg = extra.pop(0)
        if arg == "--reset":
            if not extra or extra[0].startswith("-"):
                raise UsageError("--reset needs a lecture number, e.g. --reset 04")
            resets.append(extra.pop(0))
        elif arg.startswith("--reset="):
            resets.append(arg.split("=", 1)[1])
        else:
            rest.append(arg)
    return resets, rest


def lecture_file(name, root=ROOT):
    """The lecture of ``notebooks/`` that ``name`` means: its number (``04`` or ``4``), its
    file name or its name without ``.ipynb``."""
    lectures = sorted((Path(root) / "notebooks").glob("*.ipynb"))
    wanted = name.removesuffix(".ipynb")
    number = wanted.zfill(2) if wanted.isdigit() else None
    found = [path for path in lectures
             if path.stem == wanted or (number and path.stem.startswith(number + "_"))]
    if len(found) != 1:
        numbers = ", ".join(path.stem.split("_")[0] for path in lectures)
        raise UsageError(f"--reset {name}: no lecture has that number or name; give one of "
                         f"{numbers} (e.g. --reset 04)")
    return found[0]


def prepare_work(root=ROOT):
    """Copy into ``work/`` each lecture it lacks (a new one after ``git pull`` too); never
    overwrite a copy. Returns the names copied."""
    work = Path(root) / WORK
    work.mkdir(exist_ok=True)
    copied = []
    for lecture in sorted((Path(root) / "notebooks").glob("*.ipynb")):
        if not (work / lecture.name).exists():
            shutil.copy2(lecture, work / lecture.name)
            copied.append(lecture.name)
    return copied


def reset_lecture(lecture, root=ROOT, stamp=None):
    """Move ``work/``'s copy of ``lecture`` (a path in notebooks/) to ``work/backups/`` and copy
    the lecture afresh; returns the backup's path (``None`` when there was no copy, or it was
    still the lecture as it is)."""
    work = Path(root) / WORK
    target = work / lecture.name
    backup = None
    if target.is_file() and target.read_bytes() == lecture.read_bytes():
        return None
    if target.exists():
        stamp = stamp or time.strftime("%Y%m%d-%H%M%S")
        (work / BACKUPS).mkdir(parents=True, exist_ok=True)
        backup = work / BACKUPS / f"{lecture.stem}-{stamp}.ipynb"
        n = 1
        while backup.exists():
            n += 1
            backup = backup.with_name(f"{lecture.stem}-{stamp}-{n}.ipynb")
        os.replace(target, backup)
    work.mkdir(exist_ok=True)
    shutil.copy2(lecture, target)
    return backup


def write_lab_defaults(settings_dir):
    """Write :data:`LAB_DEFAULTS` to ``settings_dir/overrides.d/sslviz.json``: JupyterLab's
    defaults for this environment, in a file of our own (an ``overrides.json`` and the user's
    settings still take precedence)."""
    path = Path(settings_dir) / "overrides.d" / "sslviz.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(LAB_DEFAULTS, indent=2) + "\n", encoding="utf-8")
    return path


def command_lab(args, root=ROOT):
    resets, extra = lab_options(args.extra)
    lectures = [lecture_file(name, root) for name in resets]  # a typo stops before any setup
    python = ensure_environment(root, extras=("lab",))
    missing = ensure_data(python, root)
    if missing is not None:
        say(missing_data_message(missing, data_folder(root)))
        say("opening JupyterLab anyway; notebooks that need these files will stop with an error.")
    copied = prepare_work(root)
    if copied:
        say(f"copied {len(copied)} lecture(s) into {WORK}/, your own copy (git ignores it)")
    for lecture in lectures:
        backup = reset_lecture(lecture, root)
        kept = f"; your copy is kept as {_shown(backup, root)}" if backup else ""
        say(f"{WORK}/{lecture.name} is fresh from notebooks/{kept}")
    venv = python.parent.parent
    write_lab_defaults(venv / "share" / "jupyter" / "lab" / "settings")
    cmd = lab_command(venv_bin(venv, "jupyter"), extra)
    say("starting " + " ".join(cmd[1:]) + " (stop with Ctrl-C) ...")
    os.chdir(root)
    os.execv(cmd[0], cmd)


def command_site(args, root=ROOT):
    """Build the lecture site from the committed notebooks (no data and no kernel needed)."""
    python = ensure_environment(root, extras=("site",))
    say("building the lecture site (nbconvert; the notebooks are not executed) ...")
    code = run([python, "-m", "sslviz.site", *args.extra], cwd=root)
    if code == 0:
        say("open the index.html named above in a browser (it works offline).")
    return code


class StageClock:
    """Wall time of each stage of a command, printed at the end."""

    def __init__(self):
        self.stages = []
        self._start = time.perf_counter()

    def lap(self, name):
        now = time.perf_counter()
        self.stages.append((name, now - self._start))
        self._start = now

    def summary(self):
        total = sum(seconds for _, seconds in self.stages)
        parts = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in self.stages)
        return f"stage times: {parts} (total {total / 60:.1f} min)"


def command_test(args, root=ROOT):
    clock = StageClock()
    try:
        return _test_stages(args, root, clock)
    finally:
        if clock.stages:
            say(clock.summary())


def _test_stages(args, root, clock):
    python = ensure_environment(root)
    clock.lap("environment")
    missing = ensure_data(python, root)
    clock.lap("data check")
    if missing is not None:
        say(missing_data_message(missing, data_folder(root)))
        return EXIT_NO_DATA
    stray = notebooks_in_tests(root)
    if stray:
        say("notebooks found under tests/ (nbval would run them); move them to notebooks/:")
        for path in stray:
            print(f"    {_shown(path, root)}")
        return 2
    say("ruff check . ...")
    code = run([python, "-m", "ruff", "check", "."], cwd=root)
    clock.lap("ruff")
    if code != 0:
        say(f"ruff found problems (exit code {code}); `ruff check --fix .` repairs many of them.")
        return code
    note = browser_note()
    if note:
        say(note)
    cmd = pytest_command(python, args.extra, root)
    say("running " + " ".join(cmd[2:]) + " ...")
    code = run(cmd, cwd=root, env=pytest_environ(root))
    clock.lap("pytest")
    if code == PYTEST_NO_TESTS:
        say("pytest collected no tests (exit code 5): that is a failure here; check the arguments.")
    elif code != 0:
        say(f"tests failed (pytest exit code {code}).")
    else:
        say("all checks passed.")
    return code


def main(argv=None):
    if sys.version_info < MIN_PYTHON:
        found = ".".join(map(str, sys.version_info[:3]))
        sys.stderr.write(
            f"[sslviz] Python {found} is too old: sslviz needs Python 3.10 or newer. "
            "Run this script with a newer python3 (e.g. python3.11 run.py ...).\n"
        )
        return 1
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
    except UsageError as error:
        sys.stderr.write(f"run.py: error: {error} (python3 run.py --help)\n")
        return 2
    if args.command == "help":
        print(USAGE, end="")
        return 0
    try:
        if args.command == "lab":
            return command_lab(args)
        if args.command == "site":
            return command_site(args)
        return command_test(args)
    except UsageError as error:  # e.g. --reset of a lecture that does not exist
        sys.stderr.write(f"run.py: error: {error} (python3 run.py --help)\n")
        return 2
    except KeyboardInterrupt:
        say("interrupted.")
        return 130
    except OSError as error:  # e.g. an unwritable SSLVIZ_VENV or a missing pyproject.toml
        sys.stderr.write(f"run.py: error: {error}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
