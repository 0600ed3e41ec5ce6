"""Golub et al.'s (1999) leukemia expression data: 72 patients (ALL / AML), 7,129 probes.

The files are the widely used Kaggle CSV conversion (see the data manifest): a training file of 38
patients and an independent (test) file of 34, each a probe per row with a ``value, call`` pair of
columns per patient (not in patient order), and ``actual.csv`` with the labels.
:func:`load_golub` returns a :class:`sklearn.utils.Bunch` with

``data``          float64 (72, n_genes), training patients 1-38 first, then 39-72, each in
                  patient order;
``target``        int64 (72,), indices into ``target_names`` = ``["ALL", "AML"]``;
``patients``      int64 (72,), the patient numbers;
``train_rows``, ``test_rows``  the row indices of the 38 training and 34 independent samples;
``gene_accessions``, ``gene_descriptions``  of the genes kept;
``DESCR``, ``source`` (the folder), ``sha256`` (dict file -> checksum).

Preprocessing (the one of Dudoit, Fridlyand & Speed 2002, the common choice in the microarray
literature), each step optional: **thresholding** the values to ``[100, 16000]``; **filtering**
out genes with ``max / min <= 5`` or ``max − min <= 500``; the base-10 **log**; and
**standardising** each sample (array) to mean 0 and variance 1 over the genes. With every step on
3,571 genes are kept when the filter is computed on all 72 samples. The filter looks at
expression values only, never at labels; ``filter_on="train"`` (the default) computes it on the
38 training samples alone.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from sslviz.datasets.fetch import file_sha256, locate
from sslviz.datasets.registry import get_dataset

__all__ = ["GOLUB_CLASSES", "load_golub", "preprocess_expression"]

GOLUB_CLASSES = ("ALL", "AML")
FILES = ("data_set_ALL_AML_train.csv", "data_set_ALL_AML_independent.csv", "actual.csv")


def _read_expression(path: Path):
    """(patients, values of shape (n_patients, n_probes), accessions, descriptions)."""
    with path.open(newline="", encoding="latin-1") as handle:
        rows = [row for row in csv.reader(handle) if len(row) > 1]
    header, body = rows[0], rows[1:]
    value_columns = [c for c in range(2, len(header)) if header[c].strip().lower() != "call"]
    patients = np.array([int(header[c]) for c in value_columns], dtype=np.int64)
    for number, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise ValueError(f"{path}, row {number}: {len(row)} fields, the header has "
                             f"{len(header)}")
    values = np.array([[float(row[c]) for c in value_columns] for row in body]).T
    return patients, values, [row[1] for row in body], [row[0] for row in body]


def _read_labels(path: Path) -> dict:
    with path.open(newline="", encoding="latin-1") as handle:
        rows = [row for row in csv.reader(handle) if len(row) == 2]
    return {int(patient): label.strip() for patient, label in rows[1:]}


def preprocess_expression(values, *, threshold=(100.0, 16000.0), min_fold=5.0, min_range=500.0,
                          log=True, standardize=True, filter_rows=None):
    """Threshold, filter genes, log and standardise an expression matrix (samples × genes).

    Parameters
    ----------
    values : ndarray of shape (n_samples, n_genes)
    threshold : (floor, ceiling) or None
    min_fold, min_range : float or None
        Keep genes with ``max / min > min_fold`` and ``max − min > min_range`` over
        ``filter_rows`` (after thresholding); ``None`` skips that test.
    log : bool
        Base-10 logarithm (needs positive values: threshold first).
    standardize : bool
        Each sample to mean 0 and variance 1 over the kept genes.
    filter_rows : array of int or None
        Samples the gene filter looks at (default: all).

    Returns
    -------
    (values of shape (n_samples, n_kept), kept gene indices)
    """
    values = np.array(values, dtype=float)
    if threshold is not None:
        floor, ceiling = threshold
        if not 0 < floor < ceiling:
            raise ValueError(f"threshold must be (floor, ceiling) with 0 < floor < ceiling, got "
                             f"{threshold!r}")
        values = np.clip(values, floor, ceiling)
    rows = values if filter_rows is None else values[np.asarray(filter_rows)]
    keep = np.ones(values.shape[1], dtype=bool)
    high, low = rows.max(axis=0), rows.min(axis=0)
    if min_fold is not None:
        if threshold is None:
            raise ValueError("min_fold needs positive values: set threshold (e.g. (100, 16000)) "
                             "or min_fold=None")
        keep &= high / low > min_fold
    if min_range is not None:
        keep &= high - low > min_range
    if not keep.any():
        raise ValueError("the gene filter removed every gene; relax min_fold / min_range")
    values = values[:, keep]
    if log:
        if np.any(values <= 0):
            raise ValueError("log needs positive values: set threshold (e.g. (100, 16000)) or "
                             "log=False")
        values = np.log10(values)
    if standardize:
        values = (values - values.mean(axis=1, keepdims=True)) / values.std(axis=1, keepdims=True)
    return values, np.flatnonzero(keep)


def load_golub(*, threshold=(100.0, 16000.0), min_fold=5.0, min_range=500.0, log=True,
               standardize=True, filter_on="train", data_dir=None) -> Bunch:
    """Load the 72 leukemia samples, preprocessed (see the module docstring).

    Parameters
    ----------
    threshold, min_fold, min_range, log, standardize
        See :func:`preprocess_expression`; ``threshold=None, min_fold=None, min_range=None,
        log=False, standardize=False`` gives the raw values of all 7,129 probes.
    filter_on : {"train", "all"}, default="train"
        The samples the (label-free) gene filter is computed on.
    data_dir : str or Path or None
    """
    if filter_on not in ("train", "all"):
        raise ValueError(f"filter_on must be 'train' or 'all', got {filter_on!r}")
    paths = {name: locate("golub", name, data_dir=data_dir) for name in FILES}
    train_ids, train, accessions, descriptions = _read_expression(paths[FILES[0]])
    test_ids, test, test_accessions, _ = _read_expression(paths[FILES[1]])
    if test_accessions != accessions:
        raise ValueError("the training and independent files list different probes")
    labels = _read_labels(paths[FILES[2]])
    order_train, order_test = np.argsort(train_ids), np.argsort(test_ids)
    patients = np.concatenate([train_ids[order_train], test_ids[order_test]])
    raw = np.vstack([train[order_train], test[order_test]])
    missing = [int(p) for p in patients if int(p) not in labels]
    if missing:
        raise ValueError(f"actual.csv has no label for patients {missing}")
    n_train = len(train_ids)
    data, kept = preprocess_expression(
        raw, threshold=threshold, min_fold=min_fold, min_range=min_range, log=log,
        standardize=standardize,
        filter_rows=np.arange(n_train) if filter_on == "train" else None)
    target = np.array([GOLUB_CLASSES.index(labels[int(p)]) for p in patients], dtype=np.int64)
    folder = paths[FILES[0]].parent
    return Bunch(
        data=data, target=target, target_names=list(GOLUB_CLASSES), patients=patients,
        train_rows=np.arange(n_train), test_rows=np.arange(n_train, len(patients)),
        gene_accessions=[accessions[i] for i in kept],
        gene_descriptions=[descriptions[i] for i in kept],
        DESCR=(f"{get_dataset('golub').description}\n\nLoaded: {len(patients)} samples, "
               f"{len(kept)} genes (threshold={threshold}, min_fold={min_fold}, "
               f"min_range={min_range}, log={log}, standardize={standardize}, "
               f"filter_on={filter_on!r}) from {folder}."),
        source=folder,
        sha256={name: file_sha256(path) for name, path in paths.items()},
    )
