"""Transductive linear SVM (Joachims, 1999): labels for the unlabeled rows that widen the margin.

An inductive SVM looks only at the labeled rows. A transductive SVM also asks the hyperplane to
keep the *unlabeled* rows out of its margin, by giving them labels ``y*`` and solving

    min_{w, b, y*}  ½ ||w||² + C Σ_labeled ξ_i + C*₋ Σ_{y*_j = -1} ξ*_j + C*₊ Σ_{y*_j = +1} ξ*_j
    s.t. y_i (w·x_i + b) >= 1 - ξ_i,  y*_j (w·x*_j + b) >= 1 - ξ*_j,  ξ, ξ* >= 0

with the number of unlabeled rows labeled ``+1`` fixed to ``num+`` (Joachims, OP2 and OP3). The
search over labelings is combinatorial; Joachims' algorithm (his figure 2) is a local search:

1. Train an inductive SVM on the labeled rows (cost ``C``).
2. Label the ``num+`` unlabeled rows with the highest ``w·x + b`` positive, the rest negative.
   ``num+ = round(positive_fraction × k)`` for ``k`` unlabeled rows; by default the fraction of
   positives among the labeled rows, as Joachims (and SVM-light's ``-p`` default) estimate it.
3. Outer loop: start with tiny unlabeled costs ``C*₋ = 10⁻⁵ C*`` and
   ``C*₊ = C*₋ · num+ / (k - num+)`` (the ratio of Joachims' figure 2) and double both, capped at
   ``C* = C_unlabeled``, until both equal ``C*``; this anneals the influence of the guessed
   labels from nothing to full.
4. Inner loop, at each cost level: retrain, then look for a positive row ``m`` and a negative row
   ``l`` among the unlabeled ones with ``ξ*_m > 0``, ``ξ*_l > 0`` and ``ξ*_m + ξ*_l > 2``; switch
   both labels and retrain, until no such pair is left.

Switching such a pair lowers the objective at fixed ``(w, b)``: the slack of a switched row
becomes ``max(0, 2 - ξ*)``, so each of the two cost terms of the pair falls (for hinge and for
squared hinge alike, whatever ``C*₊`` and ``C*₋``), and retraining can only lower it further.
Every switch swaps one ``+`` for one ``-``, so the number of positives stays ``num+``.

Choices made here (differences from the paper)
----------------------------------------------
* **Many switches per retrain.** Joachims switches one pair per retrain, which costs one SVM fit
  per pair. Here every retrain is preceded by switching *all* disjoint qualifying pairs at once,
  chosen greedily: the unlabeled positives and negatives with positive slack are each sorted by
  slack (largest first) and paired rank by rank while the two slacks sum to more than 2 (most
  violating first; Sindhwani & Keerthi, 2006, call this "multiple switching"). Because the
  objective at fixed ``(w, b)`` is a sum over rows, switching several disjoint pairs lowers it by
  the sum of their gains, so the argument above still holds.
* **Guarantee.** The solver (liblinear, through scikit-learn's ``LinearSVC``) is iterative and
  stops at ``tol``, so a retrained model is not exactly optimal. After each switch the retrained
  model is kept only if its objective is no higher than that of the previous ``(w, b)`` under
  the switched labels; otherwise the previous ``(w, b)`` is kept (``kept_previous_model`` in the
  trace). Hence, *within one cost level*, the recorded objective never increases from retrain to
  retrain (every switch lowers it strictly, up to rounding). Across levels it rises, since the
  costs double.
* **The last level.** The level at ``C*`` itself is run too (Joachims' loop stops on reaching
  it), so the final model is a local solution at the requested ``C_unlabeled``.
* **Loss and intercept.** The loss is the hinge (``LinearSVC(loss="hinge")``, Joachims'
  ``ξ``); costs enter as ``sample_weight`` (liblinear multiplies ``C`` by the row weight). As in
  liblinear, the intercept is the weight of a constant feature 1 and is regularised too, so the
  objective recorded is ``½ (||w||² + b²) + Σ_i c_i max(0, 1 - y_i (w·x_i + b))``.
* **Working set (an exact shortcut).** At an SVM's optimum a row with margin
  ``y (w·x + b) > 1`` has dual variable 0, a row with margin ``< 1`` has it at its cost ``c_i``,
  and only rows on the margin are free. A retrain guesses these sets from the previous model:
  rows within ``WORKING_SET_MARGIN`` of margin 1 are fitted one by one, rows inside the margin
  enter as *one* aggregated row ``Σ c_i y_i x_i / s`` of cost ``s`` (large enough to stay at its
  bound), rows outside are left out. Every guess is then checked against the new margins; rows
  guessed wrong join the fitted ones and the fit is repeated until no guess is wrong (within
  ``tol``): the solution of the full problem, at a fraction of the cost. The bias is an explicit
  constant last column (liblinear's intercept is the same thing).
* **Solver tolerance.** Retrains below the last cost level stop at ``max(tol, 1e-2)``; the last
  level uses ``tol``. SVM-light's transductive loop does the same (``epsilon_crit`` 0.01 while
  the costs grow, 0.001 "to do the last run right"): an intermediate labeling only has to be
  good enough to guide the next switches. The default ``tol`` is SVM-light's 0.001 too:
  liblinear stops when the projected gradients, i.e. the rows' violations of their margin
  conditions, lie within ``tol`` of each other, the same measure as ``epsilon_crit``.
* **Multiclass.** One binary TSVM per class (that class against the rest, as Takamura & Okumura
  did), each with its own ``num+``; ``predict`` takes the class with the largest decision value.

Cost: ``1 + ⌈log2(10⁵ · max(1, (k - num+) / num+))⌉`` cost levels per binary problem (22 for
one class of 20 against the rest), each with one retrain plus one per round of switches; one
retrain on 20 Newsgroups (10,000 unlabeled posts) takes 5-20 ms. ``n_jobs`` spreads the problems
over processes (liblinear seeds a process-wide generator: threads would race on it).

References
----------
Joachims (1999), Transductive inference for text classification using support vector machines.
ICML, section 4 and figure 2. Sindhwani & Keerthi (2006), Large scale semi-supervised linear SVMs.
SIGIR. Takamura & Okumura, A comparative study on the use of labeled and unlabeled data for large
margin classifiers (the "TSVM (linear)" column of table 1; C = 1, one-versus-rest).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.svm import LinearSVC
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .trace import Trace, freeze_array
from .tsvm_solver import _BinaryFit, _BinaryProblem, _qualifying_pairs  # noqa: F401
from .validation import (
    check_choice,
    check_int,
    check_n_jobs,
    check_number,
    check_numbers,
    check_seed,
    resolve_classes,
    semi_supervised_target,
)

__all__ = ["INTERMEDIATE_TOL", "SOLVER_MAX_ITER", "START_FRACTION", "TSVMStep", "TransductiveSVM"]

#: The first unlabeled cost C*₋ is this fraction of ``C_unlabeled`` (Joachims' 10⁻⁵).
START_FRACTION = 1e-5
#: Iteration cap of each liblinear fit (scikit-learn's default, 1000, is short for C* = 1).
SOLVER_MAX_ITER = 10_000
#: Solver tolerance of the retrains below the last cost level (see "Solver tolerance" above).
INTERMEDIATE_TOL = 1e-2


@dataclass(frozen=True)
class TSVMStep:
    """One SVM retrain of a binary TSVM (iteration 0 = the inductive SVM on labeled rows).

    Attributes
    ----------
    iteration : int
        Retrain counter of this binary problem (0, 1, 2, ...).
    stage : int
        Cost level: 0 for the inductive SVM, then 1, 2, ... as the unlabeled costs double.
    C_negative, C_positive : float
        The unlabeled costs C*₋ and C*₊ of this retrain (0 at iteration 0).
    n_switched : int
        Pairs of unlabeled labels switched just before this retrain (0 for the first retrain of
        a stage).
    objective : float
        ``½ (||w||² + b²) + C Σ ξ + C*₋ Σ ξ*₋ + C*₊ Σ ξ*₊`` of the kept model under the current
        labels and costs (at iteration 0: the labeled part only).
    kept_previous_model : bool
        True when the retrained model scored worse than the previous ``(w, b)`` on the switched
        labels (solver inexactness), so the previous one was kept.
    n_positive : int
        Unlabeled rows currently labeled ``+1`` (``num+``; constant through the run).
    unlabeled_labels : ndarray of int8, shape (n_unlabeled,)
        The labels ``y*`` (+1 / -1) in force for this retrain, in the order of the unlabeled rows.
    coef : ndarray of shape (n_features,) or None
        ``w`` of the kept model; ``None`` with ``record="summary"``.
    intercept : float
        ``b`` of the kept model.
    """

    iteration: int
    stage: int
    C_negative: float
    C_positive: float
    n_switched: int
    objective: float
    kept_previous_model: bool
    n_positive: int
    unlabeled_labels: np.ndarray
    coef: np.ndarray | None
    intercept: float


class TransductiveSVM(ClassifierMixin, BaseEstimator):
    """Joachims' transductive linear SVM; one-vs-rest for more than two classes.

    Starting from the SVM of the labeled rows, the unlabeled rows get labels (a fixed share of
    them positive) and enter the hinge loss with a cost that doubles from nearly zero up to
    ``C_unlabeled``; at every cost, pairs of unlabeled labels whose switch lowers the objective
    are switched and the SVM is retrained. The result is a linear classifier: ``predict`` and
    ``decision_function`` accept any rows, and ``transduction_`` holds the labels of the fitted
    ones.

    Parameters
    ----------
    C : float, default=1.0
        Cost of a labeled row's slack (Takamura & Okumura used 1.0).
    C_unlabeled : float, default=1.0
        ``C*``: the final cost of an unlabeled row's slack.
    positive_fraction : float, sequence of float or None, default=None
        Fraction of the unlabeled rows to label positive (``num+ / k``). Binary problems: one
        number in (0, 1), the fraction of ``classes_[1]``. Multiclass: one number per class (in
        the order of ``classes_``) for its one-vs-rest problem. ``None``: the fractions among
        the labeled rows.
    max_iter : int, default=50
        At most this many retrains per cost level (the first retrain plus the rounds of
        switches); a level that hits the cap leaves ``converged_`` False.
    tol : float, default=1e-3
        Stopping tolerance of the liblinear fits at the last cost level (``LinearSVC(tol=...)``;
        SVM-light's ``epsilon_crit`` of its last run); the levels before use ``max(tol, 1e-2)``.
    random_state : int, RandomState or None, default=None
        Seeds liblinear's coordinate shuffling (one seed drawn per binary problem).
    record : {"summary", "full"}, default="summary"
        ``"summary"`` keeps, per retrain, the scalars and the unlabeled labels; ``"full"`` also
        keeps ``w`` (use it for low-dimensional pictures; for text it holds n_features floats
        per retrain).
    classes : array-like or None, default=None
        All class labels. When given, every class must have a labeled row and no other label
        may appear; when ``None`` the classes are the labels seen in ``y``.
    n_jobs : int or None, default=None
        Worker *processes* for the one-vs-rest problems (joblib; ``None`` = one after the other).
        The result does not depend on it: every problem has its own seed, and liblinear's
        process-wide generator is re-seeded at every fit.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) for two classes, else (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    n_iter_ : ndarray of int, shape (1,) or (n_classes,)
        SVM fits of each binary problem, the inductive one included (= the length of its trace).
    converged_ : ndarray of bool, shape (1,) or (n_classes,)
        Whether every cost level of the problem ended with no qualifying pair left.
    transduction_ : ndarray of shape (n_samples,)
        Labels of the training rows: the given label for labeled rows; for unlabeled rows the
        final TSVM labels ``y*`` (binary) or, with several classes, the class whose one-vs-rest
        TSVM gives the largest decision value (the per-class labelings may disagree).
    trace_ : Trace of TSVMStep, or tuple of Trace
        Binary: one Trace. Multiclass: ``trace_[k]`` is the Trace of "``classes_[k]`` vs rest".
    n_features_in_ : int
        Number of columns of the ``X`` seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names of ``X``; set only when ``X`` was a DataFrame with string column names.

    Notes
    -----
    ``fit`` with no unlabeled row gives exactly ``LinearSVC(C=C, loss="hinge")`` fitted on the
    labeled rows. With ``record="summary"`` the trace of a 20-class fit on 5000 unlabeled
    documents takes a few megabytes.

    References
    ----------
    Joachims (1999), Transductive inference for text classification using support vector
    machines. ICML, section 4 and figure 2. Sindhwani & Keerthi (2006), Large scale
    semi-supervised linear SVMs. SIGIR (switching several pairs per retrain).

    Examples
    --------
    >>> import numpy as np
    >>> from sslviz.tsvm import TransductiveSVM
    >>> X = np.array([[0., 0.], [.2, .1], [.1, .3], [3., 3.], [3.2, 2.9], [2.8, 3.1]])
    >>> y = np.array([0, -1, -1, 1, -1, -1])
    >>> TransductiveSVM(random_state=0).fit(X, y).predict(X).tolist()
    [0, 0, 0, 1, 1, 1]
    """

    def __init__(self, C=1.0, C_unlabeled=1.0, positive_fraction=None, max_iter=50, tol=1e-3,
                 random_state=None, record="summary", classes=None, n_jobs=None):
        self.C = C
        self.C_unlabeled = C_unlabeled
        self.positive_fraction = positive_fraction
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.record = record
        self.classes = classes
        self.n_jobs = n_jobs

    # -- fitting -------------------------------------------------------------------------------
    def fit(self, X, y):
        """Fit on ``X`` (dense or sparse) with ``y == -1`` marking unlabeled rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Real-valued features of the labeled and the unlabeled rows together.
        y : array-like of shape (n_samples,)
            Class labels (integers or strings), ``-1`` for an unlabeled row; at least two
            classes among the labeled rows. With no unlabeled row the fit is
            ``LinearSVC(C=C, loss="hinge")`` on the labeled rows.

        Returns
        -------
        self : TransductiveSVM
            The fitted estimator.

        Raises
        ------
        ValueError
            If a parameter is out of its range; if ``y`` has no labeled row or fewer than two
            classes, a label outside ``classes`` or a class of ``classes`` without a labeled
            row, or breaks the label rule (:func:`sslviz.validation.semi_supervised_target`);
            if ``positive_fraction`` has the wrong length or a value outside (0, 1).
        """
        self._check_params()
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        y, labeled = semi_supervised_target(y)
        unlabeled = ~labeled
        if not labeled.any():
            raise ValueError("no labeled rows: every entry of y is -1. A TSVM starts from an "
                             "SVM trained on labeled rows of at least two classes.")
        self.classes_ = resolve_classes(y[~unlabeled], self.classes, min_classes=2,
                                        row="example")
        fractions = self._positive_fractions(y[~unlabeled])
        rng = check_random_state(self.random_state)
        targets = self.classes_[1:] if len(self.classes_) == 2 else self.classes_
        labeled_y = y[~unlabeled]
        seeds = [int(rng.randint(np.iinfo(np.int32).max)) for _ in targets]
        jobs = (delayed(self._fit_binary)(X, unlabeled, np.where(labeled_y == target, 1, -1),
                                          fraction, seed)
                for target, fraction, seed in zip(targets, fractions, seeds, strict=True))
        problems = Parallel(n_jobs=self.n_jobs)(jobs)
        self.coef_ = np.vstack([p.model.w for p in problems])
        self.intercept_ = np.array([p.model.b for p in problems])
        self.n_iter_ = np.array([len(p.records) for p in problems])
        self.converged_ = np.array([p.converged for p in problems])
        traces = tuple(Trace(p.records) for p in problems)
        self.trace_ = traces[0] if len(self.classes_) == 2 else traces
        self.transduction_ = self._transduction(X, y, unlabeled, problems)
        return self

    def _fit_binary(self, X, unlabeled, signs, fraction, seed):
        """Joachims' algorithm for one ±1 problem; ``signs`` are the labeled rows' ±1."""
        labeled_rows, unlabeled_rows = np.flatnonzero(~unlabeled), np.flatnonzero(unlabeled)
        problem = _BinaryProblem(X, labeled_rows, unlabeled_rows, signs, self.C)
        inductive = self._svm(self.C, seed).fit(X[labeled_rows], signs)
        model = problem.model(inductive.coef_.ravel().copy(), float(inductive.intercept_[0]))
        k = len(unlabeled_rows)
        labels = np.full(k, -1, dtype=np.int8)
        n_pos = int(np.clip(round(fraction * k), 0, k))
        order = np.argsort(-model.decision[problem.n_labeled:], kind="stable")
        labels[order[:n_pos]] = 1
        records = [self._record(0, 0, 0.0, 0.0, 0, problem.objective(model, labels, 0.0, 0.0),
                                False, labels, model)]
        if not k:
            return _BinaryFit(model, True, records, labels)
        ratio = n_pos / (k - n_pos) if 0 < n_pos < k else 1.0
        c_neg = START_FRACTION * self.C_unlabeled
        c_pos = c_neg * ratio
        stage, n_iter, converged = 0, 0, True
        while True:
            stage += 1
            final = c_neg >= self.C_unlabeled and c_pos >= self.C_unlabeled
            tol = self.tol if final else max(self.tol, INTERMEDIATE_TOL)
            model = problem.train(self._svm(1.0, seed, tol), labels, c_neg, c_pos, start=model)
            n_iter += 1
            records.append(self._record(n_iter, stage, c_neg, c_pos, 0,
                                        problem.objective(model, labels, c_neg, c_pos), False,
                                        labels, model))
            for retrains in range(1, self.max_iter + 1):
                pos, neg = _qualifying_pairs(problem.unlabeled_slacks(model, labels), labels)
                if not len(pos):
                    break
                if retrains == self.max_iter:
                    converged = False
                    break
                labels[pos], labels[neg] = -1, 1
                previous = problem.objective(model, labels, c_neg, c_pos)
                retrained = problem.train(self._svm(1.0, seed, tol), labels, c_neg, c_pos,
                                          start=model)
                objective = problem.objective(retrained, labels, c_neg, c_pos)
                kept = objective > previous
                if kept:
                    objective = previous
                else:
                    model = retrained
                n_iter += 1
                records.append(self._record(n_iter, stage, c_neg, c_pos, len(pos), objective,
                                            kept, labels, model))
            if final:
                break
            c_neg = min(2 * c_neg, self.C_unlabeled)
            c_pos = min(2 * c_pos, self.C_unlabeled)
        return _BinaryFit(model, converged, records, labels)

    def _svm(self, C, seed, tol=None):
        tol = self.tol if tol is None else tol
        return LinearSVC(C=C, loss="hinge", dual=True, tol=tol, max_iter=SOLVER_MAX_ITER,
                         random_state=seed)

    def _record(self, iteration, stage, c_neg, c_pos, n_switched, objective, kept, labels, model):
        return TSVMStep(
            iteration=iteration, stage=stage, C_negative=float(c_neg), C_positive=float(c_pos),
            n_switched=int(n_switched), objective=float(objective), kept_previous_model=bool(kept),
            n_positive=int(np.sum(labels == 1)), unlabeled_labels=freeze_array(labels),
            coef=freeze_array(model.w) if self.record == "full" else None,
            intercept=float(model.b))

    def _transduction(self, X, y, unlabeled, problems):
        transduction = np.array(y, copy=True)
        if not unlabeled.any():
            return transduction
        if len(self.classes_) == 2:
            labels = problems[0].unlabeled_labels
            transduction[unlabeled] = self.classes_[(labels == 1).astype(int)]
        else:
            scores = X[unlabeled] @ self.coef_.T + self.intercept_
            transduction[unlabeled] = self.classes_[np.argmax(scores, axis=1)]
        return transduction

    # -- validation ----------------------------------------------------------------------------
    def _check_params(self):
        check_number("C", self.C, above=0)
        check_number("C_unlabeled", self.C_unlabeled, above=0)
        check_seed("random_state", self.random_state)
        check_n_jobs("n_jobs", self.n_jobs)
        check_int("max_iter", self.max_iter, minimum=1)
        check_number("tol", self.tol, above=0)
        check_choice("record", self.record, ("full", "summary"))

    def _positive_fractions(self, labeled_y):
        """``num+ / k`` of every binary problem: one value (binary) or one per class."""
        n_problems = 1 if len(self.classes_) == 2 else len(self.classes_)
        if self.positive_fraction is None:
            targets = self.classes_[1:] if n_problems == 1 else self.classes_
            return np.array([np.mean(labeled_y == t) for t in targets])
        fractions = check_numbers("positive_fraction", self.positive_fraction,
                                  "None, a number in (0, 1) or one such number per class")
        if len(fractions) != n_problems:
            if n_problems == 1:
                raise ValueError("positive_fraction must be one number for a binary problem "
                                 f"(the fraction of {np.asarray(self.classes_[1]).tolist()!r}), "
                                 f"got {self.positive_fraction!r}")
            raise ValueError(
                f"positive_fraction must hold {n_problems} fractions for {n_problems} classes "
                f"(one per one-vs-rest problem, in the order of classes_), "
                f"got {self.positive_fraction!r}"
            )
        if not np.all((fractions > 0) & (fractions < 1)):
            raise ValueError("positive_fraction must lie strictly between 0 and 1, "
                             f"got {self.positive_fraction!r}")
        return fractions

    # -- prediction ----------------------------------------------------------------------------
    def decision_function(self, X):
        """Signed distance ``w·x + b``: shape (n_samples,) for two classes (positive means
        ``classes_[1]``), else (n_samples, n_classes).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to score, with the columns of ``fit``; any rows, not only the fitted ones.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            ``w·x + b`` of the binary TSVM, or of each one-vs-rest TSVM (columns in the order
            of ``classes_``).
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        scores = np.asarray(X @ self.coef_.T) + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X):
        """``classes_[1]`` where the decision value is positive (binary), else the argmax.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to classify, with the columns of ``fit``; any rows, not only the fitted ones
            (their transductive labels are ``transduction_``).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Classes from ``classes_``.
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
