"""Claims a lecture makes, checked in the cell that makes them.

A sentence such as "EM beats Naive Bayes at every vocabulary size" is a claim about numbers the
notebook computes. :func:`claim` states it beside those numbers and prints whether it holds::

    claim("EM beats NB at every vocabulary size", all(em > nb), NB=nb, EM=em)

prints ::

    claim: EM beats NB at every vocabulary size
      NB = [49.5, 49.1, 49.1]
      EM = [62.4, 56.1, 70.3]
      -> holds

and ``-> DOES NOT HOLD`` when it does not. A claim whose numbers hold a NaN (a result that is
missing) does not hold whatever the check said, and its report says which number. Under the
test command (``SSLVIZ_STRICT_CLAIMS=1``, set by ``run.py test``) a claim that does not hold
raises :class:`ClaimFailed`, so a code change that makes a lecture's sentence false fails the
suite instead of misleading a class. In a lecture it only prints: an instructor sees the
verdict, not a traceback.

Write the prose from the verdict, not the other way round: the markdown above the cell says what
the claim says, and the numbers it quotes are the ones printed here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

__all__ = ["Claim", "ClaimFailed", "EdgeNotAcknowledged", "acknowledge_edge", "claim", "strict"]

STRICT_VARIABLE = "SSLVIZ_STRICT_CLAIMS"


class ClaimFailed(AssertionError):
    """A lecture's claim did not hold while claims are strict (the test command)."""


class EdgeNotAcknowledged(ClaimFailed):
    """A choice at a bound of its grid was used without a stated reason (strict claims)."""


@dataclass(frozen=True)
class Claim:
    """A stated claim, the numbers behind it and whether it holds."""

    statement: str
    holds: bool
    numbers: dict
    reason: str = ""
    """Why the claim does not hold although its check passed (a NaN among its numbers)."""

    def _ipython_display_(self):
        """Shown as nothing: :func:`claim` printed it already (a cell may end with the call)."""

    def report(self, digits=1):
        """The printed form: the statement, one line per number, the verdict."""
        digits = _checked_digits(digits)
        lines = [f"claim: {self.statement}"]
        lines += [f"  {name} = {_format(value, digits)}" for name, value in self.numbers.items()]
        verdict = "  -> holds" if self.holds else "  -> DOES NOT HOLD"
        lines.append(f"{verdict} ({self.reason})" if self.reason else verdict)
        return "\n".join(lines)


def strict():
    """True when a claim that does not hold must raise (``SSLVIZ_STRICT_CLAIMS`` set, not 0)."""
    return os.environ.get(STRICT_VARIABLE, "") not in ("", "0")


def claim(statement, holds, *, digits=1, **numbers):
    """Print ``statement``, the ``numbers`` behind it and whether it ``holds``; return the Claim.

    Parameters
    ----------
    statement : str
        The sentence as the lecture says it.
    holds : bool or numpy bool
        The check, computed from the numbers (e.g. ``bool(np.all(em > nb))``).
    digits : int from 0 to 15, default 1
        Decimals for floats (arrays are printed element by element).
    **numbers
        The values the claim rests on, printed as ``name = value``.

    Raises
    ------
    ClaimFailed
        When the claim does not hold (or a number is NaN) and :func:`strict` is true.
    ValueError
        For an empty statement, a ``holds`` that is not one bool, or ``digits`` out of range.
    """
    if not isinstance(statement, str) or not statement.strip():
        raise ValueError(f"statement must be a non-empty str, got {statement!r}")
    verdict = np.asarray(holds)
    if verdict.shape != () or verdict.dtype != bool:
        raise ValueError("holds must be one bool (e.g. bool(np.all(a > b))), got "
                         f"{holds!r}")
    digits = _checked_digits(digits)
    missing = [name for name, value in numbers.items() if _has_nan(value)]
    reason = (f"NaN in {', '.join(missing)}: a number the claim rests on is missing"
              if missing else "")
    result = Claim(statement, bool(verdict) and not missing, dict(numbers), reason)
    print(result.report(digits))
    if not result.holds and strict():
        detail = f" ({reason})" if reason else ""
        raise ClaimFailed(f"the lecture's claim does not hold: {statement}{detail}")
    return result


MAX_DIGITS = 15  # a float carries about 15 significant decimals


def _checked_digits(digits):
    if (isinstance(digits, bool) or not isinstance(digits, (int, np.integer))
            or not 0 <= digits <= MAX_DIGITS):
        raise ValueError(f"digits must be an integer from 0 to {MAX_DIGITS} (decimals of the "
                         f"printed floats), got {digits!r}")
    return int(digits)


def _has_nan(value):
    """Whether ``value`` (a number, an array, a nested list) holds a NaN anywhere."""
    if isinstance(value, (str, bytes)):
        return False
    if isinstance(value, dict):
        return any(_has_nan(v) for v in value.values())
    try:
        array = np.asarray(value)
    except ValueError:  # a ragged list: look at each element
        return any(_has_nan(v) for v in value)
    if array.dtype.kind in "fc":
        return bool(np.isnan(array).any())
    if array.dtype.kind == "O":
        items = [array.item()] if array.shape == () else array.ravel().tolist()
        return any(_has_nan(v) for v in items if v is not value)
    return False


def _format(value, digits):
    if isinstance(value, str):
        return value
    try:
        array = np.asarray(value)
    except ValueError:  # a ragged list
        return "[" + ", ".join(_format(v, digits) for v in value) + "]"
    if array.dtype.kind in "fc" and array.shape == ():
        return f"{array.item():.{digits}f}"
    if array.dtype.kind == "f":
        return "[" + ", ".join(f"{v:.{digits}f}" for v in array.ravel()) + "]"
    if array.shape == ():
        return str(value)
    return "[" + ", ".join(str(v) for v in array.ravel().tolist()) + "]"


def acknowledge_edge(choice, reason):
    """Print that ``choice`` (a :class:`sslviz.tuning.Choice`) sits at a bound, and why the lecture
    may use it; return the acknowledged choice (an interior choice is returned as it is).

    A choice at the edge of its grid is a warning, not a result: under ``SSLVIZ_STRICT_CLAIMS=1``
    using one that was not acknowledged raises :class:`EdgeNotAcknowledged`.
    """
    if not choice.at_bound:
        return choice
    acknowledged = choice.acknowledge_edge(reason)
    print(f"edge: {choice.edge_message}\n  acknowledged: {acknowledged.acknowledged}")
    return acknowledged
