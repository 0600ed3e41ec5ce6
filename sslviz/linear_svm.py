"""The inductive linear SVM on text, on the same footing as the transductive :mod:`sslviz.tsvm`.

Both see the same features (:func:`text_features`) and the inductive SVM's cost ``C`` is chosen on
the labeled rows only (:func:`choose_svm_c`, used by :func:`linear_svm`); the TSVM then takes that
``C``.
"""

from __future__ import annotations

import warnings

from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from .validation import check_choice

__all__ = ["C_GRID", "choose_svm_c", "linear_svm", "text_features"]

#: Soft-margin costs :func:`choose_svm_c` starts from (the paper's C = 1 among them); the
#: chooser extends the grid by decades while its best value is an end (up to the bounds of
#: ``sslviz.tuning.PARAMETER_KINDS["C"]``).
C_GRID = (1.0, 0.1, 0.3, 3.0)


def _svm(max_iter):
    return LinearSVC(loss="hinge", max_iter=max_iter, random_state=0)


def choose_svm_c(X, y, *, C_grid=C_GRID, cv=5, max_iter=10_000, random_state=None,
                 edge_reason=None):
    """The :class:`sslviz.tuning.Choice` of the hinge-loss ``LinearSVC``'s C on the rows (X, y).

    Cross-validated balanced accuracy (:data:`sslviz.tuning.MARGIN_SCORING`), ties broken by the
    held-out hinge loss (:data:`sslviz.tuning.NEG_HINGE_LOSS`), on ``cv`` stratified folds seeded
    by ``random_state``; ``C_grid`` is extended by decades until the best C is interior
    (:func:`sslviz.tuning.choose_by_cv_interior`, ``kind="C"``). ``edge_reason``: why a choice
    that still stops at a bound of C may be used (it is then acknowledged; without it, using
    such a choice warns, or raises under ``SSLVIZ_STRICT_CLAIMS=1``).
    """
    from .tuning import MARGIN_SCORING, NEG_HINGE_LOSS, choose_by_cv_interior

    with warnings.catch_warnings():  # large C on a fold: liblinear stops at max_iter
        warnings.simplefilter("ignore", ConvergenceWarning)
        choice = choose_by_cv_interior(_svm(max_iter), "C", C_grid, X, y, kind="C",
                                       scoring=MARGIN_SCORING, tie_break=NEG_HINGE_LOSS, cv=cv,
                                       random_state=random_state)
    if choice.at_bound and edge_reason:
        choice = choice.acknowledge_edge(edge_reason)
    return choice


def linear_svm(X, y, *, C=None, C_grid=C_GRID, cv=5, max_iter=10_000, random_state=None,
               edge_reason=None):
    """A one-vs-rest hinge-loss ``LinearSVC`` fitted on the labeled rows ``(X, y)``.

    ``C``: given, or (``None``) chosen from ``C_grid`` on these rows by :func:`choose_svm_c`
    (``cv`` folds seeded by ``random_state``; ``edge_reason`` as there). Returns the fitted
    ``LinearSVC`` (its ``C`` is the one used).
    """
    if C is None:
        C = choose_svm_c(X, y, C_grid=C_grid, cv=cv, max_iter=max_iter,
                         random_state=random_state, edge_reason=edge_reason).value
    return _svm(max_iter).set_params(C=C).fit(X, y)


def text_features(X_fit, *matrices, kind="tfidf"):
    """Word-count ``matrices`` as a linear SVM sees them, each row scaled to unit length.

    ``kind="tfidf"``: scikit-learn's ``TfidfTransformer`` (smoothed idf) fitted on ``X_fit``;
    ``kind="tf"``: the counts themselves. Returns a list, one matrix per input.
    """
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.preprocessing import normalize

    check_choice("kind", kind, ("tfidf", "tf"))
    if kind == "tf":
        return [normalize(M) for M in matrices]
    transformer = TfidfTransformer().fit(X_fit)
    return [transformer.transform(M) for M in matrices]
