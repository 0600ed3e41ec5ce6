"""A throw-away JupyterLab server and a headless Chromium for the browser tests.

The server runs on a free loopback port with a random token, in a temporary folder that holds a
copy of ``notebooks/`` with every output stripped. Its own settings folder turns autosave off (the
run never writes into the repository, and the copies are never saved either), shows every cell
(no virtual scrolling, so that all explorers are in the page) and turns off the news and update
checks, which would try the network. Exported figures go to a folder of the test run
(``SSLVIZ_FIGURES``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import nbformat
from helpers import PATIENCE_S

ROOT = Path(__file__).resolve().parents[2]

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]
ENABLE_HINT = (
    "install Chromium from your distribution (Debian/Ubuntu: "
    "`sudo apt-get install chromium fonts-liberation`) or point SSLVIZ_CHROMIUM at a "
    "Chromium/Chrome binary; never `playwright install`"
)
LAB_SETTINGS = {
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}

CLOSE_ALL_JS = """() => {
    const app = window.jupyterapp;
    if (!app) { return 0; }
    const open = [...app.shell.widgets('main')];
    for (const widget of open) {
        if (widget.context) { widget.context.model.dirty = false; }  // closes without asking
        widget.close();
    }
    return open.length;
}"""
IDLE_APP_JS = """() => !!window.jupyterapp && !document.querySelector('.jp-NotebookPanel')
    && !document.querySelector('.jp-Dialog')"""


def _run_script():
    """``run.py`` as a module: it decides, before pytest starts, whether the browser tests run."""
    spec = importlib.util.spec_from_file_location("sslviz_run_script", ROOT / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def find_chromium(environ=None):
    """Path of the Chromium to drive: ``$SSLVIZ_CHROMIUM``, else the system one, else None."""
    return _run_script().find_chromium(environ)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def copy_stripped(source, target):
    """Copy every notebook of ``source`` into ``target`` without outputs; return the names."""
    target.mkdir(parents=True, exist_ok=True)
    names = []
    for path in sorted(Path(source).glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        for cell in notebook.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        notebook.metadata.pop("widgets", None)
        nbformat.write(notebook, target / path.name)
        names.append(path.name)
    return names


def write_settings(folder, more=None):
    for name, values in {**LAB_SETTINGS, **(more or {})}.items():
        path = Path(folder) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values), encoding="utf-8")


@dataclass
class LabServer:
    """A running ``jupyter lab``: its address, token, folders and process."""

    url: str
    token: str
    root: Path
    figures: Path
    process: subprocess.Popen
    log: Path

    def page(self, path, *flags):
        """Address of ``path`` with the token (and flags such as ``reset``) in the query."""
        return f"{self.url}/{path}?{'&'.join([*flags, f'token={self.token}'])}"

    def api(self, path, method="GET", body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.url}/api/{path}", data=data, method=method,
                                         headers={"Authorization": f"token {self.token}",
                                                  "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=PATIENCE_S / 5) as response:
            body = response.read()
        return json.loads(body) if body else None

    def close_documents(self, page):
        """Close every document open in the JupyterLab of ``page`` unsaved (no dialog); the page
        stays loaded for the next test, which opens its notebook in it (:meth:`open`)."""
        if page.evaluate(CLOSE_ALL_JS):
            page.wait_for_function("() => !document.querySelector('.jp-NotebookPanel')")

    def open(self, page, path, workspace):
        """Open notebook ``path`` in ``page``: in the JupyterLab already loaded there when a test
        left it with no document open (no second load of the application), else by loading
        JupyterLab in a workspace of its own, reset (it would reopen earlier tests' notebooks).
        The notebook's kernel is started first, as JupyterLab would start it (a session of the
        path), so that it starts while the page loads; JupyterLab joins that session."""
        self.api("sessions", method="POST", body={"path": path, "name": path, "type": "notebook",
                                                  "kernel": {"name": "python3"}})
        if page.url.startswith(self.url) and page.evaluate(IDLE_APP_JS):
            page.evaluate("path => window.jupyterapp.commands.execute('docmanager:open', "
                          "{path})", path)
        else:
            page.goto(self.page(f"lab/workspaces/{workspace}/tree/{path}", "reset"))

    def shutdown_kernels(self):
        """Stop every kernel (one notebook's kernel must not slow down the next one)."""
        for session in self.api("sessions"):
            self.api(f"sessions/{session['id']}", method="DELETE")

    def stop(self):
        """Stop the server: SIGTERM, which it always handles by shutting down (a SIGINT is
        ignored where the test run was started in the background, and it was killed after the
        grace period)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)  # a grace period: then kill
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_lab(notebooks, workdir, environ=None, timeout=PATIENCE_S, *, python=None, settings=None):
    """Start JupyterLab on a stripped copy of ``notebooks``; wait until its API answers.

    ``python``: the environment's interpreter that runs JupyterLab and its kernels (default: this
    one); ``settings``: more user settings (``{"<plugin file>": {...}}``) beside the defaults.
    """
    workdir = Path(workdir)
    root, figures = workdir / "notebooks", workdir / "figures"
    copy_stripped(notebooks, root)
    more_settings, settings = settings, workdir / "settings"
    write_settings(settings, more_settings)
    figures.mkdir(parents=True, exist_ok=True)
    port, token = free_port(), secrets.token_hex(16)
    env = dict(os.environ if environ is None else environ)
    env["SSLVIZ_FIGURES"] = str(figures)
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(workdir / "workspaces")
    log = workdir / "jupyter-lab.log"
    command = [
        str(python or sys.executable), "-m", "jupyter", "lab", "--no-browser", "--allow-root",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
        f"--LabApp.user_settings_dir={settings}",
        f"--LabApp.workspaces_dir={workdir / 'workspaces'}",
        "--LabApp.news_url=", "--ServerApp.disable_check_xsrf=False",
        "--LabApp.expose_app_in_browser=True",  # window.jupyterapp: the tests open and close files
    ]
    with open(log, "wb") as stream:
        process = subprocess.Popen(command, cwd=root, env=env, stdout=stream,
                                   stderr=subprocess.STDOUT)
    server = LabServer(f"http://127.0.0.1:{port}", token, root, figures, process, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with code {process.returncode}; see {log}:\n"
                               + log.read_text(errors="replace")[-3000:])
        try:
            server.api("status")
            return server
        except (urllib.error.URLError, ConnectionError, OSError):
            time.sleep(0.3)
    server.stop()
    raise RuntimeError(f"jupyter lab did not answer within {timeout} s; see {log}")
