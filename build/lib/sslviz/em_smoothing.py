"""How much of a Naive Bayes class model is smoothing: pure summaries for Lecture 04.

Multinomial Naive Bayes (and every M-step of EM) estimates

    P(w|c) = (alpha + N(w, c)) / (alpha |V| + N(c))

so a class holds ``alpha·|V|`` pseudo-tokens beside its ``N(c)`` real ones. With a handful of
labeled documents ``N(c)`` is a few thousand tokens; with a 166,000-word vocabulary ``alpha=0.1``
adds 16,600 pseudo-tokens. Every class then prices the words it never saw at about ``1/|V|``,
and the classes differ only in the few words they did see: the class whose labeled documents
cover the most words "recognises" the most words of any document and takes most of them. That
is the collapse :func:`majority_share` measures. Cost: one pass over the labeled rows' counts.

References
----------
Nigam, McCallum, Thrun & Mitchell (2000), section 5.2 (smoothing of the word estimates);
Manning, Raghavan & Schütze (2008), Introduction to Information Retrieval, eq. 13.7.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .validation import check_number, labeled_mask

__all__ = ["SmoothingMass", "majority_share", "smoothing_mass"]


@dataclass(frozen=True)
class SmoothingMass:
    """Real and pseudo tokens of every class under add-``alpha`` smoothing.

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
    tokens : ndarray of shape (n_classes,)
        Word tokens of the labeled documents of each class, N(c).
    alpha : float
    n_words : int
        Vocabulary size |V|.
    """

    classes: np.ndarray
    tokens: np.ndarray
    alpha: float
    n_words: int

    @property
    def pseudo_tokens(self):
        """``alpha·|V|``: the pseudo-tokens smoothing adds to every class."""
        return self.alpha * self.n_words

    @property
    def smoothing_share(self):
        """Share of each class's total mass that is smoothing, ``alpha|V| / (alpha|V| + N(c))``,
        shape (n_classes,)."""
        return self.pseudo_tokens / (self.pseudo_tokens + self.tokens)


def smoothing_mass(X, y, alpha):
    """Tokens per class of the labeled rows against the ``alpha·|V|`` pseudo-tokens.

    Parameters
    ----------
    X : array or sparse matrix of word counts, shape (n_documents, n_words)
    y : array of shape (n_documents,); ``-1`` marks unlabeled rows (ignored)
    alpha : float > 0
        Additive smoothing (scikit-learn's meaning).

    Returns
    -------
    SmoothingMass
    """
    alpha = check_number("alpha", alpha, above=0)
    y = np.asarray(y)
    labeled = labeled_mask(y)
    if not labeled.any():
        raise ValueError("no labeled rows: every entry of y is -1; smoothing mass is counted "
                         "on labeled documents")
    X = sp.csr_matrix(X)
    if X.shape[0] != len(y):
        raise ValueError(f"X has {X.shape[0]} rows but y has {len(y)} entries")
    classes = np.unique(y[labeled])
    lengths = np.asarray(X.sum(axis=1)).ravel()
    tokens = np.array([lengths[labeled & (y == c)].sum() for c in classes], dtype=float)
    return SmoothingMass(classes, tokens, float(alpha), int(X.shape[1]))


def majority_share(predictions):
    """Share of the predictions that go to the most-predicted class (1/n_classes = balanced,
    1.0 = every document in one class)."""
    predictions = np.asarray(predictions)
    if predictions.size == 0:
        raise ValueError("no predictions: majority_share needs at least one")
    return float(np.unique(predictions, return_counts=True)[1].max() / predictions.size)
