"""The lectures, each described once: what the rest of the package derives its lists from.

One frozen :class:`Lecture` per notebook, in teaching order. From :data:`LECTURES` come the
result kinds the project stores (:data:`STORED_KINDS`, :mod:`sslviz.experiments.store`), the
kinds that are a corpus's derivatives rather than results (:data:`CORPUS_KINDS`), the paper-scale
commands (:data:`LECTURE_COMMANDS`, ``python -m sslviz.experiments``), the corpora a hosted start
fetches (:data:`LECTURE_DATASETS`, ``python -m sslviz.datasets fetch --lectures``) and the prefix
of every explorer's name (:func:`explorer_prefix`: the files an export button writes are named
after the lecture). ``tests/test_layering.py`` checks that this registry, the notebooks and the
``experiments/``, ``plots/`` and ``widgets/`` modules agree.

A new lecture is one record here, its three modules and its notebook (CONTRIBUTING.md).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CORPUS_KINDS", "LECTURES", "LECTURE_COMMANDS", "LECTURE_DATASETS", "STORED_KINDS",
           "Lecture", "explorer_prefix", "lecture_of"]


@dataclass(frozen=True)
class Lecture:
    """One lecture notebook and what belongs to it.

    Attributes
    ----------
    stem : str
        The notebook's file name without ``.ipynb`` (``notebooks/<stem>.ipynb``).
    module : str
        The name X of its ``sslviz/experiments/X.py``, ``plots/X.py`` and ``widgets/X.py``.
    datasets : tuple of str
        The registry's datasets (:mod:`sslviz.datasets`) its cells load.
    stored_kinds : tuple of str
        Result kinds whose entries ship with the project (its sweeps that take minutes).
    corpus_kinds : tuple of str
        Cache kinds that are a corpus's derivatives (vectorized, parsed), kept per machine.
    command : tuple of (name, module), optional
        Its paper-scale command for ``python -m sslviz.experiments`` and the module whose
        ``main(argv)`` runs it.
    """

    stem: str
    module: str
    datasets: tuple[str, ...]
    stored_kinds: tuple[str, ...] = ()
    corpus_kinds: tuple[str, ...] = ("counts",)
    command: tuple[str, str] | None = None


LECTURES = (
    Lecture("01_what_is_ssl", "what_is_ssl", ("20newsgroups", "smart_stoplist")),
    Lecture("02_bootstrapping", "bootstrapping", ("20newsgroups", "smart_stoplist")),
    Lecture("03_yarowsky", "yarowsky", ("senseval", "smart_stoplist"),
            corpus_kinds=("sense_tasks",)),
    Lecture("04_em_naive_bayes", "em", ("20newsgroups", "webkb", "smart_stoplist"),
            stored_kinds=("curves", "smoothing", "em_lambda", "em_criteria")),
    Lecture("05_feature_selection", "feature_selection",
            ("20newsgroups", "webkb", "smart_stoplist"), stored_kinds=("feature_selection",)),
    Lecture("06_fisher_kernel", "fisher", ("20newsgroups",), stored_kinds=("fisher",),
            command=("fisher", "sslviz.experiments.fisher_command")),
    Lecture("07_classification_em", "classification_em",
            ("20newsgroups", "reuters21578", "smart_stoplist"),
            stored_kinds=("classification_em",), corpus_kinds=("counts", "reuters_sentences")),
    Lecture("08_kernel_expansions", "kernel_expansion", ("splice", "golub"),
            stored_kinds=("kernel_expansion", "kernel_expansion_svm",
                          "kernel_expansion_width_study"), corpus_kinds=(),
            command=("kernel-expansion", "sslviz.experiments.kernel_expansion")),
    Lecture("09_hybrid_generative_discriminative", "hybrid",
            ("20newsgroups", "reuters21578", "webkb", "smart_stoplist"),
            stored_kinds=("hybrid", "hybrid-alpha-em", "hybrid-mer", "hybrid-perplexity",
                          "hybrid-sigma", "hybrid-sigma-sensitivity"),
            command=("hybrid", "sslviz.experiments.hybrid_studies")),
    Lecture("10_components_and_views", "components_views",
            ("reuters21578", "webkb", "smart_stoplist"),
            stored_kinds=("components_views_cot", "components_views_mem")),
    Lecture("11_graphs", "graphs", ("20newsgroups", "senseval", "webkb", "smart_stoplist"),
            stored_kinds=("graphs-senses", "graphs-text", "graphs-pool-test", "graphs-criteria",
                          "yarowsky_map"),
            corpus_kinds=("counts", "sense_tasks", "graphs-tasks", "graphs-neighbours",
                          "graphs-basis")),
    Lecture("12_model_selection", "model_selection",
            ("20newsgroups", "webkb", "reuters21578", "smart_stoplist"),
            stored_kinds=("alpha_study", "c_study"),
            command=("alpha-study", "sslviz.experiments.model_selection")),
)

#: For each lecture with stored results, the kinds whose entries ship with the project.
STORED_KINDS = {lecture.stem: lecture.stored_kinds for lecture in LECTURES
                if lecture.stored_kinds}
#: Vectorized corpora and parsed tasks, not results: a cold run of a lecture starts with them.
CORPUS_KINDS = tuple(dict.fromkeys(kind for lecture in LECTURES
                                   for kind in lecture.corpus_kinds))
#: Each paper-scale command's module (its ``main(argv)`` parses the command's options).
LECTURE_COMMANDS = {lecture.command[0]: lecture.command[1] for lecture in LECTURES
                    if lecture.command}
#: Every corpus some lecture loads, in registry order of first use.
LECTURE_DATASETS = tuple(dict.fromkeys(name for lecture in LECTURES
                                       for name in lecture.datasets))


def lecture_of(module_name):
    """The :class:`Lecture` whose ``experiments``/``plots``/``widgets`` module is
    ``module_name`` (e.g. ``"sslviz.widgets.em"``)."""
    last = module_name.rsplit(".", 1)[-1]
    for lecture in LECTURES:
        if lecture.module == last:
            return lecture
    raise ValueError(f"{module_name!r} belongs to no lecture of sslviz.lectures.LECTURES; add "
                     "the lecture's record there (CONTRIBUTING.md, 'Adding a lecture')")


def explorer_prefix(module_name):
    """The prefix of an explorer's name in ``module_name``: its lecture's notebook stem."""
    return lecture_of(module_name).stem
