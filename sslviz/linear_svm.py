"""The inductive linear SVM on text, on the same footing as the transductive :mod:`sslviz.tsvm`.

Both see the same features (:func:`text_features`) and the inductive SVM's cost ``C`` is chosen on
the labeled rows only (:func:`linear_svm`); the TSVM then takes that ``C``.
"""

from __future__ import annotations

import warnings

from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from .validation import check_choice

__all__ = ["C_GRID", "linear_svm", "text_features"]

#: Soft-margin costs searched by :func:`linear_svm` (the paper's C = 1 among them), and
#: nothing above 3: on unit-length features larger C is close to the hard margin, and liblinear's
#: hinge-loss solver slows down as C grows.
C_GRID = (1.0, 0.1, 0.3, 3.0)


def linear_svm(X, y, *, C=None, C_grid=C_GRID, cv=5, max_iter=10_000, random_state=None):
    """A one-vs-rest hinge-loss ``LinearSVC`` fitted on the labeled rows ``(X, y)``.

    ``C``: given, or (``None``) chosen from ``C_grid`` by ``cv``-fold cross-validated hinge loss on
    these rows (:func:`sslviz.tuning.choose_by_cv`, folds seeded by ``random_state``).
    Returns the fitted ``LinearSVC`` (its ``C`` is the one used).
    """
    from .tuning import choose_by_cv

    svm = LinearSVC(loss="hinge", max_iter=max_iter, random_state=0)
    if C is None:
        with warnings.catch_warnings():  # large C on a fold: liblinear stops at max_iter
            warnings.simplefilter("ignore", ConvergenceWarning)
            C = choose_by_cv(svm, {"C": list(C_grid)}, X, y, cv=cv,
                             random_state=random_state).value
    return svm.set_params(C=C).fit(X, y)


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
