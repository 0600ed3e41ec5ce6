"""Checks of parameters and labels shared by every estimator, experiment and explorer.

One rule for everything the package accepts from a user: a wrong value raises a ``ValueError``
whose message names the parameter, what was given and what is allowed. ``bool`` is never taken
for an integer or a number (``True`` is an ``int`` to Python, not a labeled-set size to a user).

One label rule for every estimator (:func:`semi_supervised_target`, :func:`check_labels`):
classes are integers or strings, ``-1`` (the number) marks an unlabeled row. Accepted as given
by users: integer, string and ``object`` arrays (``np.array([0, 1, -1], dtype=object)``, a pandas
column; an ``object`` array of numbers becomes a numeric array), lists. Refused, with a message
saying what was wrong: missing labels (NaN, None, pandas' NA), the string ``"-1"``, strings mixed
with numbers, infinities and non-integer numbers, labels of another type, and bool labels mixed
with ``-1`` (``True`` and ``False`` equal ``1`` and ``0`` to Python, so such a target cannot say
which rows are classes and which are numbers: give ``0``/``1`` or strings). A bool array without
``-1`` (every row labeled) is an ordinary two-class target.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from sklearn.utils.multiclass import check_classification_targets

__all__ = ["UNLABELED", "check_bool", "check_choice", "check_classes", "check_int", "check_labels",
           "check_n_jobs", "check_number", "check_numbers", "check_seed", "is_unlabeled",
           "labeled_mask", "resolve_classes", "semi_supervised_target"]

UNLABELED = -1
"""The target that marks an unlabeled row (scikit-learn's convention)."""


def is_unlabeled(y) -> np.ndarray:
    """Boolean mask of the rows of ``y`` marked unlabeled (``-1``), for numeric or object ``y``.

    In an object array only the number -1 counts; the string ``"-1"`` is a label. (``np.asarray``
    of a list mixing strings and -1 turns -1 into ``"-1"``: build such targets with
    ``dtype=object``.)
    """
    y = np.asarray(y)
    if y.dtype.kind in "iuf":
        return y == UNLABELED
    return np.array([isinstance(v, numbers.Number) and v == UNLABELED for v in y], dtype=bool)




def check_int(name, value, *, minimum=None, maximum=None):
    """``value`` as an ``int`` if it is an integer (not a bool) in ``[minimum, maximum]``."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer{_range_text(minimum, maximum)}, "
                         f"got {value!r}")
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise ValueError(f"{name} must be an integer{_range_text(minimum, maximum)}, "
                         f"got {value!r}")
    return int(value)


def check_number(name, value, *, minimum=None, maximum=None, above=None, below=None):
    """``value`` as a finite ``float`` (not a bool) with ``minimum <= value <= maximum``,
    ``value > above`` and ``value < below`` (each bound optional)."""
    ok = (not isinstance(value, bool | np.bool_) and isinstance(value, numbers.Real)
          and math.isfinite(value))
    ok = ok and (minimum is None or value >= minimum) and (maximum is None or value <= maximum)
    ok = ok and (above is None or value > above) and (below is None or value < below)
    if not ok:
        bounds = _range_text(minimum, maximum)
        bounds += "".join(f" {sign} {bound}" for sign, bound in ((">", above), ("<", below))
                          if bound is not None)
        raise ValueError(f"{name} must be a finite number{bounds}, got {value!r}")
    return float(value)


def check_numbers(name, value, allowed):
    """``value`` (a number or a sequence of numbers) as a 1-D float array of finite numbers.

    Strings, bools, nested or ragged sequences and non-finite values are refused with a message
    naming ``name`` and saying what is ``allowed`` (e.g. "an increasing sequence of ...").
    """
    def refuse():
        return ValueError(f"{name} must be {allowed}, got {value!r}")

    items = list(value) if isinstance(value, list | tuple | np.ndarray) else [value]
    if any(isinstance(v, bool | np.bool_ | str | bytes) or not isinstance(v, numbers.Real)
           for v in np.asarray(items, dtype=object).ravel()) or np.ndim(items) != 1:
        raise refuse()
    numbers_ = np.asarray(items, dtype=float)
    if not np.all(np.isfinite(numbers_)):
        raise refuse()
    return numbers_


def check_seed(name, value):
    """``value`` if it is a usable ``random_state``: None, an integer in [0, 2**32 - 1] (not a
    bool) or a ``numpy.random.RandomState``."""
    if value is None or isinstance(value, np.random.RandomState):
        return value
    if (isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral)
            or not 0 <= value < 2**32):
        raise ValueError(f"{name} must be None, an integer in [0, 2**32 - 1] or a "
                         f"numpy.random.RandomState, got {value!r}")
    return value


def check_n_jobs(name, value):
    """``value`` if it is None or a number of processes: >= 1, or negative (-1: all cores)."""
    if value is not None and (isinstance(value, bool | np.bool_)
                              or not isinstance(value, numbers.Integral) or value == 0):
        raise ValueError(f"{name} must be None, a number of processes >= 1 or a negative "
                         f"integer (-1: all cores), got {value!r}")
    return value


def check_bool(name, value):
    """``value`` as a ``bool`` if it is ``True`` or ``False`` (a NumPy bool too)."""
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_choice(name, value, choices):
    """``value`` if it is one of ``choices``."""
    if not isinstance(value, str | numbers.Number | type(None)) or value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
    return value


def _range_text(minimum, maximum):
    if minimum is not None and maximum is not None:
        return f" in [{minimum}, {maximum}]"
    if minimum is not None:
        return f" >= {minimum}"
    if maximum is not None:
        return f" <= {maximum}"
    return ""


def _is_missing(value):
    """None, a float NaN, or pandas' NA / NaT (recognised without importing pandas)."""
    return (value is None or (isinstance(value, float) and math.isnan(value))
            or type(value).__name__ in ("NAType", "NaTType"))


def _label_array(y):
    """``y`` as a 1-D array whose labels have one type: an ``object`` array of numbers becomes
    numeric, an ``object`` array of bools a bool array; other label types are refused."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be one label per row (1-D), got an array of shape {y.shape}")
    if y.dtype.kind == "c":
        raise ValueError("y holds complex numbers: class labels are integers or strings")
    if y.dtype.kind != "O" or len(y) == 0:
        return y
    values = y.tolist()
    if any(_is_missing(v) for v in values):
        raise ValueError("y holds missing labels (None or NaN): give every labeled row a class "
                         "and mark unlabeled rows with -1")
    odd = next((v for v in values if not isinstance(v, str | bytes | numbers.Real)), None)
    if odd is not None:
        raise ValueError(f"y holds a label of type {type(odd).__name__} ({odd!r}): class labels "
                         "are integers or strings, and -1 marks unlabeled rows")
    bools = [isinstance(v, bool | np.bool_) for v in values]
    if all(bools):
        return y.astype(bool)
    if any(bools):
        raise ValueError("y mixes bool labels (True/False) with numbers such as -1: Python takes "
                         "True for 1 and False for 0, so the classes would be ambiguous; give the "
                         "classes as 0/1 or as strings and mark unlabeled rows with -1")
    if all(isinstance(v, numbers.Real) for v in values):
        floats = any(isinstance(v, float | np.floating) for v in values)
        try:
            return np.array(values, dtype=float if floats else np.int64)
        except OverflowError:
            raise ValueError("y holds integers too large for class labels (beyond 64 bits): "
                             "number the classes 0, 1, ... or use strings") from None
    return y


def _check_label_values(labels):
    """The labeled rows' classes must be discrete: integers (or integral floats) or strings.
    Infinities and NaN are refused before any arithmetic on them (which would warn)."""
    if labels.dtype.kind != "f" or not len(labels):
        return
    finite = np.isfinite(labels)
    if not finite.all():
        bad = labels[~finite][:3].tolist()
        raise ValueError(f"y holds non-finite numbers {bad}: class labels are integers or "
                         "strings, not infinities or NaN")
    fractional = np.mod(labels, 1) != 0
    if fractional.any():
        bad = labels[fractional][:3].tolist()
        raise ValueError(f"y holds non-integer numbers {bad}: class labels are integers or "
                         "strings, not continuous values (this is a classifier, not a regression)")


def semi_supervised_target(y):
    """The label rule of every semi-supervised estimator: ``(y, labeled)``.

    ``y`` comes back as an array whose labels have one type (see the module docstring for what
    is accepted and refused); ``labeled`` is the boolean mask of its labeled rows (``y != -1``).
    """
    y = _label_array(y)
    labeled = labeled_mask(y)
    _check_label_values(y[labeled])
    if labeled.any():
        check_classification_targets(y[labeled])
    return y, labeled


def labeled_mask(y):
    """Boolean mask of the labeled rows of a semi-supervised target ``y`` (``-1`` = unlabeled).

    Refuses targets that would silently create a class: the string ``"-1"`` (what
    ``np.asarray(['spam', -1, 'ham'])`` makes of the unlabeled marker) and missing labels (NaN,
    None).
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be one label per row (1-D), got an array of shape {y.shape}")
    if y.dtype.kind in "US" and np.any(y == ("-1" if y.dtype.kind == "U" else b"-1")):
        raise ValueError("y holds the string '-1', which would become a class: mark unlabeled "
                         "rows with the number -1 (build mixed targets with dtype=object, e.g. "
                         "np.array(['spam', -1], dtype=object))")
    if y.dtype.kind == "f" and np.isnan(y).any():
        raise ValueError("y holds NaN labels: give every labeled row a class and mark "
                         "unlabeled rows with -1")
    if y.dtype.kind == "O":
        for value in y:
            if value is None or (isinstance(value, float) and math.isnan(value)):
                raise ValueError("y holds missing labels (None or NaN): give every labeled row "
                                 "a class and mark unlabeled rows with -1")
            if isinstance(value, str) and value == "-1":
                raise ValueError("y holds the string '-1', which would become a class: mark "
                                 "unlabeled rows with the number -1")
    unlabeled = is_unlabeled(y)
    if y.dtype.kind == "O":
        _check_one_label_type(y[~unlabeled])
    return ~unlabeled


def check_labels(y):
    """Refuse labels a supervised estimator would mistake or choke on; returns ``y`` with the
    labels of an ``object`` array given one type (as :func:`semi_supervised_target` does).

    Refuses missing labels (NaN, None) and a mix of string and number labels (which would
    otherwise end in a ``TypeError`` while sorting the classes). ``-1`` is an ordinary class here.
    The shape is left to scikit-learn's ``validate_data`` (which also says that a ``None``
    target is required, and turns a column vector into a 1-D target with a warning).
    """
    if y is None:
        return y
    values = np.asarray(y)
    if values.ndim == 1 and values.dtype.kind == "O":
        y = values = _label_array(values)
        _check_label_values(values)
    values = values.ravel()
    if values.dtype.kind == "f" and np.isnan(values).any():
        raise ValueError("y holds NaN labels: give every row a class")
    if values.dtype.kind == "O":
        if any(value is None or (isinstance(value, float) and math.isnan(value))
               for value in values):
            raise ValueError("y holds missing labels (None or NaN): give every row a class")
        _check_one_label_type(values)
    return y


def _check_one_label_type(labels):
    kinds = {"string" if isinstance(value, str | bytes) else "number" for value in labels}
    if len(kinds) > 1:
        strings = [v for v in labels if isinstance(v, str | bytes)][:2]
        numbers = [v for v in labels if not isinstance(v, str | bytes)][:2]
        raise ValueError(f"y mixes string labels ({strings} ...) and number labels ({numbers} "
                         "...): give every class the same type of label (-1 alone may mark "
                         "unlabeled rows)")


def check_classes(classes):
    """``classes`` if it is None or a non-empty 1-D sequence of class labels."""
    if classes is not None and (isinstance(classes, str | bytes | dict) or np.ndim(classes) != 1
                                or len(classes) == 0):
        raise ValueError(f"classes must be None or a non-empty sequence of class labels, e.g. "
                         f"['ham', 'spam'], got {classes!r}")
    return classes


def resolve_classes(labels, classes=None, *, require_every_class=True, min_classes=1,
                    row="row"):
    """The sorted classes of a fit: ``classes`` if given, else the distinct labeled values.

    Parameters
    ----------
    labels : array of the labeled rows' classes
    classes : sequence or None
        Classes the user declared; every label must be one of them.
    require_every_class : bool
        Refuse a declared class that has no labeled row.
    min_classes : int
        Fewest classes the model can be fitted with.
    row : str
        What a row is called in messages ("document", "example").
    """
    check_classes(classes)
    seen = np.unique(labels)
    declared = seen if classes is None else np.unique(np.asarray(classes))
    unknown = np.setdiff1d(seen, declared)
    if len(unknown):
        raise ValueError(f"y holds labels {unknown.tolist()} that are not in "
                         f"classes={declared.tolist()}; use -1 for unlabeled rows")
    missing = np.setdiff1d(declared, seen)
    if require_every_class and len(missing):
        raise ValueError(f"no labeled row for class(es) {missing.tolist()}: label at least one "
                         f"{row} of every class (or leave them out of `classes`)")
    if len(declared) < min_classes:
        raise ValueError(f"only {len(declared)} class(es) among the labeled rows "
                         f"({declared.tolist()}): this model needs at least {min_classes}")
    return declared
