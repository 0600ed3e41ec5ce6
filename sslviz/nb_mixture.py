"""The multinomial mixture behind EM and classification EM: its data, its E-step and its M-step.

:class:`~sslviz.em.SemiSupervisedNB` runs EM (soft assignment) or CEM (hard assignment) over these
pieces: :class:`MixtureProblem` arranges one fit's counts, :meth:`MixtureState.with_e_step`
computes responsibilities and the objective, :func:`m_step` re-estimates the parameters from
(weighted) responsibilities. Counting is kept apart from smoothing (:func:`smoothed_parameters`).
The equations are in :mod:`sslviz.em`'s docstring.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp

from .validation import is_unlabeled

__all__ = ["MixtureProblem", "MixtureState", "c_step", "initial_state", "log_sum_exp", "m_step",
           "smoothed_parameters"]


@dataclass(frozen=True)
class MixtureProblem:
    """The data of one fit, arranged for fast E- and M-steps."""

    X: sp.csr_matrix
    XT: sp.csr_matrix
    allowed: np.ndarray  # (n_samples, n_comp) bool: components a row may belong to
    unlabeled: np.ndarray  # bool mask of unlabeled rows
    weights: np.ndarray  # z_x: 1 for labeled rows, λ for unlabeled rows
    unlabeled_weight: float
    doc_lengths: np.ndarray  # words per row: gives the M-step's normaliser in O(n K)
    n_classes: int
    n_components: int
    # the last state given to class_parameters and its result: a fit's trace and its fitted
    # attributes ask for the same state's parameters one after the other
    _last: list = field(default_factory=lambda: [None, None], repr=False, compare=False)

    @classmethod
    def build(cls, X, y, classes, n_components, unlabeled_weight):
        unlabeled = is_unlabeled(y)
        class_index = np.full(len(y), -1)
        class_index[~unlabeled] = np.searchsorted(classes, y[~unlabeled])
        component_class = np.repeat(np.arange(len(classes)), n_components)
        allowed = (component_class[None, :] == class_index[:, None]) | unlabeled[:, None]
        weights = np.where(unlabeled, float(unlabeled_weight), 1.0)
        doc_lengths = np.asarray(X.sum(axis=1)).ravel()
        return cls(X, X.T.tocsr(), allowed, unlabeled, weights, float(unlabeled_weight),
                   doc_lengths, len(classes), n_components)

    def class_posteriors(self, resp):
        """Sum component responsibilities per class: (n, n_comp) -> (n, n_classes)."""
        return resp.reshape(len(resp), self.n_classes, self.n_components).sum(axis=2)

    def class_parameters(self, state):
        """Class-level log prior and log P(w|c) (a class's components mixed by their priors)."""
        if self._last[0] is not state:
            self._last[:] = state, self._class_parameters(state)
        return self._last[1]

    def _class_parameters(self, state):
        prior = state.log_prior.reshape(self.n_classes, self.n_components)
        class_log_prior = log_sum_exp(prior, axis=1)
        if self.n_components == 1:
            return class_log_prior, state.log_prob
        within = (prior - class_log_prior[:, None])[:, :, None]
        log_prob = state.log_prob.reshape(self.n_classes, self.n_components, -1)
        return class_log_prior, log_sum_exp(within + log_prob, axis=1)


def log_sum_exp(a, axis):
    """``log Σ exp(a)`` along ``axis``, shifted by the largest entry (scipy's ``logsumexp``
    without its input checks, which cost more than the sum on the mixture's arrays; equal to it
    within rounding). A slice of ``-inf`` only gives ``-inf``."""
    top = np.max(a, axis=axis, keepdims=True)
    top[~np.isfinite(top)] = 0.0
    with np.errstate(divide="ignore"):
        return np.log(np.sum(np.exp(a - top), axis=axis)) + np.squeeze(top, axis=axis)


@dataclass(frozen=True)
class MixtureState:
    """Parameters, and (after ``with_e_step``) responsibilities and objective terms."""

    log_prior: np.ndarray  # (n_comp,)
    log_prob: np.ndarray  # (n_comp, n_features)
    alpha: float
    resp: np.ndarray | None = None  # E-step at the stage's beta: what the next M-step uses
    posteriors: np.ndarray | None = None  # P(m|x) at beta = 1: what the model predicts
    labeled_ll: float = np.nan
    unlabeled_ll: float = np.nan
    objective: float = np.nan  # L(θ) of the module docstring
    annealed_objective: float = np.nan  # the same with (1/beta) log Σ exp(beta ·): DAEM's target

    def with_e_step(self, problem, beta):
        """E-step at inverse temperature ``beta``, from one product ``X @ log θ.T``.

        The product goes through ``XT.T`` (a CSC view of X), which reads log θ in order and is
        about 2.5× faster than the CSR product; log-sum-exp is done by hand so that the
        exponentials serve both the posteriors and the log-likelihood.
        """
        joint = np.asarray(problem.XT.T @ self.log_prob.T)
        joint += self.log_prior
        np.copyto(joint, -np.inf, where=~problem.allowed)
        top = joint.max(axis=1, keepdims=True)
        posteriors = np.exp(joint - top)
        total = posteriors.sum(axis=1, keepdims=True)
        posteriors /= total
        doc_ll = (top + np.log(total)).ravel()
        lam, unlabeled = problem.unlabeled_weight, problem.unlabeled
        prior_term = self.alpha * (self.log_prior.sum() + self.log_prob.sum())
        labeled_ll, unlabeled_ll = float(doc_ll[~unlabeled].sum()), float(doc_ll[unlabeled].sum())
        objective = labeled_ll + lam * unlabeled_ll + prior_term
        resp, annealed = posteriors, objective
        if beta != 1.0:
            annealed_ll = logsumexp(beta * joint, axis=1)
            resp = np.exp(beta * joint - annealed_ll[:, None])
            annealed_ll /= beta
            annealed = (annealed_ll[~unlabeled].sum() + lam * annealed_ll[unlabeled].sum()
                        + prior_term)
        return replace(self, resp=resp, posteriors=posteriors, labeled_ll=labeled_ll,
                       unlabeled_ll=unlabeled_ll, objective=float(objective),
                       annealed_objective=float(annealed))


def m_step(problem, state, alpha):
    """MAP re-estimation from the responsibilities of ``state`` (eq. 6-7 with EM-λ weights)."""
    weighted = state.resp * problem.weights[:, None]
    return smoothed_parameters(weighted, np.asarray(problem.XT @ weighted),
                                problem.doc_lengths, alpha)


def initial_state(problem, alpha, rng, init="labeled"):
    """Iteration 0: the M-step on the labeled rows alone (random split over components).

    With ``init="random"`` the M-step runs on every row (unlabeled ones weighted by λ), each
    spread at random over the components it may belong to.
    """
    rows = ~problem.unlabeled if init == "labeled" else np.ones(len(problem.unlabeled), bool)
    resp = problem.allowed[rows].astype(float)
    if problem.n_components > 1 or init == "random":
        resp *= rng.random_sample(resp.shape) + 1e-3
    resp /= resp.sum(axis=1, keepdims=True)
    if init == "random":
        resp *= problem.weights[rows, None]
    word_counts = np.asarray(problem.X[rows].T @ resp)
    return smoothed_parameters(resp, word_counts, problem.doc_lengths[rows], alpha)


def smoothed_parameters(weighted_resp, word_counts, doc_lengths, alpha):
    """Smoothing, kept apart from counting: expected counts -> log parameters (a new MixtureState).

    ``weighted_resp`` (n_rows, n_comp) are the documents' weighted memberships and
    ``word_counts`` (n_features, n_comp) = ``X.T @ weighted_resp``, which is overwritten: the
    add-alpha and the log happen in place, and each component's normaliser comes from the
    documents' lengths in O(n K) rather than from summing the (n_features, n_comp) array.
    """
    # (a plain sum, no BLAS call: on long vectors OpenBLAS leaves a thread spinning that slows EM)
    totals = (weighted_resp * doc_lengths[:, None]).sum(axis=0)
    log_prob = word_counts
    log_prob += alpha
    np.log(log_prob, out=log_prob)
    log_prob -= np.log(totals + alpha * log_prob.shape[0])
    smoothed_prior = weighted_resp.sum(axis=0) + alpha
    log_prior = np.log(smoothed_prior) - np.log(smoothed_prior.sum())
    return MixtureState(log_prior, log_prob.T, alpha)


def c_step(log_posteriors):
    """The C-step: each row to its most probable class, as a one-hot array.

    Parameters
    ----------
    log_posteriors : ndarray of shape (n_rows, n_classes)
        Any scores monotone in the posteriors (log posteriors, log joints, responsibilities).

    Returns
    -------
    ndarray of shape (n_rows, n_classes), float
        One 1 per row, at ``argmax``; an exact tie goes to the lowest column.
    """
    scores = np.asarray(log_posteriors)
    if scores.ndim != 2 or scores.shape[1] == 0:
        raise ValueError(f"c_step needs a 2-D array (n_rows, n_classes), got shape {scores.shape}")
    hard = np.zeros(scores.shape)
    hard[np.arange(len(scores)), np.argmax(scores, axis=1)] = 1.0
    return hard
