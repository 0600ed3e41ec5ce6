"""Maximum entropy discrimination for kernel expansions (Szummer & Jaakkola 2000, section 4 and
the appendix): the convex dual, its gradient, the optimality checks and the line searches.

With ``R`` the memberships ``P(i|x_l)`` of the L labeled points (shape (L, N)), labels
``y_pm ∈ {−1, +1}`` and multipliers ``λ ∈ [0, C_l]``::

    s_i      = Σ_l y_l λ_l P(i|x_l)
    log Z(λ) = −γ Σ_l λ_l + Σ_i log(2 cosh s_i)                       (eq. 5-6)
    ∂/∂λ_k   = −γ + y_k Σ_i tanh(s_i) P(i|x_k)                        (eq. 7-8)

and the weights of the classifier are ``w_i = tanh(s_i)``. The estimator that uses these is
:class:`sslviz.kernel_expansion.KernelExpansionClassifier`. Cost: one gradient is O(L N); one
sweep of line searches O(L N) per evaluation, with the running sums ``s`` kept up to date.
"""

from __future__ import annotations

import numpy as np

__all__ = ["med_duality_gap", "med_gradient", "med_kkt_violation", "med_log_partition",
           "med_penalties", "med_sweep"]


def med_log_partition(R, y_pm, multipliers, gamma):
    """``log Z(λ) = −γ Σ λ + Σ_i log(2 cosh s_i)`` (eq. 5-6)."""
    s = R.T @ (y_pm * multipliers)
    return float(-gamma * np.sum(multipliers) + np.sum(np.logaddexp(s, -s)))


def med_gradient(R, y_pm, multipliers, gamma):
    """``∂ log Z / ∂λ_k = −γ + y_k Σ_i tanh(s_i) P(i|x_k)`` (eq. 7-8), shape (L,)."""
    s = R.T @ (y_pm * multipliers)
    return -gamma + y_pm * (R @ np.tanh(s))


def med_kkt_violation(gradient, multipliers, penalties):
    """Per-coordinate violation of the optimality conditions on the box ``[0, C_l]``."""
    at_zero, at_top = multipliers <= 0, multipliers >= penalties
    return np.where(at_zero, np.maximum(0.0, -gradient),
                    np.where(at_top, np.maximum(0.0, gradient), np.abs(gradient)))


def med_duality_gap(R, y_pm, multipliers, gamma, penalties):
    """``log Z(λ)`` minus the primal value ``Σ_i H(P_i) − Σ_l C_l ξ_l`` of the distribution λ
    defines (slacks ``ξ_l = max(0, γ − y_l f(x_l))``); zero exactly at the optimum."""
    s = R.T @ (y_pm * multipliers)
    w = np.tanh(s)
    entropy = np.sum(np.logaddexp(s, -s) - s * w)
    slack = np.maximum(0.0, gamma - y_pm * (R @ w))
    return med_log_partition(R, y_pm, multipliers, gamma) - float(entropy - penalties @ slack)


def med_penalties(y_pm, C, balanced):
    """``C_l`` per labeled point: ``C``, or ``C L / (2 L_±)`` so that ``C_+ L_+ = C_− L_−``."""
    if not balanced:
        return np.full(len(y_pm), float(C))
    n_pos, n_neg = np.sum(y_pm > 0), np.sum(y_pm < 0)
    return np.where(y_pm > 0, C * len(y_pm) / (2 * n_pos), C * len(y_pm) / (2 * n_neg))


def med_sweep(R, y_pm, multipliers, gamma, penalties, xtol=1e-10):
    """One pass of axis-parallel line searches over the multipliers; returns new multipliers.

    On coordinate ``k`` the derivative ``g_k(t)`` is increasing in ``t``: ``t = 0`` if
    ``g_k(0) ≥ 0``, ``t = C_k`` if ``g_k(C_k) ≤ 0``, else the root, by Newton steps kept inside
    a shrinking bracket (a bisection step whenever Newton would leave it).
    """
    lam = np.array(multipliers, dtype=float)
    s = R.T @ (y_pm * lam)
    for k in range(len(lam)):
        r_k, y_k = R[k], y_pm[k]
        base = s - y_k * lam[k] * r_k
        t = _line_search(base, r_k, y_k, gamma, float(penalties[k]), lam[k], xtol)
        lam[k] = t
        s = base + y_k * t * r_k
    return lam


def _line_search(base, r_k, y_k, gamma, top, start, xtol):
    """The minimiser over ``[0, top]`` of log Z along one coordinate (see :func:`med_sweep`)."""

    def g(t):
        tanh = np.tanh(base + y_k * t * r_k)
        return -gamma + y_k * (tanh @ r_k), ((1 - tanh**2) @ r_k**2)

    if g(0.0)[0] >= 0:
        return 0.0
    if g(top)[0] <= 0:
        return top
    low, high, t = 0.0, top, min(max(start, 0.0), top)
    for _ in range(200):
        value, slope = g(t)
        if value > 0:
            high = t
        else:
            low = t
        step = t - value / slope if slope > 0 else 0.5 * (low + high)
        if not low < step < high:
            step = 0.5 * (low + high)
        if abs(step - t) <= xtol * max(1.0, t) or high - low <= xtol:
            return step
        t = step
    return t
