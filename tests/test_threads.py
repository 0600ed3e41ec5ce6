"""One BLAS thread for the package's work, whoever runs it: jobs, work ahead, nested holders."""

from __future__ import annotations

import threading

import numpy as np
from threadpoolctl import threadpool_info

from sslviz.experiments.runner import run_jobs
from sslviz.threads import holders, one_thread
from sslviz.widgets.ahead import BackgroundWork, IdleWork


def blas_threads():
    """The thread counts of the BLAS libraries loaded in this process."""
    return sorted({pool["num_threads"] for pool in threadpool_info()
                   if pool["user_api"] == "blas"})


def threads_in_job(n):
    """A job: the BLAS thread counts it ran with."""
    np.ones((n, n)) @ np.ones((n, n))  # loads the BLAS
    return {"threads": np.array(blas_threads())}


def test_a_job_runs_with_one_blas_thread_in_the_kernel_and_in_a_worker_process():
    before = blas_threads()
    for n_jobs in (1, 2):
        results = run_jobs(threads_in_job, [{"n": 8}, {"n": 9}], kind="threads", use_cache=False,
                           key=lambda job: {"n": job["n"], "n_jobs": n_jobs}, n_jobs=n_jobs,
                           progress=False)
        assert [r["threads"].tolist() for r in results] == [[1], [1]]
    assert blas_threads() == before and holders() == 0  # the kernel's own limits come back


def test_the_limit_lasts_until_the_last_holder_leaves_whichever_thread_holds_it():
    entered, leave, inside = threading.Event(), threading.Event(), []

    def background():
        with one_thread():
            entered.set()
            leave.wait(10)
        inside.append(holders())

    with one_thread():  # the kernel's main thread sets the limit first
        thread = threading.Thread(target=background)
        thread.start()
        entered.wait(10)
        assert holders() == 2 and blas_threads() == [1]
    assert holders() == 1 and blas_threads() == [1]  # the background holder still computes
    leave.set()
    thread.join(10)
    assert inside == [0]  # restored by the background thread: OpenBLAS may keep its limit
    # (sslviz.threads: a limit set or restored off the main thread is not applied)


def test_work_ahead_holds_the_limit():
    seen = []
    work = IdleWork()
    work.start([lambda: seen.append(holders())])  # no event loop: queued only
    work.run_pending()
    background = BackgroundWork()
    background.start([lambda: seen.append(holders())])
    assert background.wait(10)
    assert seen == [1, 1] and holders() == 0


def test_an_explorers_own_fits_hold_the_limit_and_its_render_does_not():
    import ipywidgets as widgets
    from matplotlib.figure import Figure

    from sslviz.widgets.base import Explorer, PerSetting

    seen = []
    controls = {"iteration": widgets.IntSlider(0, max=3), "seed": widgets.IntText(0)}
    explorer = Explorer(
        "t", Figure(), controls, lambda values, drawn: seen.append(("update", holders())),
        ranges={"iteration": lambda values: seen.append(("ranges", holders())) or (0, 3)},
        setup={"run": PerSetting(("seed",), lambda values: seen.append(("setup", holders())))})
    explorer.controls["seed"].value = 1
    assert seen == [("ranges", 1), ("setup", 1), ("update", 1)] * 2
    assert holders() == 0  # released: the render and the cells after it use the default


def test_no_lecture_limits_the_threads_of_its_whole_kernel():
    """The explorers and the runner hold :func:`one_thread` around their fits; a lecture wraps a
    cell's own fits in it, never calls threadpoolctl for the rest of the kernel."""
    import json
    from pathlib import Path

    notebooks = sorted((Path(__file__).parents[1] / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert len(notebooks) >= 12
    calling = [path.name for path in notebooks
               if any("threadpool_limits" in "".join(cell["source"])
                      for cell in json.loads(path.read_text(encoding="utf-8"))["cells"])]
    assert calling == []
