"""The UCI splice-junction sequences (Towell, Noordewier & Shavlik), one-hot encoded.

Each line of ``splice.data`` is ``class, instance-name, sequence``: a class among ``EI``
(exon/intron boundary, a donor site), ``IE`` (intron/exon, an acceptor site) and ``N`` (neither),
and 60 nucleotides. :func:`load_splice` returns a :class:`sklearn.utils.Bunch` with

``data``          float64 array (n_samples, 240): position ``p`` and base ``b`` in column
                  ``4 p + "ACGT".index(b)``; the ambiguity codes of 15 sequences spread their
                  unit over the bases they stand for (D = A/G/T, N = any, S = C/G, R = A/G);
``sequences``     list of str, the raw sequences;
``names``         list of str, the instance names (e.g. ``"ATRINS-DONOR-521"``);
``target``        int64 (n_samples,), indices into ``target_names`` (the chosen classes, sorted);
``feature_names`` list of str, ``"p01=A"`` ... ``"p60=T"``;
``DESCR``, ``source`` (Path), ``sha256``.

Rows keep the file's order. Szummer & Jaakkola used a 500-example splice set with d = 100
inputs; this is the UCI set (d = 240 after one-hot encoding), from which lectures sample.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from sslviz.datasets.fetch import file_sha256, locate
from sslviz.datasets.loaders import _check_choices
from sslviz.datasets.registry import get_dataset

__all__ = ["SPLICE_CLASSES", "encode_sequences", "load_splice"]

SPLICE_CLASSES = ("EI", "IE", "N")
BASES = "ACGT"
SEQUENCE_LENGTH = 60
# IUPAC codes met in the file, and what each stands for.
_CODES = {"A": "A", "C": "C", "G": "G", "T": "T", "D": "AGT", "N": "ACGT", "S": "CG", "R": "AG"}


def encode_sequences(sequences):
    """One-hot encode DNA sequences of equal length: shape (n, 4 × length).

    An ambiguity code gives each base it stands for an equal share (e.g. ``S`` = 0.5 C + 0.5 G).
    """
    sequences = list(sequences)
    if not sequences:
        return np.zeros((0, 4 * SEQUENCE_LENGTH))
    length = len(sequences[0])
    out = np.zeros((len(sequences), length, 4))
    for row, sequence in enumerate(sequences):
        if len(sequence) != length:
            raise ValueError(f"sequence {row} has {len(sequence)} nucleotides, the first has "
                             f"{length}: every sequence must have the same length")
        for position, code in enumerate(sequence.upper()):
            if code not in _CODES:
                raise ValueError(f"sequence {row} holds {code!r} at position {position + 1}; "
                                 f"known codes are {sorted(_CODES)}")
            bases = _CODES[code]
            for base in bases:
                out[row, position, BASES.index(base)] = 1.0 / len(bases)
    return out.reshape(len(sequences), 4 * length)


def load_splice(classes=SPLICE_CLASSES, *, data_dir=None) -> Bunch:
    """Load the splice-junction sequences of ``classes`` (e.g. ``("EI", "IE")``).

    Parameters
    ----------
    classes : str or sequence of str, default=("EI", "IE", "N")
    data_dir : str or Path or None
        Folder holding ``splice.data`` (default: :func:`sslviz.datasets.data_dir`).

    Returns
    -------
    Bunch (see the module docstring)
    """
    chosen = _check_choices("classes", classes, SPLICE_CLASSES)
    path = locate("splice", data_dir=data_dir)
    rows = []
    for number, line in enumerate(path.read_text(encoding="ascii").splitlines(), start=1):
        if not line.strip():
            continue
        fields = [field.strip() for field in line.split(",")]
        if len(fields) != 3 or len(fields[2]) != SEQUENCE_LENGTH:
            raise ValueError(f"{path}, line {number}: expected 'class, name, <60 nucleotides>', "
                             f"got {line[:80]!r}")
        if fields[0] not in SPLICE_CLASSES:
            raise ValueError(f"{path}, line {number}: unknown class {fields[0]!r}")
        if fields[0] in chosen:
            rows.append(fields)
    index = {name: i for i, name in enumerate(chosen)}
    sequences = [sequence for _, _, sequence in rows]
    return Bunch(
        data=encode_sequences(sequences),
        sequences=sequences,
        names=[name for _, name, _ in rows],
        target=np.array([index[label] for label, _, _ in rows], dtype=np.int64),
        target_names=list(chosen),
        feature_names=[f"p{p + 1:02d}={b}" for p in range(SEQUENCE_LENGTH) for b in BASES],
        DESCR=(f"{get_dataset('splice').description}\n\nLoaded: classes {chosen}; "
               f"{len(rows)} sequences from {path}."),
        source=path,
        sha256=file_sha256(path),
    )
