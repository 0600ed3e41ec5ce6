"""Semi-supervised EM for multinomial Naive Bayes (Nigam et al., 2000).

The model: a document ``x`` (a row of word counts) is drawn from mixture component ``m`` with
probability ``P(m)``, then its words from the component's word distribution ``P(w|m)``. With one
component per class (the default) a component *is* a class. EM alternates

* **E-step** - the posterior of every component given each document (Takamura & Okumura, eq. 5)::

      P(m|x) ∝ P(m) Π_w P(w|m)^N(w,x)

  For a labeled document only the components of its class are allowed (with one component per
  class the posterior is the label itself); unlabeled documents spread over all components.
* **M-step** - MAP estimates from expected counts under a Dirichlet prior (eq. 6-7)::

      P(w|m) = (alpha + Σ_x z_x P(m|x) N(w,x)) / (alpha |W| + Σ_w Σ_x z_x P(m|x) N(w,x))
      P(m)   = (alpha + Σ_x z_x P(m|x))        / (alpha |M| + Σ_x z_x)

  where ``z_x = 1`` for labeled and ``z_x = λ`` (``unlabeled_weight``) for unlabeled documents
  (Nigam's EM-λ).

Smoothing: ``alpha`` has scikit-learn's meaning (pseudo-count added to every word count, 1.0 =
Laplace). The paper's Dirichlet hyper-parameter is ``α = alpha + 1``: Takamura & Okumura's
α = 2.0 is ``alpha=1.0`` here. The class prior is smoothed with the same pseudo-count (eq. 6).

Iteration 0 is the model estimated from the labeled rows alone (the supervised Naive Bayes); each
later iteration is one E-step on the previous model followed by one M-step. With ``init="random"``
iteration 0 is instead an M-step on *every* row with random responsibilities over the components
the row may belong to: with no labeled rows at all (and ``classes`` naming the components) this is
plain clustering by EM with randomly initialised clusters, the "ul-cl" model of Takamura & Okumura
(section 4.2). The quantity EM climbs (and records) is the log posterior of the parameters, up to
constants::

    L(θ) = Σ_{labeled x} log Σ_{m in class(x)} P(m) P(x|m) + λ Σ_{unlabeled x} log Σ_m P(m) P(x|m)
           + alpha (Σ_m log P(m) + Σ_m Σ_w log P(w|m))

which never decreases from one iteration to the next.

Cost: one iteration is two sparse-dense products, ``X @ log θ.T`` (E-step and objective) and
``X.T @ R`` (M-step), i.e. O(nnz(X) × n_components), plus O(n_components × n_features) to
normalise. See ``python -m sslviz.bench em``.

References
----------
Nigam, McCallum, Thrun & Mitchell (2000), Text classification from labeled and unlabeled documents
using EM. Machine Learning 39. Takamura & Okumura, A comparative study on the use of labeled and
unlabeled data for large margin classifiers, equations 4-7. Ueda & Nakano (1998), Deterministic
annealing EM algorithm.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, check_non_negative, validate_data

from . import words
from .nb_mixture import MixtureProblem, c_step, initial_state, m_step
from .trace import Trace, freeze_array
from .validation import (
    check_choice,
    check_int,
    check_number,
    check_numbers,
    check_seed,
    resolve_classes,
    semi_supervised_target,
)

__all__ = ["EMStep", "SemiSupervisedNB", "accuracy_by_iteration", "predict_at_iteration",
           "top_words", "word_scores"]


@dataclass(frozen=True)
class EMStep:
    """What one EM iteration produced (iteration 0 = labeled rows only).

    Attributes
    ----------
    iteration : int
    objective : float
        Log posterior L(θ) of the parameters after this iteration's M-step (see module docstring).
    labeled_log_likelihood, unlabeled_log_likelihood : float
        The two data terms of the objective (the unlabeled one *not* multiplied by λ).
    annealed_objective : float
        The objective DAEM climbs at this iteration's ``beta`` (equals ``objective`` at β = 1).
    beta : float
        Inverse temperature of the E-step that fed this M-step (1.0 without annealing).
    class_log_prior : ndarray of shape (n_classes,)
    feature_log_prob : ndarray of shape (n_classes, n_features) or None
        log P(w|c) after this M-step; ``None`` when ``record="summary"``.
    unlabeled_posteriors : ndarray of shape (n_unlabeled, n_classes) or None
        P(c|x) of the unlabeled rows under this iteration's model (float32); ``None`` when
        ``record="summary"``.
    n_label_changes : int
        Unlabeled rows whose most probable class differs from the previous iteration's.
    """

    iteration: int
    objective: float
    labeled_log_likelihood: float
    unlabeled_log_likelihood: float
    annealed_objective: float
    beta: float
    class_log_prior: np.ndarray
    feature_log_prob: np.ndarray | None
    unlabeled_posteriors: np.ndarray | None
    n_label_changes: int


class SemiSupervisedNB(ClassifierMixin, BaseEstimator):
    """Multinomial Naive Bayes trained by EM on labeled and unlabeled documents.

    Iteration 0 is the supervised Naive Bayes of the labeled rows. Each EM iteration then spreads
    every unlabeled document over the classes by its posterior (E-step) and re-estimates the
    class priors and word distributions from all documents, the unlabeled ones weighted by
    ``unlabeled_weight`` (M-step). ``assignment="hard"`` gives each unlabeled document wholly to
    its most probable class instead (classification EM).

    Parameters
    ----------
    alpha : float, default=1.0
        Additive smoothing (scikit-learn's meaning; the paper's Dirichlet α is ``alpha + 1``).
    unlabeled_weight : float in [0, 1], default=1.0
        λ of EM-λ: the weight of each unlabeled document in the M-step. ``0`` gives the
        supervised model at every iteration.
    n_components : int, default=1
        Mixture components per class (Nigam et al., section 5.3). Several components let a class
        be a union of sub-topics; their initial responsibilities are drawn at random.
    annealing : sequence of float or None, default=None
        Deterministic annealing: increasing inverse temperatures β in (0, 1] for the E-step,
        ``P(m|x) ∝ (P(m) P(x|m))^β``; EM runs until convergence (or ``max_iter``) at each β in
        turn. A schedule must end at 1.0. ``None`` means plain EM (β = 1).
    max_iter : int, default=10
        EM iterations after iteration 0 (per annealing stage). ``0`` gives the supervised model.
    tol : float, default=1e-6
        Stop when the objective gains less than ``tol × |objective|`` in one iteration.
    classes : array-like or None, default=None
        All class labels. When given, every class must have a labeled row and no other label
        may appear; when ``None`` the classes are the labels seen in ``y``.
    record : {"full", "summary"}, default="full"
        ``"full"`` keeps each iteration's word distributions and unlabeled posteriors in
        ``trace_``; ``"summary"`` keeps only the objective and scalars (for large sweeps).
    random_state : int, RandomState or None, default=None
        Seeds the random initial split of each class over its components (``n_components > 1``)
        and the random responsibilities of ``init="random"``.
    init : {"labeled", "random"}, default="labeled"
        How iteration 0 is estimated. ``"labeled"``: from the labeled rows alone (the supervised
        Naive Bayes). ``"random"``: from every row, labeled and unlabeled, with random
        responsibilities (labeled rows spread only over their class's components); then ``y``
        may be all ``-1`` provided ``classes`` names the components (clusters), and a class in
        ``classes`` needs no labeled row.
    assignment : {"soft", "hard"}, default="soft"
        EM, or classification EM (Amini & Gallinari 2002): a C-step gives each unlabeled
        document wholly to its most probable component before the M-step, and the fit stops when
        the C-step returns the partition it was given (:func:`sslviz.nb_mixture.c_step`; no
        annealing).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        log P(w|c); with several components per class, the class's mixture of its components.
    component_log_prior_, component_log_prob_ : ndarray
        The same per mixture component, shapes (n_classes * n_components,) and
        (n_classes * n_components, n_features).
    n_iter_ : int
        EM iterations run after iteration 0 (all annealing stages together).
    converged_ : bool
        Whether the last stage stopped because the gain fell below ``tol``.
    trace_ : Trace of EMStep
        One record per iteration, iteration 0 first.
    n_features_in_ : int
        Number of columns (words) of the ``X`` seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names of ``X``; set only when ``X`` was a DataFrame with string column names.

    References
    ----------
    Nigam, McCallum, Thrun & Mitchell (2000), Text classification from labeled and unlabeled
    documents using EM. Machine Learning 39. Takamura & Okumura, A comparative study on the use
    of labeled and unlabeled data for large margin classifiers, eq. 4-7 (the steps as written
    here).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[3, 0, 1], [2, 0, 0], [0, 3, 1], [0, 2, 0], [4, 1, 0], [0, 4, 1]])
    >>> y = np.array([0, -1, 1, -1, -1, -1])
    >>> SemiSupervisedNB(random_state=0).fit(X, y).predict(X).tolist()
    [0, 0, 1, 1, 0, 1]
    >>> SemiSupervisedNB(assignment="hard", random_state=0).fit(X, y).predict(X).tolist()
    [0, 0, 1, 1, 0, 1]
    """

    def __init__(self, alpha=1.0, unlabeled_weight=1.0, n_components=1, annealing=None,
                 max_iter=10, tol=1e-6, classes=None, record="full", random_state=None,
                 init="labeled", assignment="soft"):
        self.alpha = alpha
        self.unlabeled_weight = unlabeled_weight
        self.n_components = n_components
        self.annealing = annealing
        self.max_iter = max_iter
        self.tol = tol
        self.classes = classes
        self.record = record
        self.random_state = random_state
        self.init = init
        self.assignment = assignment

    # -- fitting -------------------------------------------------------------------------------
    def fit(self, X, y):
        """Run EM on ``X`` (counts, sparse or dense), ``y == -1`` marking unlabeled rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Word counts (non-negative) of the labeled and the unlabeled documents together.
        y : array-like of shape (n_samples,)
            Class labels (integers or strings), ``-1`` for an unlabeled document. Every class
            needs a labeled document, except with ``init="random"``, where ``y`` may even be all
            ``-1`` provided ``classes`` names the components.

        Returns
        -------
        self : SemiSupervisedNB
            The fitted estimator.

        Raises
        ------
        ValueError
            If a parameter is out of its range; if ``X`` has a negative entry or no count at
            all; if ``y`` has no labeled row (and not ``init="random"`` with ``classes``), a
            label outside ``classes``, or (``init="labeled"``) a class without a labeled row;
            if ``y`` breaks the label rule (:func:`sslviz.validation.semi_supervised_target`).
        """
        for _ in self.iter_fit(X, y):
            pass
        return self

    def iter_fit(self, X, y):
        """Fit step by step: a generator yielding each :class:`EMStep` as it is recorded.

        ``fit`` runs it to the end; a "step" button can call ``next()`` on it. The estimator's
        fitted attributes always describe the last yielded step.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            As for :meth:`fit`.
        y : array-like of shape (n_samples,)
            As for :meth:`fit`.

        Yields
        ------
        step : EMStep
            One iteration's record, iteration 0 (the start) first.

        Raises
        ------
        ValueError
            As :meth:`fit`, at the first ``next()``.
        """
        self._check_params()
        X, y = self._validate_input(X, y)
        problem = MixtureProblem.build(X, y, self.classes_, self.n_components,
                                       self.unlabeled_weight)
        rng = check_random_state(self.random_state)
        state = initial_state(problem, self.alpha, rng, self.init)
        records = []
        self.n_iter_, self.converged_ = 0, self.max_iter == 0
        for step, current in self._run(problem, state):
            records.append(step)
            self._set_fitted(problem, current, records)
            yield step

    def _run(self, problem, state):
        """Iteration 0, then EM stage by stage; yields (record, state) pairs."""
        if self.assignment == "hard":
            yield from self._run_hard(problem, state)
            return
        schedule = (1.0,) if self.annealing is None else tuple(map(float, self.annealing))
        state = state.with_e_step(problem, beta=schedule[0])
        record, previous_labels = self._record(problem, state, 0, 1.0, None)
        yield record, state
        iteration = 0
        for beta in schedule:
            state = state.with_e_step(problem, beta)
            for _ in range(self.max_iter):
                before = state.annealed_objective
                state = m_step(problem, state, self.alpha).with_e_step(problem, beta)
                iteration += 1
                self.n_iter_ = iteration
                self.converged_ = state.annealed_objective - before <= self.tol * abs(before)
                record, previous_labels = self._record(problem, state, iteration, beta,
                                                       previous_labels)
                yield record, state
                if self.converged_:
                    break

    def _run_hard(self, problem, state):
        """Classification EM: E-step, C-step, M-step on the completed counts, until the C-step
        returns the partition it was given. Records carry the classification objective."""
        state = state.with_e_step(problem, beta=1.0)
        record, labels = self._record(problem, state, 0, 1.0, None)
        partition = np.argmax(state.resp[problem.unlabeled], axis=1)
        yield _classification_record(record, problem, state), state
        for iteration in range(1, self.max_iter + 1):
            hard = replace(state, resp=c_step(state.resp))
            state = m_step(problem, hard, self.alpha).with_e_step(problem, beta=1.0)
            self.n_iter_ = iteration
            record, labels = self._record(problem, state, iteration, 1.0, labels)
            new_partition = np.argmax(state.resp[problem.unlabeled], axis=1)
            self.converged_ = bool(np.array_equal(new_partition, partition))
            partition = new_partition
            yield _classification_record(record, problem, state), state
            if self.converged_:
                break

    def _record(self, problem, state, iteration, beta, previous_labels):
        full = self.record == "full"
        class_post = problem.class_posteriors(state.posteriors[problem.unlabeled])
        labels = class_post.argmax(axis=1)
        changes = 0 if previous_labels is None else int(np.sum(labels != previous_labels))
        class_log_prior, feature_log_prob = problem.class_parameters(state)
        step = EMStep(
            iteration=iteration,
            objective=float(state.objective),
            labeled_log_likelihood=float(state.labeled_ll),
            unlabeled_log_likelihood=float(state.unlabeled_ll),
            annealed_objective=float(state.annealed_objective),
            beta=float(beta),
            class_log_prior=freeze_array(class_log_prior),
            feature_log_prob=freeze_array(feature_log_prob) if full else None,
            unlabeled_posteriors=freeze_array(class_post.astype(np.float32)) if full else None,
            n_label_changes=changes,
        )
        return step, labels

    def _set_fitted(self, problem, state, records):
        self.component_log_prior_ = state.log_prior
        self.component_log_prob_ = state.log_prob
        self.class_log_prior_, self.feature_log_prob_ = problem.class_parameters(state)
        self.trace_ = Trace(records)

    # -- validation ----------------------------------------------------------------------------
    def _check_params(self):
        check_number("alpha", self.alpha, above=0)
        check_seed("random_state", self.random_state)
        check_number("unlabeled_weight (λ)", self.unlabeled_weight, minimum=0, maximum=1)
        check_int("n_components", self.n_components, minimum=1)
        check_int("max_iter", self.max_iter, minimum=0)
        check_number("tol", self.tol, minimum=0)
        check_choice("record", self.record, ("full", "summary"))
        if check_choice("assignment", self.assignment, ("soft", "hard")) == "hard" and (
                self.annealing is not None):
            raise ValueError("annealing needs assignment='soft': the C-step's hard assignment "
                             "has no temperature; pass annealing=None")
        if self.init not in ("labeled", "random"):
            raise ValueError(f"init must be 'labeled' or 'random', got {self.init!r}")
        if self.annealing is not None:
            allowed = ("an increasing sequence of inverse temperatures in (0, 1] ending at 1.0 "
                       "(or None), e.g. (0.2, 0.5, 1.0)")
            schedule = check_numbers("annealing", self.annealing, allowed)
            if (np.ndim(self.annealing) == 0 or len(schedule) == 0
                    or not np.all(schedule > 0) or np.any(np.diff(schedule) < 0)
                    or schedule[-1] != 1.0):
                raise ValueError(f"annealing must be {allowed}, got {self.annealing!r}")

    def _validate_input(self, X, y):
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        check_non_negative(X, "SemiSupervisedNB (X must hold word counts)")
        y, labeled = semi_supervised_target(y)
        if not labeled.any() and (self.init != "random" or self.classes is None):
            raise ValueError("no labeled rows: every entry of y is -1. EM needs at least one "
                             "labeled document per class to tie its mixture components to "
                             "classes (to cluster unlabeled rows, pass init='random' and "
                             "classes=<the cluster names>).")
        self.classes_ = resolve_classes(y[labeled], self.classes, row="document",
                                        require_every_class=self.init != "random")
        if X.sum() == 0:
            raise ValueError("X holds no word counts at all (every document is empty)")
        return sp.csr_matrix(X), y

    # -- prediction ----------------------------------------------------------------------------
    def predict_joint_log_proba(self, X):
        """log P(c, x) up to the multinomial coefficient, shape (n_samples, n_classes).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Word counts (non-negative) over the vocabulary of ``fit``; any documents, not only
            the fitted ones.

        Returns
        -------
        joint : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_`` (a class's components summed).

        Raises
        ------
        ValueError
            If ``X`` has a negative entry (it must hold word counts).
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        check_non_negative(X, "SemiSupervisedNB (X must hold word counts)")
        joint = X @ self.component_log_prob_.T + self.component_log_prior_
        joint = np.asarray(joint).reshape(X.shape[0], -1, self.n_components)
        return logsumexp(joint, axis=2)

    def predict_log_proba(self, X):
        """log P(c|x), shape (n_samples, n_classes).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Word counts (non-negative) over the vocabulary of ``fit``; any documents, not only
            the fitted ones.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Log posteriors, columns in the order of ``classes_``.

        Raises
        ------
        ValueError
            If ``X`` has a negative entry (it must hold word counts).
        """
        joint = self.predict_joint_log_proba(X)
        return joint - logsumexp(joint, axis=1, keepdims=True)

    def predict_proba(self, X):
        """P(c|x), shape (n_samples, n_classes); rows sum to one.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Word counts (non-negative) over the vocabulary of ``fit``; any documents, not only
            the fitted ones.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Class posteriors, columns in the order of ``classes_`` (a class's components
            summed).

        Raises
        ------
        ValueError
            If ``X`` has a negative entry (it must hold word counts).
        """
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """The most probable class of each row.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Word counts (non-negative) over the vocabulary of ``fit``; any documents, not only
            the fitted ones.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The class of largest ``P(c|x)``, from ``classes_``.

        Raises
        ------
        ValueError
            If ``X`` has a negative entry (it must hold word counts).
        """
        joint = self.predict_joint_log_proba(X)
        return self.classes_[np.argmax(joint, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        # a multinomial model of counts: on dense continuous data (the checks' shifted blobs)
        # it stays below their accuracy bar, as MultinomialNB declares too
        tags.classifier_tags.poor_score = True
        return tags


def _classification_record(record, problem, state):
    """The EM record with the classification objective (eq. 8 of Amini & Gallinari: each
    unlabeled document counted under its best component) in place of the mixture objective."""
    best = state.posteriors[problem.unlabeled].max(axis=1)
    objective = state.objective + problem.unlabeled_weight * float(np.log(best).sum())
    return replace(record, objective=objective, annealed_objective=objective)


# -- summaries of a fitted model (pure functions over the trace) ---------------------------------
def top_words(estimator, feature_names, *, iteration=None, k=20, by="probability"):
    """The ``k`` highest-ranked words of every class at one recorded iteration.

    Parameters
    ----------
    estimator : fitted SemiSupervisedNB (with ``record="full"``)
    feature_names : sequence of str, length n_features
    iteration : int or None
        Recorded iteration (0 = labeled data only); ``None`` means the final model.
    k : int
    by : {"probability", "log_odds"}
        ``"probability"`` ranks by P(w|c); ``"log_odds"`` by Nigam's weighted log-odds ratio
        P(w|c) · log(P(w|c) / P(w|¬c)), where P(w|¬c) mixes the other classes by their priors.

    Returns
    -------
    dict
        class label -> list of ``k`` words, best first.
    """
    ranked = words.top_words(word_scores(estimator, iteration=iteration, by=by), feature_names, k)
    return dict(zip(estimator.classes_, ranked, strict=True))


def word_scores(estimator, *, iteration=None, by="probability"):
    """Scores behind :func:`top_words`, shape (n_classes, n_features)."""
    check_is_fitted(estimator)
    step = estimator.trace_.iteration(len(estimator.trace_) - 1 if iteration is None
                                      else iteration)
    if step.feature_log_prob is None:
        raise ValueError("this model was fitted with record='summary'; refit with record='full' "
                         "to rank words at every iteration")
    if check_choice("by", by, ("probability", "log_odds")) == "probability":
        return np.exp(step.feature_log_prob)
    return words.weighted_log_odds(step.feature_log_prob, step.class_log_prior)


def predict_at_iteration(estimator, X, iteration):
    """Class predictions of the model recorded at ``iteration`` (needs ``record="full"``)."""
    check_is_fitted(estimator)
    if estimator.n_components != 1:
        raise ValueError("per-iteration predictions are recorded for n_components=1 only")
    step = estimator.trace_.iteration(iteration)
    if step.feature_log_prob is None:
        raise ValueError("refit with record='full' to predict with earlier iterations")
    X = validate_data(estimator, X, accept_sparse="csr", dtype=np.float64, reset=False)
    joint = np.asarray(X @ step.feature_log_prob.T) + step.class_log_prior
    return estimator.classes_[np.argmax(joint, axis=1)]


def accuracy_by_iteration(estimator, X, y):
    """Accuracy on (X, y) of every recorded iteration's model, shape (n_iterations,)."""
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must hold one label per row of X ({X.shape[0]}), got shape {y.shape}")
    return np.array([np.mean(predict_at_iteration(estimator, X, i) == y)
                     for i in range(len(estimator.trace_))])
