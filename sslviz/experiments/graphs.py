"""The graph lecture's experiments (11): label propagation for word senses, the spectral graph
transducer on text, and the traces its steppers replay.

* :func:`sense_task` -- Senseval instances as lecture 03's collocation features (the words within
  ten positions and the two neighbours of the ambiguous word), with unit-length tf-idf rows for
  the cosine graph.
* :func:`sense_curves` -- at each labeled fraction and seed: Naive Bayes (α by the evidence,
  :func:`sslviz.tuning.choose_nb_alpha`) and a linear SVM (C by cross-validated balanced
  accuracy, ties by the hinge loss) on the labeled instances, harmonic propagation and label
  spreading on the graph of *all* instances, whose settings (k; spreading's α) are chosen on the
  labeled instances only (:func:`graph_cv`: hide a fold of them, propagate, score the hidden
  labels by log-likelihood; the grids extended until the choice is interior or at a bound).
  Accuracy on the instances that were not labeled. Every job records whether a choice stopped
  at a bound (``*_at_bound``). The SGT keeps Joachims' settings (:data:`SGT_SETTINGS`).
* :func:`text_curves` -- two-class text (WebKB course against the rest, a 20 Newsgroups pair): the
  spectral graph transducer at the paper's settings, the transductive SVM of lecture 06, label
  spreading and the tuned supervised models; :func:`ratio_study` gives the SGT a labeled set
  whose class ratio is not the true one.
* :func:`toy_propagation` and :func:`sense_propagation` -- recorded propagations for the steppers.

Cost: one k-NN graph per task and setting (cached), one sparse solve per fit; the cross-validation
of the graph settings multiplies the solves by folds × grid, and a k extended past
:data:`MAX_K` makes a larger neighbour search (cached) and denser, slower solves. Results are
cached by the runner.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.naive_bayes import MultinomialNB
from sklearn.svm import LinearSVC

from ..cache import ResultCache, data_digest
from ..datasets import load_senseval, load_stoplist
from ..decision_list import collocation_matrix
from ..label_propagation import (
    GraphPropagation,
    affinity_from_neighbours,
    class_mass_normalization,
    cosine_neighbours,
)
from ..sgt import constrained_cut, sgt_graph, smooth_eigenvectors
from ..text import TextOptions, load_counts, load_link_views
from ..tsvm import TransductiveSVM
from ..tuning import (
    MARGIN_SCORING,
    NEG_HINGE_LOSS,
    PARAMETER_KINDS,
    Choice,
    best_index,
    choose_by_cv_interior,
    choose_nb_alpha,
    labeled_folds,
)
from .runner import run_jobs

RESULT_VERSION = 1  # bump for a change sslviz.code_digest cannot see (a dependency's)
FRACTIONS = (0.01, 0.05, 0.1, 0.25)
K_GRID = (3, 5, 10, 20)
SPREAD_ALPHAS = (0.2, 0.5, 0.9, 0.99)
SENSE_METHODS = ("nb", "svm", "harmonic", "spreading")
TEXT_METHODS = ("nb", "svm", "tsvm", "spreading", "sgt")
MAX_K = max(K_GRID)
C_GRID = (0.1, 0.3, 1.0, 3.0, 10.0)
GRAPH_KINDS = {"n_neighbors": "n_neighbors", "alpha": "spreading_alpha"}
"""The :data:`sslviz.tuning.PARAMETER_KINDS` entry that bounds each graph setting's grid."""
GRAPH_CRITERIA = {"log_likelihood": "hidden-label log-likelihood",
                  "accuracy": "hidden-label accuracy",
                  "balanced_accuracy": "hidden-label balanced accuracy"}
"""The criteria :func:`graph_cv` can choose by (all on the labeled rows: hide a fold, propagate,
score the hidden labels); :func:`criterion_study` compares them."""
GRAPH_CRITERION = "log_likelihood"
""":func:`graph_cv`'s default criterion (see :func:`criterion_study`)."""
#: A job records an edge choice (``*_at_bound``) and the lecture states it.
JOB_EDGE = "a job records its edge choices (at_bound); lecture 11 states them"
SGT_SETTINGS = {"n_neighbors": 10, "n_components": 80, "c": 3200.0}


@dataclass(frozen=True)
class GraphTask:
    """Instances of a classification task: counts, unit-length tf-idf rows, labels."""

    name: str
    counts: sp.csr_matrix
    unit: sp.csr_matrix
    y: np.ndarray
    class_names: tuple

    @property
    def digest(self):
        return data_digest(self.counts, self.y)


def unit_rows(counts):
    """tf-idf rows of unit length (the cosine graph's vectors)."""
    return TfidfTransformer().fit_transform(counts).tocsr()


def sense_task(word, senses=None, *, window=10, data_dir=None):
    """A Senseval word as collocation features; instances with no feature are dropped."""
    corpus = load_senseval(word, senses, data_dir=data_dir)
    stop = load_stoplist("sklearn", data_dir=data_dir)
    counts, _ = collocation_matrix(corpus.tokens, corpus.head, window=window, stop_words=stop)
    keep = np.asarray(counts.sum(axis=1)).ravel() > 0
    counts = counts[keep].tocsr()
    return GraphTask(word, counts, unit_rows(counts), corpus.target[keep],
                     tuple(corpus.sense_names))


TEXT_OPTIONS = TextOptions(stop_words="smart", min_df=2)


def webkb_course_task(*, options=TEXT_OPTIONS, data_dir=None, use_cache=True):
    """Blum & Mitchell's WebKB pages (lecture 10's page set), page words, course against the rest.

    Only pages with in-link text are kept, as lecture 10's co-training needs both views, and with
    at least one word left after the stop list (the vectorized pages are shared with lecture 10:
    :func:`sslviz.text.load_link_views`).
    """
    def build():
        from .components_views import WEBKB_OPTIONS

        views = load_link_views(options, WEBKB_OPTIONS[1], data_dir=data_dir)
        words = np.asarray(views["page"].sum(axis=1)).ravel() > 0  # stop words only: no vector
        X = views["page"][words].tocsr()
        return {"data": X.data, "indices": X.indices, "indptr": X.indptr,
                "shape": np.array(X.shape), "y": views["target"][words]}

    arrays = ResultCache("graphs-tasks", code=__name__).get_or_compute(
        {"task": "webkb-course-pages", "options": repr(options), "version": 2}, build,
        use_cache=use_cache)
    counts = sp.csr_matrix((arrays["data"], arrays["indices"], arrays["indptr"]),
                           shape=tuple(arrays["shape"]))
    return GraphTask("WebKB course", counts, unit_rows(counts), arrays["y"],
                     ("other", "course"))


def newsgroups_pair_task(pair=("rec.autos", "sci.space"), *, n_per_class=500, seed=0,
                         options=TEXT_OPTIONS):
    """Two groups of 20 Newsgroups (training posts), ``n_per_class`` posts of each drawn."""
    corpus = load_counts("20newsgroups", options, subset="train", categories=list(pair))
    rng = np.random.default_rng(seed)
    rows = np.sort(np.concatenate([rng.choice(np.flatnonzero(corpus.y == c), n_per_class,
                                              replace=False) for c in (0, 1)]))
    counts = corpus.X[rows]
    counts = counts[:, np.asarray(counts.sum(axis=0)).ravel() > 0].tocsr()
    keep = np.asarray(counts.sum(axis=1)).ravel() > 0
    return GraphTask(" vs ".join(pair), counts[keep], unit_rows(counts[keep]),
                     corpus.y[rows][keep], tuple(corpus.target_names))


def labeled_draw(y, *, fraction=None, n_labeled=None, seed=0, positive_share=None):
    """``y`` with all but a seeded, stratified draw replaced by -1.

    ``fraction`` of every class (at least one each), or ``n_labeled`` rows in the classes' true
    ratio (at least one each) or, for two classes, with ``positive_share`` of them from class 1.
    """
    rng = np.random.default_rng(seed)
    classes, sizes = np.unique(y, return_counts=True)
    if fraction is not None:
        wanted = np.maximum(np.rint(fraction * sizes), 1).astype(int)
    elif positive_share is None:
        wanted = np.maximum(np.rint(n_labeled * sizes / sizes.sum()), 1).astype(int)
    else:
        n_pos = int(np.clip(round(positive_share * n_labeled), 1, n_labeled - 1))
        wanted = np.array([n_labeled - n_pos, n_pos])
    y_semi = np.full(len(y), -1)
    for label, k in zip(classes, wanted, strict=True):
        rows = rng.choice(np.flatnonzero(y == label), int(k), replace=False)
        y_semi[rows] = label
    return y_semi


class NeighbourGraphs:
    """The cosine kNN graphs of one set of rows for every k, from one search.

    ``search``: the search ``cosine_neighbours(unit, max_k)`` when already made (labels play no
    part in it, so the jobs of one task share it). A k beyond the search's neighbours (a grid
    extended by :func:`graph_cv`) makes a larger search (:func:`neighbour_search`, cached).
    """

    def __init__(self, unit, max_k=MAX_K, *, search=None):
        self._unit = unit
        self._search = cosine_neighbours(unit, max_k) if search is None else search
        self._graphs = {}

    @property
    def n_samples(self):
        """The graph's rows."""
        return self._unit.shape[0]

    @property
    def max_k(self):
        """The neighbours the current search holds."""
        return self._search[1].shape[1]

    def __call__(self, k):
        if k > self.max_k:
            larger = min(max(k, 2 * self.max_k), self._unit.shape[0] - 1)
            if k > larger:
                raise ValueError(f"k = {k} needs more rows than the graph's "
                                 f"{self._unit.shape[0]}; lower n_neighbors")
            self._search = neighbour_search(self._unit, larger)
        if k not in self._graphs:
            self._graphs[k] = affinity_from_neighbours(*self._search, k)
        return self._graphs[k]


def neighbour_search(unit, max_k=MAX_K):
    """The cosine neighbour search every job of a task shares (its graphs for each k): cached,
    as labels play no part in it."""
    key = {"data": data_digest(unit), "max_k": max_k, "version": RESULT_VERSION}
    arrays = ResultCache("graphs-neighbours", code=__name__).get_or_compute(key, lambda: dict(zip(
        ("similarities", "neighbours"), cosine_neighbours(unit, max_k), strict=True)))
    return arrays["similarities"], arrays["neighbours"]


def propagate(graphs, y_semi, method, *, n_neighbors, alpha=0.99, record="none", **options):
    """A :class:`GraphPropagation` fitted on the precomputed graph with ``n_neighbors``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return GraphPropagation(method=method, affinity="precomputed", alpha=alpha,
                                record=record, **options).fit(graphs(n_neighbors), y_semi)


def hidden_label_scores(graphs, y_semi, method, params, folds):
    """Every criterion of :data:`GRAPH_CRITERIA` for one setting: hide each fold of labeled
    rows, propagate from the others, score the hidden labels (pooled over the folds)."""
    truth, picked, predicted = [], [], []
    for _, hidden in folds:
        y_fold = y_semi.copy()
        y_fold[hidden] = -1
        model = propagate(graphs, y_fold, method, **params)
        truth.append(y_semi[hidden])
        picked.append(_true_label_probability(model, hidden, y_semi[hidden]))
        predicted.append(model.transduction_[hidden])
    truth, picked, predicted = map(np.concatenate, (truth, picked, predicted))
    correct = predicted == truth
    recalls = [np.mean(correct[truth == c]) for c in np.unique(truth)]
    return {"log_likelihood": float(np.mean(np.log(np.clip(picked, 1e-15, 1.0)))),
            "accuracy": float(np.mean(correct)), "balanced_accuracy": float(np.mean(recalls))}


def graph_cv(graphs, y_semi, method, *, grid, cv=3, random_state=0, criterion=None):
    """Graph settings chosen on the labeled rows: hide a fold, propagate, score the hidden labels.

    ``graphs``: a :class:`NeighbourGraphs`; ``grid``: ``{"n_neighbors": [...]}`` and, for
    spreading, ``"alpha"``. ``criterion``: a key of :data:`GRAPH_CRITERIA` (default
    :data:`GRAPH_CRITERION`). When the best setting is an end of a parameter's values (at least
    3), that parameter's values are extended (halved or doubled k, spreading's α by its step:
    :data:`GRAPH_KINDS`) and the product grid scored again, until every parameter is interior
    or at its documented bound; the :class:`~sslviz.tuning.Choice` then reports the edge itself.
    Exact ties of the criterion go to the log-likelihood, then to the middle candidate
    (:func:`sslviz.tuning.best_index`).
    """
    criterion = GRAPH_CRITERION if criterion is None else criterion
    if criterion not in GRAPH_CRITERIA:
        raise ValueError(f"criterion must be one of {sorted(GRAPH_CRITERIA)}, got {criterion!r}")
    unknown = set(grid) - set(GRAPH_KINDS)
    if unknown:
        raise ValueError(f"graph_cv tunes {sorted(GRAPH_KINDS)}, got {sorted(unknown)}")
    folds = labeled_folds(y_semi, cv, random_state=random_state, allow_unstratified=True)
    values = {name: sorted(PARAMETER_KINDS[GRAPH_KINDS[name]].check(v) for v in set(options))
              for name, options in grid.items()}
    scored = {}
    while True:
        candidates = [dict(zip(values, v, strict=True)) for v in _product(values)]
        for params in candidates:
            key = tuple(params.values())
            if key not in scored:
                scored[key] = hidden_label_scores(graphs, y_semi, method, params, folds)
        scores = np.array([scored[tuple(p.values())][criterion] for p in candidates])
        second = np.array([scored[tuple(p.values())]["log_likelihood"] for p in candidates])
        best = candidates[best_index(scores, None if criterion == "log_likelihood" else second)]
        if not _extend_at_edges(values, best, graphs.n_samples - 1):
            break
    return Choice(best, candidates, scores, f"{len(folds)}-fold {GRAPH_CRITERIA[criterion]}")


def _extend_at_edges(values, best, max_k):
    """Add the next value past each parameter's end where ``best`` sits (in place); whether any
    was added (none: every parameter is interior or at its kind's bound; k also stops at
    ``max_k``, every other row a neighbour)."""
    added = False
    for name, chosen in best.items():
        grid = values[name]
        if len(grid) < 3 or chosen not in (grid[0], grid[-1]):
            continue
        new = PARAMETER_KINDS[GRAPH_KINDS[name]].beyond(grid, chosen == grid[-1])
        if name == "n_neighbors" and new is not None and new > max_k:
            new = max_k if grid[-1] < max_k else None
        if new is not None and new not in grid:
            values[name] = sorted([*grid, new])
            added = True
    return added


def _true_label_probability(model, rows, labels):
    """The propagated probability of each row's true label (0 for a class no label reached)."""
    column = {label: j for j, label in enumerate(model.classes_)}
    return np.array([model.label_distributions_[row, column[label]] if label in column else 0.0
                     for row, label in zip(rows, labels, strict=True)])


def _product(grid):
    values = [[]]
    for options in grid.values():
        values = [v + [o] for v in values for o in options]
    return values


def supervised_accuracies(counts, unit, y, y_semi, seed):
    """NB (α chosen) on counts and a linear SVM (C chosen) on tf-idf, scored on unlabeled rows.

    NB's α by :func:`sslviz.tuning.choose_nb_alpha` (the evidence with one labeled row per
    class); the SVM's C by cross-validated balanced accuracy, ties broken by the hinge loss
    (:data:`sslviz.tuning.MARGIN_SCORING`); both grids extended until the choice is interior.
    A choice left at a bound is recorded (``alpha_at_bound``, ``C_at_bound``), not hidden.
    """
    labeled, rest = y_semi != -1, y_semi == -1
    alpha_choice = _recorded(choose_nb_alpha(counts, y_semi))
    alpha = alpha_choice.value
    nb = MultinomialNB(alpha=alpha).fit(counts[labeled], y_semi[labeled])
    template = LinearSVC(loss="hinge", max_iter=10_000, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", UserWarning)  # a fold lacking a class: scored anyway
        c_choice = _recorded(choose_by_cv_interior(
            template, "C", C_GRID, unit, y_semi, kind="C", scoring=MARGIN_SCORING,
            tie_break=NEG_HINGE_LOSS, cv=3, random_state=seed, allow_unstratified=True))
        C = c_choice.value
        svm = template.set_params(C=C).fit(unit[labeled], y_semi[labeled])
    return {"nb": _accuracy(nb.predict(counts[rest]), y[rest]),
            "svm": _accuracy(svm.predict(unit[rest]), y[rest]), "alpha": alpha, "C": C,
            "alpha_at_bound": alpha_choice.at_bound, "C_at_bound": c_choice.at_bound}


def _recorded(choice):
    """``choice``, its edge (if any) acknowledged: the job records ``at_bound`` and the lecture
    states it (:data:`JOB_EDGE`)."""
    return choice.acknowledge_edge(JOB_EDGE) if choice.at_bound else choice


def tuned_propagations(unit, y_semi, seed, search=None):
    """Harmonic propagation and label spreading with their settings chosen on the labeled rows
    (:func:`graph_cv`): ``(harmonic choice, spreading choice, harmonic model, spreading model)``.
    ``search``: the rows' neighbour search, if made (:class:`NeighbourGraphs`)."""
    graphs = NeighbourGraphs(unit, search=search)
    k = _recorded(graph_cv(graphs, y_semi, "harmonic", grid={"n_neighbors": K_GRID},
                           random_state=seed))
    spread = _recorded(graph_cv(graphs, y_semi, "spreading",
                                grid={"n_neighbors": K_GRID, "alpha": SPREAD_ALPHAS},
                                random_state=seed))
    return (k, spread, propagate(graphs, y_semi, "harmonic", **k.params),
            propagate(graphs, y_semi, "spreading", **spread.params))


def sense_job(counts, unit, y, fraction, seed, search=None):
    """One labeled draw of a word-sense task: every method's accuracy on the unlabeled rows.
    ``search``: the task's neighbour search (:func:`neighbour_search`), made here if ``None``."""
    y_semi = labeled_draw(y, fraction=fraction, seed=seed)
    rest = y_semi == -1
    result = supervised_accuracies(counts, unit, y, y_semi, seed)
    k, spread, harmonic, spreading = tuned_propagations(unit, y_semi, seed, search)
    prior = np.array([np.mean(y_semi[~rest] == c) for c in harmonic.classes_])
    normalised = harmonic.classes_[class_mass_normalization(
        harmonic.label_distributions_[rest], prior)]
    result.update(
        harmonic=_accuracy(harmonic.transduction_[rest], y[rest]),
        harmonic_cmn=_accuracy(normalised, y[rest]),
        spreading=_accuracy(spreading.transduction_[rest], y[rest]),
        k=k.params["n_neighbors"], spread_k=spread.params["n_neighbors"],
        spread_alpha=spread.params["alpha"], k_at_bound=k.at_bound,
        spread_at_bound=spread.at_bound, unreached=int(harmonic.unreached_.sum()),
        n_labeled=int((~rest).sum()))
    return result


@dataclass(frozen=True)
class Curves:
    """Accuracy of each method at each labeled setting (rows) and seed (columns)."""

    settings: np.ndarray
    results: dict  # name -> (n_settings, n_seeds) array

    def __getitem__(self, name):
        return self.results[name]

    def mean(self, name):
        return self.results[name].mean(axis=1)


def sense_curves(task, *, fractions=FRACTIONS, seeds=range(5), n_jobs=None, progress=True):
    """:func:`sense_job` over ``fractions`` × ``seeds`` (cached, parallel)."""
    jobs = [{"fraction": float(f), "seed": int(s)} for f in fractions for s in seeds]
    digest = task.digest
    results = run_jobs(sense_job, jobs, kind="graphs-senses",
                       key=lambda job: {"data": digest, "version": RESULT_VERSION, **job},
                       shared={"counts": task.counts, "unit": task.unit, "y": task.y,
                               "search": neighbour_search(task.unit)},
                       n_jobs=n_jobs, progress=progress, description=f"{task.name}: senses")
    return _curves(np.asarray(fractions, dtype=float), results, len(list(seeds)))


def _curves(settings, results, n_seeds):
    names = results[0].keys()
    return Curves(settings, {name: np.array([float(r[name]) for r in results]).reshape(
        len(settings), n_seeds) for name in names})


def spectral_basis(task, *, n_neighbors=SGT_SETTINGS["n_neighbors"],
                   n_components=SGT_SETTINGS["n_components"]):
    """The SGT's eigenvector basis of a task's graph (labels play no part in it: one per task,
    cached)."""
    key = {"data": task.digest, "k": n_neighbors, "d": n_components, "version": RESULT_VERSION}
    arrays = ResultCache("graphs-basis", code=__name__).get_or_compute(key, lambda: {
        "V": smooth_eigenvectors(sgt_graph(task.unit, n_neighbors), n_components)[0]})
    return arrays["V"]


def text_job(counts, unit, y, basis, n_labeled, seed, positive_share=None, search=None):
    """One labeled draw of a two-class text task: SGT, TSVM, spreading, tuned NB and SVM.

    ``basis``: the SGT's eigenvectors of the task's graph (:func:`spectral_basis`); ``search``:
    its neighbour search (:func:`neighbour_search`), made here if ``None``.
    """
    y_semi = labeled_draw(y, n_labeled=n_labeled, seed=seed, positive_share=positive_share)
    rest = y_semi == -1
    result = supervised_accuracies(counts, unit, y, y_semi, seed)
    decision, threshold = constrained_cut(basis, y_semi == 1, y_semi == 0, SGT_SETTINGS["c"])
    sgt_labels = (decision > threshold).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        tsvm = TransductiveSVM(C=result["C"], random_state=seed).fit(unit, y_semi)
    graphs = NeighbourGraphs(unit, search=search)
    spread = _recorded(graph_cv(graphs, y_semi, "spreading",
                                grid={"n_neighbors": K_GRID, "alpha": SPREAD_ALPHAS},
                                random_state=seed))
    spreading = propagate(graphs, y_semi, "spreading", **spread.params)
    result.update(
        sgt=_accuracy(sgt_labels[rest], y[rest]),
        tsvm=_accuracy(tsvm.predict(unit[rest]), y[rest]),
        spreading=_accuracy(spreading.transduction_[rest], y[rest]),
        sgt_positive_share=float(np.mean(sgt_labels[rest] == 1)),
        tsvm_positive_share=float(np.mean(tsvm.predict(unit[rest]) == 1)),
        spread_k=spread.params["n_neighbors"], spread_alpha=spread.params["alpha"],
        spread_at_bound=spread.at_bound,
        labeled_positive_share=float(np.mean(y_semi[~rest] == 1)),
        true_positive_share=float(np.mean(y[rest] == 1)))
    return result


def text_curves(task, *, sizes=(8, 16, 32, 64), seeds=range(5), positive_share=None,
                n_jobs=None, progress=True):
    """:func:`text_job` over ``sizes`` × ``seeds`` (cached, parallel)."""
    jobs = [{"n_labeled": int(n), "seed": int(s), "positive_share": positive_share}
            for n in sizes for s in seeds]
    digest = task.digest
    results = run_jobs(text_job, jobs, kind="graphs-text",
                       key=lambda job: {"data": digest, "version": RESULT_VERSION, **job},
                       shared={"counts": task.counts, "unit": task.unit, "y": task.y,
                               "basis": spectral_basis(task),
                               "search": neighbour_search(task.unit)},
                       n_jobs=n_jobs, progress=progress, description=f"{task.name}: text")
    return _curves(np.asarray(sizes, dtype=float), results, len(list(seeds)))


def ratio_study(task, *, n_labeled=32, shares=(0.1, 0.25, 0.5, 0.75), seeds=range(5),
                n_jobs=None, progress=True):
    """The SGT (and the TSVM) when the labeled class ratio is not the true one: one
    :class:`Curves` whose settings are the labeled positive shares."""
    per_share = [text_curves(task, sizes=(n_labeled,), seeds=seeds, positive_share=share,
                             n_jobs=n_jobs, progress=progress) for share in shares]
    names = per_share[0].results.keys()
    return Curves(np.asarray(shares, dtype=float),
                  {name: np.vstack([c[name] for c in per_share]) for name in names})


def _accuracy(predicted, truth):
    return float(np.mean(np.asarray(predicted) == np.asarray(truth)))


def pool_test_job(counts, unit, y, pool, test, fraction, seed, search=None):
    """Label ``fraction`` of the pool (per sense), propagate over pool and test instances, and
    score every method on the *test* instances (the held-out set lecture 03 scores Yarowsky on).
    """
    y_semi = np.full(len(y), -1)
    y_semi[pool] = labeled_draw(y[pool], fraction=fraction, seed=seed)
    labeled = y_semi != -1
    alpha_choice = _recorded(choose_nb_alpha(counts, y_semi))
    nb = MultinomialNB(alpha=alpha_choice.value).fit(counts[labeled], y_semi[labeled])
    k, spread, harmonic, spreading = tuned_propagations(unit, y_semi, seed, search)
    return {"alpha": alpha_choice.value, "alpha_at_bound": alpha_choice.at_bound,
            "k": k.params["n_neighbors"], "spread_k": spread.params["n_neighbors"],
            "spread_alpha": spread.params["alpha"], "k_at_bound": k.at_bound,
            "spread_at_bound": spread.at_bound,"nb": _accuracy(nb.predict(counts[test]), y[test]),
            "harmonic": _accuracy(harmonic.transduction_[test], y[test]),
            "spreading": _accuracy(spreading.transduction_[test], y[test]),
            "n_labeled": int(labeled.sum())}


def pool_test_curves(X, y, pool, test, *, fractions=FRACTIONS, seeds=range(5), n_jobs=None,
                     progress=True):
    """:func:`pool_test_job` over ``fractions`` × ``seeds`` for a task split into pool and test
    (e.g. lecture 03's :class:`~sslviz.experiments.yarowsky.SenseTask`; ``y`` as class indices).
    """
    counts = sp.csr_matrix(X)
    jobs = [{"fraction": float(f), "seed": int(s)} for f in fractions for s in seeds]
    digest, unit = data_digest(counts, y, pool, test), unit_rows(counts)
    results = run_jobs(pool_test_job, jobs, kind="graphs-pool-test",
                       key=lambda job: {"data": digest, "version": RESULT_VERSION, **job},
                       shared={"counts": counts, "unit": unit, "y": y, "pool": pool,
                               "test": test, "search": neighbour_search(unit)},
                       n_jobs=n_jobs, progress=progress, description="pool and test")
    return _curves(np.asarray(fractions, dtype=float), results, len(list(seeds)))


# -- recorded propagations for the steppers -------------------------------------------------------
def toy_propagation(*, n_samples=300, noise=0.08, n_neighbors=8, seed=0):
    """Harmonic propagation on two moons from one label per moon; the first 120 steps of the
    iteration are recorded (the fitted distributions are the exact solution, its limit)."""
    from sklearn.datasets import make_moons

    X, y = make_moons(n_samples, noise=noise, random_state=seed)
    y_semi = np.full(len(y), -1)
    rng = np.random.default_rng(seed)
    for label in (0, 1):
        y_semi[rng.choice(np.flatnonzero(y == label))] = label
    model = GraphPropagation(n_neighbors=n_neighbors, metric="euclidean", max_iter=120,
                             tol=1e-4, record="full").fit(X, y_semi)
    return X, y, y_semi, model


def sense_propagation(task, *, fraction, seed=0, n_neighbors=10, max_iter=20):
    """Harmonic propagation on a sense graph from one labeled draw, every step recorded."""
    y_semi = labeled_draw(task.y, fraction=fraction, seed=seed)
    graphs = NeighbourGraphs(task.unit, n_neighbors)
    return y_semi, propagate(graphs, y_semi, "harmonic", n_neighbors=n_neighbors,
                             record="full", max_iter=max_iter, tol=1e-6)
