"""``python -m sslviz.experiments COMMAND [options]``: paper-scale runs. This module only
dispatches; each lecture's experiments parse their own options in a ``main(argv)``:

``fisher table|figure|summary|recheck`` (also ``fisher-table``, ``fisher-figure``; lecture 06,
:func:`sslviz.experiments.fisher_command.main`); ``kernel-expansion [splice] [leukemia]
[width-study]`` (lecture 08, :func:`sslviz.experiments.kernel_expansion.main`); ``hybrid
table|perplexity|summary|recheck|projection`` (lecture 09,
:func:`sslviz.experiments.hybrid_studies.main`); ``sigma-study``
(which criterion chooses the hybrid's σ, :func:`sslviz.experiments.hybrid_sigma.main`);
``alpha-study`` (which criterion chooses NB's α, lecture 12,
:func:`sslviz.experiments.model_selection.main`); ``graph-criteria`` (which criterion chooses
lecture 11's k and spreading α, :func:`sslviz.experiments.graphs_criteria.main`); ``store
[NOTEBOOK ...]`` (the results of the lectures' long sweeps kept with the project,
:mod:`sslviz.experiments.store`); ``report`` (the replication report, ``docs/replication.md``,
from the stored results: :mod:`sslviz.experiments.report`).

Every command takes ``--scheduler ADDRESS`` (e.g. ``tcp://host:8786``): its jobs then run on that
Dask cluster (:func:`sslviz.experiments.runner.use_scheduler`; ``pip install sslviz[cluster]``),
with the same cache, resume and progress bar. The address is checked at once; the connection is
made when the first job must be computed (after the command has checked its own arguments), and
a scheduler that does not complete the handshake in time is one line, never a hang.
"""

from __future__ import annotations

import importlib
import sys
import urllib.parse

from .. import cli
from ..lectures import LECTURE_COMMANDS
from . import runner

SCHEDULER_FLAG = "--scheduler"
SCHEDULER_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")  # dask.distributed's network transports


COMMANDS = {**LECTURE_COMMANDS, "graph-criteria": "sslviz.experiments.graphs_criteria",
            "sigma-study": "sslviz.experiments.hybrid_sigma",
            "store": "sslviz.experiments.store", "report": "sslviz.experiments.report"}
"""Each command's module (the lectures' from :mod:`sslviz.lectures`, the criterion study of
lecture 12 among them, then lecture 11's criterion study and the store); its ``main(argv)``
parses the command's own options."""
ALIASES = {"fisher-table": ("fisher", "table"), "fisher-figure": ("fisher", "figure")}


def pop_scheduler(argv):
    """``(argv without --scheduler ADDRESS, ADDRESS or None)``; a bad address is refused."""
    rest, address = [], None
    arguments = iter(argv)
    for arg in arguments:
        if arg == SCHEDULER_FLAG or arg.startswith(SCHEDULER_FLAG + "="):
            address = arg.partition("=")[2] if "=" in arg else next(arguments, "")
            check_scheduler_address(address)
        else:
            rest.append(arg)
    return rest, address


def check_scheduler_address(address):
    """Refuse (one line naming the option) an address Dask could not connect to: a transport
    of :data:`SCHEDULER_SCHEMES`, a host, and a port in 1-65535 if one is given."""
    parts = urllib.parse.urlsplit(address)
    try:
        port_ok = parts.port is None or 0 < parts.port < 65536
    except ValueError:  # not a number, or out of range
        port_ok = False
    if (parts.scheme not in SCHEDULER_SCHEMES or not parts.hostname or not port_ok
            or "://" not in address or parts.path.strip("/") or parts.query or parts.fragment):
        raise cli.UsageError(f"{SCHEDULER_FLAG} needs a scheduler address such as "
                             f"tcp://host:8786 ({'/'.join(SCHEDULER_SCHEMES)}://host[:port]), "
                             f"got {address!r}")


@cli.command
def main(argv=None):
    """``python -m sslviz.experiments fisher|kernel-expansion|hybrid ... [options]``."""
    argv = sys.argv[1:] if argv is None else list(argv)
    argv, scheduler = pop_scheduler(argv)
    if scheduler is None:
        return _run(argv)
    with runner.use_scheduler(scheduler, lazy=True, option=SCHEDULER_FLAG):
        return _run(argv)


def _parser():
    parser = cli.Parser(
        prog="python -m sslviz.experiments",
        description="Paper-scale experiments, cached per job (an interrupted run resumes). "
        "fisher table|figure: Table 1 / Figure 1 of Takamura & Okumura (lecture 06); "
        "kernel-expansion: Szummer & Jaakkola's experiments and the width study (lecture 08); "
        "hybrid table|perplexity: Tables 1-3 / Figure 2 of Fujino et al. (lecture 09); "
        "sigma-study: which criterion should choose the hybrid's sigma; "
        "alpha-study: which criterion should choose NB's alpha; graph-criteria: which criterion "
        "should choose a graph's k and spreading alpha (lecture 11); store: the "
        "lectures' long sweeps, kept in sslviz/stored_results/cache; report: the replication "
        "report (docs/replication.md) from the stored results. Every command "
        "takes --scheduler ADDRESS (a Dask cluster).")
    parser.add_argument("command", choices=[*COMMANDS, *ALIASES],
                        help="then the command's options (COMMAND --help lists them)")
    return parser


def _run(argv):
    if not argv or argv[0].startswith("-"):  # no command: the parser's help or error
        _parser().parse_args(argv)
    _parser().parse_args(argv[:1])  # an unknown command is refused here
    if argv[0] in ALIASES:
        argv = [*ALIASES[argv[0]], *argv[1:]]
    return importlib.import_module(COMMANDS[argv[0]]).main(argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
