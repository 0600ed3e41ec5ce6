"""The runner on a Dask cluster (a LocalCluster of two worker processes): the same results and
cache as a local run, resume from the cache, and a job whose worker dies is run again."""

from __future__ import annotations

import contextlib
import http.server
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import PATIENCE_S

distributed = pytest.importorskip("distributed")
cloudpickle = pytest.importorskip("cloudpickle")

from sslviz.experiments.runner import run_jobs, use_scheduler  # noqa: E402

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers cannot import tests/

pytestmark = pytest.mark.slow


def noisy_square(*, data, seed, calls):
    """A seeded result; leaves one file per call in ``calls`` (to count computations)."""
    Path(calls, f"{seed}-{os.getpid()}-{np.random.default_rng().integers(1 << 30)}").touch()
    rng = np.random.default_rng(seed)
    return {"value": data * seed + rng.normal(size=3)}


def dies_once(*, data, seed, calls, marker):
    """Kill the worker process running job ``seed == 1`` the first time it runs."""
    if seed == 1 and not Path(marker).exists():
        Path(marker).touch()
        os._exit(1)
    return noisy_square(data=data, seed=seed, calls=calls)


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=50) as local:
        yield local


@pytest.fixture
def isolated(tmp_path):
    calls = tmp_path / "calls"
    calls.mkdir()
    return calls


def _run(function, calls, seeds, **extra):
    jobs = [{"seed": s} for s in seeds]
    return run_jobs(function, jobs, kind="cluster-test", key=lambda job: {"seed": job["seed"]},
                    shared={"data": np.arange(3.0), "calls": str(calls), **extra},
                    n_jobs=1, progress=False)


def test_a_cluster_run_equals_the_local_run_and_fills_the_same_cache(cluster, isolated,
                                                                       tmp_path, monkeypatch,
                                                                       result_cache):
    with use_scheduler(cluster):
        remote = _run(noisy_square, isolated, range(5))
    assert len(list(isolated.iterdir())) == 5
    monkeypatch.setenv("SSLVIZ_CACHE", str(tmp_path / "local-cache"))
    local = _run(noisy_square, isolated, range(5))
    for a, b in zip(remote, local, strict=True):
        np.testing.assert_array_equal(a["value"], b["value"])
    monkeypatch.setenv("SSLVIZ_CACHE", str(result_cache))
    again = _run(noisy_square, isolated, range(5))  # all from the cluster run's cache
    assert len(list(isolated.iterdir())) == 10
    assert all(np.array_equal(a["value"], b["value"]) for a, b in zip(again, remote, strict=True))


def test_a_cluster_run_resumes_from_the_cache(cluster, isolated):
    _run(noisy_square, isolated, [0, 1])
    with use_scheduler(cluster):
        _run(noisy_square, isolated, range(4))
    seeds = sorted(int(name.name.split("-")[0]) for name in isolated.iterdir())
    assert seeds == [0, 1, 2, 3]  # the cluster computed only the two missing jobs


def test_a_job_whose_worker_dies_runs_again_on_another(cluster, isolated, tmp_path):
    marker = tmp_path / "died"
    with use_scheduler(cluster) as client:
        results = _run(dies_once, isolated, range(4), marker=str(marker))
        client.wait_for_workers(2, timeout=PATIENCE_S)  # the nanny restarts the dead worker
    assert marker.exists()
    expected = [noisy_square(data=np.arange(3.0), seed=s, calls=str(tmp_path))["value"]
                for s in range(4)]
    for result, value in zip(results, expected, strict=True):
        np.testing.assert_array_equal(result["value"], value)


def test_without_dask_the_message_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    with pytest.raises(ImportError, match="pip install 'sslviz\\[cluster\\]'"):
        with use_scheduler("tcp://127.0.0.1:1"):
            pass


def test_the_experiments_command_runs_its_jobs_inside_the_scheduler(monkeypatch):
    import contextlib

    import sslviz.experiments.__main__ as command

    seen = []

    @contextlib.contextmanager
    def recording(address, **options):
        seen.append(address)
        assert options == {"lazy": True, "option": "--scheduler"}
        yield None

    monkeypatch.setattr(command.runner, "use_scheduler", recording)
    monkeypatch.setattr(command, "_run", lambda argv: seen.append(argv) or 0)
    assert command.main(["hybrid", "table", "--scheduler", "tcp://10.0.0.1:8786", "--sizes",
                         "8"]) == 0
    assert seen == ["tcp://10.0.0.1:8786", ["hybrid", "table", "--sizes", "8"]]


@pytest.mark.parametrize("argv", [["fisher-table", "--scheduler"],
                                  ["fisher-table", "--scheduler=localhost"]])
def test_a_scheduler_without_an_address_is_one_line(argv, capsys):
    import sslviz.experiments.__main__ as command

    assert command.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--scheduler needs a scheduler address" in err


# -- bounded waits (issue 32): a wrong address never hangs a command ----------------------------


class _SilentServer:
    """A TCP server that accepts connections and never says a word (counts them)."""

    def __init__(self):
        import socket

        self.socket = socket.create_server(("127.0.0.1", 0))
        self.accepted = []
        threading.Thread(target=self._accept, daemon=True).start()
        self.address = f"tcp://127.0.0.1:{self.socket.getsockname()[1]}"

    def _accept(self):
        with contextlib.suppress(OSError):
            while True:
                self.accepted.append(self.socket.accept()[0])

    def close(self):
        for connection in self.accepted:
            connection.close()
        self.socket.close()


class _QuietHTTPHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(params=["silent", "http"])
def not_a_scheduler(request):
    """A port where something listens that is not a Dask scheduler: silent, or an HTTP server."""
    if request.param == "silent":
        server = _SilentServer()
        yield server.address
        server.close()
        return
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _QuietHTTPHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"tcp://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


BOUND_S = 2.0


def test_something_that_is_not_a_scheduler_ends_within_the_bound(not_a_scheduler, monkeypatch):
    from sslviz.experiments import runner

    monkeypatch.setattr(runner, "CONNECT_TIMEOUT_S", BOUND_S)
    start = time.perf_counter()
    with pytest.raises(runner.SchedulerError, match=(
            f"^the scheduler address {not_a_scheduler}: no Dask scheduler completed the "
            r"handshake within 2 s \(no answer\); check the address")):
        with use_scheduler(not_a_scheduler):
            pass
    assert time.perf_counter() - start < BOUND_S + 3


CLI_RUN = """
import sys
from sslviz.experiments import __main__ as command, runner
runner.CONNECT_TIMEOUT_S = {bound}
command._run = lambda argv: runner.run_jobs(runner._same, [{{"value": 1.0}}], kind="probe",
                                            key=lambda job: job, use_cache=False, progress=False)
raise SystemExit(command.main(sys.argv[1:]))
"""


def test_the_command_ends_with_one_line_and_no_traceback_after(not_a_scheduler, tmp_path):
    env = {**os.environ, "SSLVIZ_CACHE": str(tmp_path)}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CLI_RUN.format(bound=BOUND_S), "hybrid",
                           "--scheduler", not_a_scheduler], capture_output=True, text=True,
                          env=env, timeout=PATIENCE_S)
    took = time.perf_counter() - start
    assert done.returncode == 2, done.stderr
    assert done.stderr == (f"error: --scheduler {not_a_scheduler}: no Dask scheduler completed "
                           "the handshake within 2 s (no answer); check the address (e.g. "
                           "tcp://host:8786) and that `dask scheduler` runs there\n")
    assert took < BOUND_S + 30  # the interpreter's start and imports, then the bound


def test_the_commands_own_arguments_are_checked_before_connecting(tmp_path):
    server = _SilentServer()
    try:
        done = subprocess.run([sys.executable, "-m", "sslviz.experiments", "fisher-table",
                               "--scheduler", server.address, "--no-such-option"],
                              capture_output=True, text=True, timeout=PATIENCE_S,
                              env={**os.environ, "SSLVIZ_CACHE": str(tmp_path)})
        assert done.returncode == 2
        assert "--no-such-option" in done.stderr and done.stderr.count("\n") == 1
        assert server.accepted == []  # nothing connected to the scheduler's address
    finally:
        server.close()


def test_a_lazy_scheduler_connects_only_when_a_job_is_computed(monkeypatch):
    from sslviz.experiments import runner

    monkeypatch.setattr(runner, "CONNECT_TIMEOUT_S", BOUND_S)
    server = _SilentServer()
    try:
        with use_scheduler(server.address, lazy=True, option="--scheduler") as client:
            assert client is None
            time.sleep(0.2)
            assert server.accepted == []
            with pytest.raises(runner.SchedulerError, match=f"^--scheduler {server.address}: "):
                runner.run_jobs(runner._same, [{"value": 1.0}], kind="probe",
                                key=lambda job: job, use_cache=False, progress=False)
        assert len(server.accepted) >= 1
    finally:
        server.close()


@pytest.mark.parametrize("address", ["tcp://host:notaport", "http://host:8786", "tcp://:8786",
                                     "host:8786", "tcp://host:99999", "tcp://host:8786/path",
                                     "tcp://host:0"])
def test_a_malformed_scheduler_address_is_one_line_at_once(address, capsys):
    import sslviz.experiments.__main__ as command

    start = time.perf_counter()
    assert command.main(["fisher-table", "--scheduler", address]) == 2
    assert time.perf_counter() - start < 1
    err = capsys.readouterr().err
    assert err == (f"error: --scheduler needs a scheduler address such as tcp://host:8786 "
                   f"(tcp/tls/ws/wss/ucx://host[:port]), got {address!r}\n")
