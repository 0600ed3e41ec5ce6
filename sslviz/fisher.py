"""The Fisher kernel of a multinomial Naive Bayes mixture (Takamura & Okumura; Jaakkola & Haussler).

A generative model ``P(x|θ)`` turns a document into a vector: the gradient of the document's
log-likelihood with respect to the parameters, its **Fisher score** ``∇_θ log P(x|θ)``. It says in
which direction, and how strongly, the parameters would move if the document were added to the
data the model was estimated from. Two documents that would pull the model the same way get a
large inner product; that inner product (with the identity in place of the inverse Fisher
information matrix) is the Fisher kernel, and a linear SVM on the scores is an SVM with that kernel.

The model is the Naive Bayes mixture of :mod:`sslviz.em` (Takamura & Okumura, eq. 3)::

    P(x|θ) ∝ Σ_c P(c) Π_w P(w|c)^N(w,x)

written in the *spherical* parameters ``ρ_wc = 2 √P(w|c)`` and ``ρ_c = 2 √P(c)``, in which the
identity is a reasonable stand-in for the Fisher information (Hofmann, 2000). Differentiating
(eq. 10 and 11; each ρ treated as a free coordinate)::

    ∂ log P(x|θ) / ∂ρ_wc = N(w,x) P(c|x) / √P(w|c)
    ∂ log P(x|θ) / ∂ρ_c  = P(c|x) / √P(c)

So a document's score is its word counts, copied into the block of every component ``c`` in
proportion to the posterior ``P(c|x)`` and reweighted by ``1/√P(w|c)``: words that are rare in the
component count for more (an idf-like weighting learned from the model), plus one entry per
component for the posterior itself. Scores are finally scaled to unit length, as in the paper.

Which model: ``variant`` picks one of the paper's three (section 4.2).

* ``"n-cat"`` - the supervised Naive Bayes of the labeled rows (no EM; unlabeled rows unused).
* ``"ul-cat"`` - EM on labeled and unlabeled rows, one component per category (the NB+EM model).
* ``"ul-cl"`` - EM on all rows *as unlabeled*, with ``n_clusters`` randomly initialised
  clusters; the labels are not used to build the model.

EM uses deterministic annealing (Ueda & Nakano, 1998), as in the paper. The paper names the method
but gives no schedule; ours, :data:`ANNEALING`, starts at β = 0.01 because the log-likelihoods of
whole documents differ between classes by tens to hundreds of nats, so only a small β makes the
first E-steps soft.

Cost and memory: the scores live in ``n_components × (n_words + 1)`` dimensions (516,060 for 20
Newsgroups with 25,802 words and 20 categories) but are sparse: a document has entries only in the
blocks of the components it may belong to. A dense block for every component would cost
``n_components × nnz(X)`` stored values (12 bytes each, value and column index), e.g. 300 MB for
8,800 posts. Naive Bayes posteriors are nearly always close to 0 or 1, so blocks whose length is
below ``prune_tol`` times the length of the whole score are dropped (together they are shorter
than ``√n_components × prune_tol`` times the score, so the normalised vector moves by about that
much at most); in practice one or two blocks per document remain: on 20 Newsgroups the output has
about 1.1 × nnz(X) entries for the EM models and 1.8 × nnz(X) for n-cat. Computing the scores
costs O(nnz(X) × n_components).

References
----------
Takamura & Okumura, A comparative study on the use of labeled and unlabeled data for large margin
classifiers, sections 3.2-5, equations 3, 9, 10, 11. Jaakkola & Haussler (1998), Exploiting
generative models in discriminative classifiers. Hofmann (2000), Learning the similarity of
documents. Ueda & Nakano (1998), Deterministic annealing EM algorithm.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.preprocessing import normalize as normalize_rows
from sklearn.utils.validation import check_is_fitted, check_non_negative, validate_data

from .em import SemiSupervisedNB
from .validation import (
    check_bool,
    check_choice,
    check_int,
    check_number,
    check_seed,
    semi_supervised_target,
)
from .words import top_indices

__all__ = ["ANNEALING", "FisherDocumentView", "FisherKernelNB", "VARIANTS", "fisher_document_view",
           "fisher_scores", "log_likelihood_spherical", "score_blocks", "top_count_entries",
           "top_entries"]

VARIANTS = ("n-cat", "ul-cat", "ul-cl")
#: Inverse temperatures of deterministic annealing EM (ours; the paper gives no schedule).
ANNEALING = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)


class FisherKernelNB(TransformerMixin, BaseEstimator):
    """Documents -> unit-length Fisher scores of a multinomial Naive Bayes mixture.

    ``fit`` estimates a Naive Bayes mixture (:class:`~sslviz.em.SemiSupervisedNB`) in one of the
    paper's three ways (``variant``); ``transform`` maps each document to the gradient of its
    log-likelihood under that model with respect to the spherical parameters, scaled to unit
    length. A linear classifier on these scores (e.g. ``LinearSVC``) is an SVM with the Fisher
    kernel.

    Parameters
    ----------
    variant : {"n-cat", "ul-cat", "ul-cl"}, default="ul-cat"
        Which model the scores come from (see the module docstring).
    alpha : float, default=1.0
        Smoothing of :class:`~sslviz.em.SemiSupervisedNB` (the paper's Dirichlet α = 2.0 is
        ``alpha=1.0``).
    n_clusters : int or None, default=None
        Clusters of ``"ul-cl"``; ``None`` means as many as there are classes among the labeled
        rows (the paper's 20). Ignored by the other variants.
    annealing : sequence of float or None, default=ANNEALING
        Inverse temperatures of deterministic annealing EM (``None``: plain EM). Not used by
        ``"n-cat"``.
    max_iter : int, default=20
        EM iterations per annealing stage.
    tol : float, default=1e-6
        EM's relative convergence threshold.
    prune_tol : float in [0, 1), default=1e-4
        A component's block of a document's score is dropped when its length is below
        ``prune_tol`` times the length of the whole score. ``0`` keeps every block (exact,
        ``n_components`` times more memory).
    normalize : bool, default=True
        Scale every score to unit (Euclidean) length, as the paper does.
    random_state : int, RandomState or None, default=None
        Seeds the random initial clusters of ``"ul-cl"``.

    Attributes
    ----------
    nb_ : SemiSupervisedNB
        The fitted generative model (``record="summary"``: its trace keeps only scalars).
    classes_ : ndarray of shape (n_components,)
        The components the score blocks belong to: categories, or cluster numbers 0..K-1.
    n_iter_ : int
        EM iterations run (all annealing stages; 0 for ``"n-cat"``).
    n_features_in_ : int
        Number of columns (words) of the ``X`` seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names of ``X``; set only when ``X`` was a DataFrame with string column names.
    n_features_out_ : int
        ``n_components × (n_features_in_ + 1)``.

    Notes
    -----
    The output's first ``n_components`` columns are the ``ρ_c`` entries; then come the blocks
    ``ρ_wc``, component by component (column ``n_components + c × n_words + w``). See
    :meth:`get_feature_names_out` and :func:`score_blocks`.

    Pitfall: posteriors of documents hundreds of words long are nearly 0 or 1, so a score lies
    almost entirely in the block of the component the model assigns the document to. A model
    that misassigns documents (e.g. n-cat from a few labels) hands its mistakes to the SVM.

    References
    ----------
    Takamura & Okumura, A comparative study on the use of labeled and unlabeled data for large
    margin classifiers, sections 4.1-4.2 and 5, equations 10-11. Jaakkola & Haussler (1998),
    Exploiting generative models in discriminative classifiers.

    Examples
    --------
    >>> import numpy as np
    >>> from sslviz.fisher import FisherKernelNB
    >>> X = np.array([[3, 0, 1], [2, 0, 0], [0, 3, 1], [0, 2, 0], [4, 1, 0], [0, 4, 1]])
    >>> y = np.array([0, -1, 1, -1, -1, -1])
    >>> FisherKernelNB(random_state=0).fit(X, y).transform(X).shape
    (6, 8)
    """

    def __init__(self, variant="ul-cat", alpha=1.0, n_clusters=None, annealing=ANNEALING,
                 max_iter=20, tol=1e-6, prune_tol=1e-4, normalize=True, random_state=None):
        self.variant = variant
        self.alpha = alpha
        self.n_clusters = n_clusters
        self.annealing = annealing
        self.max_iter = max_iter
        self.tol = tol
        self.prune_tol = prune_tol
        self.normalize = normalize
        self.random_state = random_state

    def fit(self, X, y):
        """Estimate the generative model of ``variant`` from ``X`` (counts), ``y == -1`` unlabeled.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Word counts (non-negative) of the labeled and the unlabeled documents together.
            ``"n-cat"`` reads only the labeled rows; ``"ul-cl"`` uses every row as unlabeled.
        y : array-like of shape (n_samples,)
            Class labels (integers or strings), ``-1`` for an unlabeled document; required.
            ``"n-cat"`` and ``"ul-cat"`` need labeled rows; ``"ul-cl"`` uses the labels only
            to count the classes when ``n_clusters`` is ``None`` (all ``-1`` is allowed with
            ``n_clusters``).

        Returns
        -------
        self : FisherKernelNB
            The fitted transformer.

        Raises
        ------
        ValueError
            If a parameter is out of its range; if ``y`` is None, or has no labeled row for
            ``"n-cat"``/``"ul-cat"`` (or for ``"ul-cl"`` without ``n_clusters``); if the rows
            the model is estimated from hold a negative count or no count at all (and whatever
            else :meth:`SemiSupervisedNB.fit <sslviz.em.SemiSupervisedNB.fit>` refuses).
        """
        self._check_params()
        if y is None:
            raise ValueError("FisherKernelNB requires y to be passed, but the target y is None: "
                             "pass class labels, with -1 for unlabeled "
                             "rows (all -1 is allowed for variant='ul-cl' with n_clusters)")
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        y, labeled = semi_supervised_target(y)
        em = {"alpha": self.alpha, "max_iter": self.max_iter, "tol": self.tol,
              "record": "summary"}
        if self.variant in ("n-cat", "ul-cat") and not labeled.any():
            raise ValueError(f"variant {self.variant!r} needs labeled rows (y != -1), but every "
                             "entry of y is -1; use variant='ul-cl' to build the model from "
                             "clusters of unlabeled rows")
        if self.variant == "n-cat":
            nb = SemiSupervisedNB(**{**em, "max_iter": 0}).fit(X[labeled], y[labeled])
        elif self.variant == "ul-cat":
            nb = SemiSupervisedNB(annealing=self.annealing, **em).fit(X, y)
        else:
            n_clusters = self.n_clusters
            if n_clusters is None:
                if not labeled.any():
                    raise ValueError("variant 'ul-cl' with no labeled rows needs n_clusters "
                                     "(the default is the number of classes among the labeled "
                                     "rows)")
                n_clusters = len(np.unique(y[labeled]))
            nb = SemiSupervisedNB(annealing=self.annealing, init="random",
                                  classes=np.arange(n_clusters), random_state=self.random_state,
                                  **em)
            nb.fit(X, np.full(X.shape[0], -1))
        self.nb_ = nb
        self.n_iter_ = nb.n_iter_
        self.classes_ = nb.classes_
        self.n_features_out_ = len(nb.classes_) * (X.shape[1] + 1)
        return self

    def transform(self, X):
        """Unit-length Fisher scores, a csr matrix of shape (n_samples, n_features_out_).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Word counts (non-negative) over the vocabulary of ``fit``; any documents, not only
            the fitted ones.

        Returns
        -------
        scores : scipy.sparse.csr_matrix of shape (n_samples, n_features_out_)
            Columns as described in the Notes (``ρ_c`` entries, then one block per component);
            blocks below ``prune_tol`` dropped; rows of unit length when ``normalize``.

        Raises
        ------
        ValueError
            If ``X`` has a negative entry (it must hold word counts).
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        check_non_negative(X, "FisherKernelNB (X must hold word counts)")
        return fisher_scores(X, self.nb_.component_log_prior_, self.nb_.component_log_prob_,
                             prune_tol=self.prune_tol, normalize=self.normalize)

    def get_feature_names_out(self, input_features=None):
        """Names of the output columns: ``rho[c]`` then ``rho[<word>|c]`` for every component.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            The words, one per column of ``X``; ``None``: ``x0``, ``x1``, ...

        Returns
        -------
        names : ndarray of object, shape (n_features_out_,)
            One name per column of :meth:`transform`, in the order of the Notes.

        Raises
        ------
        ValueError
            If ``input_features`` does not hold one name per column of ``fit``'s ``X``.
        """
        check_is_fitted(self)
        if input_features is None:
            input_features = np.array([f"x{i}" for i in range(self.n_features_in_)])
        words = np.asarray(input_features, dtype=str)
        if len(words) != self.n_features_in_:
            raise ValueError(f"input_features has {len(words)} names; the model has "
                             f"{self.n_features_in_} features")
        priors = [f"rho[{c}]" for c in self.classes_]
        blocks = [np.char.add(np.char.add("rho[", words), f"|{c}]") for c in self.classes_]
        return np.concatenate([np.array(priors, dtype=object)]
                              + [block.astype(object) for block in blocks])

    def _check_params(self):
        check_choice("variant", self.variant, VARIANTS)
        check_bool("normalize", self.normalize)
        check_number("prune_tol", self.prune_tol, minimum=0, below=1)
        check_seed("random_state", self.random_state)
        if self.n_clusters is not None:
            check_int("n_clusters", self.n_clusters, minimum=1)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        tags.target_tags.required = True
        return tags


def fisher_scores(X, log_prior, log_prob, *, prune_tol=0.0, normalize=True):
    """Fisher scores of the mixture ``Σ_c P(c) Π_w P(w|c)^N(w,x)`` in spherical parameters.

    Parameters
    ----------
    X : sparse matrix of shape (n_samples, n_words)
        Word counts.
    log_prior : ndarray of shape (n_components,)
        log P(c).
    log_prob : ndarray of shape (n_components, n_words)
        log P(w|c).
    prune_tol : float, default=0.0
        Drop a component's block of a row when its length is below ``prune_tol`` times the
        row's whole length (see the module docstring); ``0`` keeps every block.
    normalize : bool, default=True
        Scale each row to unit length.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_samples, n_components × (n_words + 1))
        Columns ``[0, K)``: ``P(c|x)/√P(c)`` (eq. 11); column ``K + c × n_words + w``:
        ``N(w,x) P(c|x)/√P(w|c)`` (eq. 10).
    """
    # a copy: scipy shares index arrays between a matrix and its dtype conversion, and some
    # operations (e.g. ``power``) sort indices in place, which would scramble the caller's rows
    X = sp.csr_matrix(X, dtype=np.float64, copy=True)
    X.sum_duplicates()
    log_prior, log_prob = np.asarray(log_prior, float), np.asarray(log_prob, float)
    n_samples, n_words = X.shape
    n_components = len(log_prior)
    joint = np.asarray(X @ log_prob.T) + log_prior
    if not np.all(np.isfinite(joint)):
        raise ValueError(f"X holds counts too large (up to {X.max():.3g}) for a document's "
                         "log-likelihood to be finite: X must hold word counts")
    posterior = np.exp(joint - logsumexp(joint, axis=1, keepdims=True))  # P(c|x)
    inv_sqrt_prob = np.exp(-0.5 * log_prob)  # 1/√P(w|c)
    prior_part = posterior * np.exp(-0.5 * log_prior)  # eq. 11
    # Every row is built divided by its largest count (``peak``) when that exceeds 1, so that
    # huge counts cannot overflow an entry or a squared length (tiny counts are left as they
    # are: dividing by them would blow up the prior part); the division is undone at the end
    # unless the rows are scaled to unit length anyway.
    peak = np.maximum(_row_peaks(X), 1.0)
    X = (sp.diags(1.0 / peak) @ X).tocsr()
    prior_part = prior_part / peak[:, None]
    # squared length of each block: P(c|x)² Σ_w N(w,x)²/P(w|c) (+ the ρ_c entry)
    block_sq = posterior**2 * np.asarray(X.power(2) @ np.exp(-log_prob).T) + prior_part**2
    keep = block_sq >= prune_tol**2 * block_sq.sum(axis=1, keepdims=True)
    rows = np.repeat(np.arange(n_samples), np.diff(X.indptr))
    parts_rows, parts_cols, parts_data = [], [], []
    for c in range(n_components):
        kept_rows = np.flatnonzero(keep[:, c])
        parts_rows.append(kept_rows)
        parts_cols.append(np.full(len(kept_rows), c))
        parts_data.append(prior_part[kept_rows, c])
        entries = keep[rows, c]
        words = X.indices[entries]
        parts_rows.append(rows[entries])
        parts_cols.append(n_components + c * n_words + words)
        parts_data.append(X.data[entries] * posterior[rows[entries], c]
                          * inv_sqrt_prob[c, words])  # eq. 10
    scores = sp.csr_matrix(
        (np.concatenate(parts_data), (np.concatenate(parts_rows), np.concatenate(parts_cols))),
        shape=(n_samples, n_components * (n_words + 1)))
    scores.sum_duplicates()
    return normalize_rows(scores) if normalize else (sp.diags(peak) @ scores).tocsr()


def _row_peaks(matrix):
    """The largest absolute entry of each row of a sparse matrix (1 for an empty row)."""
    peak = np.asarray(abs(matrix).max(axis=1).todense()).ravel()
    return np.where(peak > 0, peak, 1.0)


def score_blocks(scores, n_components, n_words):
    """Split score rows into their parts: ``(prior part (n, K), word blocks (n, K, n_words))``.

    For display of a few documents (the word blocks are returned dense).
    """
    scores = sp.csr_matrix(scores)
    if scores.shape[1] != n_components * (n_words + 1):
        raise ValueError(f"scores have {scores.shape[1]} columns, not "
                         f"{n_components} × ({n_words} + 1)")
    dense = scores.toarray()
    return dense[:, :n_components], dense[:, n_components:].reshape(-1, n_components, n_words)


def log_likelihood_spherical(x, rho_prior, rho_words):
    """log Σ_c P(c) Π_w P(w|c)^N(w,x) with P(c) = ρ_c²/4, P(w|c) = ρ_wc²/4 (not renormalised).

    The function the Fisher score differentiates (each ρ a free coordinate); for checks by
    finite differences. ``x``: counts of one document, shape (n_words,).
    """
    x = np.asarray(x, float)
    log_prior = np.log(np.asarray(rho_prior, float) ** 2 / 4)
    log_prob = np.log(np.asarray(rho_words, float) ** 2 / 4)
    return float(logsumexp(log_prior + log_prob @ x))


def top_entries(scores_row, classes, vocabulary, k=10):
    """The ``k`` largest entries of one score vector, with what each one is.

    Parameters
    ----------
    scores_row : sparse matrix of shape (1, n_components × (n_words + 1))
        One row of :meth:`FisherKernelNB.transform` (or of :func:`fisher_scores`).
    classes : sequence of length n_components
        Names of the components (``model.classes_`` or class names).
    vocabulary : sequence of str, length n_words

    Returns
    -------
    list of (component index, word or None, value), largest value first
        ``word`` is ``None`` for a component's ``ρ_c`` entry.
    """
    row = sp.csr_matrix(scores_row)
    n_components, n_words = len(classes), len(vocabulary)
    if row.shape != (1, n_components * (n_words + 1)):
        raise ValueError(f"expected one score row of {n_components} × ({n_words} + 1) columns, "
                         f"got shape {row.shape}")
    order = top_indices(row.data, k)
    entries = []
    for column, value in zip(row.indices[order], row.data[order], strict=True):
        if column < n_components:
            entries.append((int(column), None, float(value)))
        else:
            c, w = divmod(int(column) - n_components, n_words)
            entries.append((c, str(vocabulary[w]), float(value)))
    return entries


def top_count_entries(x, vocabulary, k=10):
    """The ``k`` largest entries of one document's unit-length count vector.

    What a linear SVM on length-normalised counts sees, for comparison with :func:`top_entries`.

    Returns
    -------
    list of (word, count, value), largest value first
    """
    x = sp.csr_matrix(x)
    if x.shape != (1, len(vocabulary)):
        raise ValueError(f"expected one row of {len(vocabulary)} counts, got shape {x.shape}")
    values = x.data / np.linalg.norm(x.data) if x.nnz else x.data
    order = top_indices(values, k)
    return [(str(vocabulary[x.indices[i]]), int(x.data[i]), float(values[i])) for i in order]


# -- one document seen by one model (what the document explorer shows) ---------------------
@dataclass(frozen=True)
class FisherDocumentView:
    """One test post seen by one model: the posterior ``P(c|x)`` over the components, the
    largest entries of its unit-length counts ``(word, count, value)`` and of its Fisher score
    ``(component, word or None, value)``; ``true_index`` is ``None`` for clusters."""

    title: str
    model_name: str
    component_names: list
    posterior: np.ndarray
    true_index: int | None
    predicted_index: int
    counts: list
    entries: list


def fisher_document_view(corpus, model, *, row, position, variant, k):
    """The :class:`FisherDocumentView` of corpus row ``row`` (test post number ``position``)
    under the fitted :class:`~sslviz.fisher.FisherKernelNB` ``model`` of ``variant``."""
    clusters = variant == "ul-cl"
    names = list(corpus.target_names)
    components = ([f"cluster {c}" for c in model.classes_] if clusters
                  else [names[c] for c in model.classes_])
    x, true_class = corpus.X[row], int(corpus.y[row])
    posterior = model.nb_.predict_proba(x)[0]
    predicted = int(np.argmax(posterior))
    true_index = None if clusters else int(np.flatnonzero(model.classes_ == true_class)[0])
    score = model.transform(x)
    verdict = ("" if clusters else "  (right)" if predicted == true_index
               else f"  (model says {components[predicted]})")
    return FisherDocumentView(
        title=f"test post {position} (corpus row {row}): {names[true_class]}{verdict} — "
        f"{x.nnz} distinct words, {score.nnz} non-zero Fisher entries",
        model_name=f"{'cluster' if clusters else 'class'} posterior\n({variant} model)",
        component_names=components, posterior=posterior, true_index=true_index,
        predicted_index=predicted, counts=top_count_entries(x, corpus.vocabulary, k),
        entries=top_entries(score, components, corpus.vocabulary, k))
