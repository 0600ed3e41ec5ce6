"""load_splice and load_golub on small files built here, and on the real files (the counts of the
data manifest, marked ``realdata``: skipped unless ``SSLVIZ_DATA`` holds them).

The fake files copy the real layouts (splice: padded ``class, name, sequence`` lines; Golub: the
Kaggle CSVs with unsorted ``value, call`` column pairs, a bare quote in a description and the
trailing ``\\n\\r\\n``); the registry entries are swapped for ones that accept exactly the fakes,
so the loaders go through the same locate-and-verify path as with the real files.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from sslviz.datasets import REGISTRY, load_golub, load_splice, status
from sslviz.datasets.golub import preprocess_expression
from sslviz.datasets.registry import AcceptedCopy, DataFile, Dataset
from sslviz.datasets.splice import encode_sequences

SPLICE_LINES = [
    ("EI", "ATRINS-DONOR-521", "ACGT" * 15),
    ("IE", "ATRINS-ACCEPTOR-1", "TTTT" * 14 + "ACGN"),
    ("N", "HUMA-NEITHER-1", "GGGG" * 14 + "SRDA"),
    ("EI", "BABAPOE-DONOR-30", "CCCC" * 15),
]


def _register(monkeypatch, name, folder: Path, files):
    data_files = []
    for filename in files:
        sha = hashlib.sha256((folder / filename).read_bytes()).hexdigest()
        data_files.append(DataFile(Path(filename).name, None,
                                   (AcceptedCopy(filename, sha, "fake for tests"),)))
    monkeypatch.setitem(REGISTRY, name, Dataset(name, f"FAKE {name}", tuple(data_files)))
    monkeypatch.setenv("SSLVIZ_DATA", str(folder))


@pytest.fixture
def fake_splice(tmp_path, monkeypatch):
    text = "".join(f"{c + ',':<7}{n + ',':<32}{s}\n" for c, n, s in SPLICE_LINES)
    (tmp_path / "splice.data").write_text(text)
    _register(monkeypatch, "splice", tmp_path, ["splice.data"])
    return tmp_path


def test_splice_one_hot_and_ambiguity_codes(fake_splice):
    bunch = load_splice()
    assert bunch.data.shape == (4, 240) and bunch.target_names == ["EI", "IE", "N"]
    assert bunch.target.tolist() == [0, 1, 2, 0]
    assert bunch.names[1] == "ATRINS-ACCEPTOR-1"
    np.testing.assert_allclose(bunch.data.sum(axis=1), 60.0)
    first = bunch.data[0].reshape(60, 4)
    np.testing.assert_array_equal(first[:4], np.eye(4))  # A, C, G, T at positions 1-4
    np.testing.assert_allclose(bunch.data[1].reshape(60, 4)[-1], [0.25] * 4)  # N = any base
    last = bunch.data[2].reshape(60, 4)[-4:]  # S R D A
    np.testing.assert_allclose(last, [[0, .5, .5, 0], [.5, 0, .5, 0], [1 / 3, 0, 1 / 3, 1 / 3],
                                      [1, 0, 0, 0]])
    assert bunch.feature_names[:5] == ["p01=A", "p01=C", "p01=G", "p01=T", "p02=A"]


def test_splice_class_choice_keeps_file_order(fake_splice):
    bunch = load_splice(("EI", "IE"))
    assert bunch.target_names == ["EI", "IE"] and bunch.target.tolist() == [0, 1, 0]
    with pytest.raises(ValueError, match=r"unknown classes \['XX'\]"):
        load_splice(("EI", "XX"))


def test_encoding_refuses_unknown_codes_and_ragged_sequences():
    with pytest.raises(ValueError, match="holds 'X' at position 2"):
        encode_sequences(["AX"])
    with pytest.raises(ValueError, match="same length"):
        encode_sequences(["ACG", "AC"])


# -- Golub -----------------------------------------------------------------------------------
def _golub_csv(ids, values, calls="A"):
    """values: dict patient -> list of 3 numbers (3 probes), columns in the order of ``ids``."""
    header = "Gene Description,Gene Accession Number," + ",".join(f"{i},call" for i in ids)
    descriptions = ['AFFX-BioB-5_at (endogenous control)', 'GB DEF = (delta or B" subunit)',
                    '"Zyxin, partial"']
    accessions = ["AFFX-BioB-5_at", "X1_at", "X2_at"]
    rows = [f"{descriptions[g]},{accessions[g]}," + ",".join(f"{values[i][g]},{calls}"
                                                            for i in ids) for g in range(3)]
    return header + "\n" + "\n".join(rows) + "\n\r\n"


@pytest.fixture
def fake_golub(tmp_path, monkeypatch):
    folder = tmp_path / "golub_leukemia"
    folder.mkdir()
    values = {1: [50, 200, 3000], 2: [-20, 20000, 800], 3: [100, 150, 900],
              4: [700, 300, 100], 5: [90, 250, 5000]}
    (folder / "data_set_ALL_AML_train.csv").write_text(_golub_csv([2, 1, 3], values))
    (folder / "data_set_ALL_AML_independent.csv").write_text(_golub_csv([5, 4], values))
    (folder / "actual.csv").write_text("patient,cancer\n1,ALL\n2,AML\n3,ALL\n4,AML\n5,ALL\n")
    _register(monkeypatch, "golub", tmp_path,
              [f"golub_leukemia/{name}" for name in ("data_set_ALL_AML_train.csv",
                                                     "data_set_ALL_AML_independent.csv",
                                                     "actual.csv")])
    return values


def test_golub_raw_values_in_patient_order(fake_golub):
    raw = load_golub(threshold=None, min_fold=None, min_range=None, log=False,
                     standardize=False)
    assert raw.patients.tolist() == [1, 2, 3, 4, 5]
    np.testing.assert_array_equal(raw.data, [fake_golub[p] for p in range(1, 6)])
    assert raw.target.tolist() == [0, 1, 0, 1, 0] and raw.target_names == ["ALL", "AML"]
    assert raw.train_rows.tolist() == [0, 1, 2] and raw.test_rows.tolist() == [3, 4]
    assert raw.gene_descriptions[1] == 'GB DEF = (delta or B" subunit)'
    assert raw.gene_descriptions[2] == "Zyxin, partial"


def test_golub_preprocessing_by_hand(fake_golub):
    # thresholded to [100, 16000]; on training patients 1-3: probe 0 is 100/100/100 -> dropped
    # (fold 1); probe 1 is 200/16000/150: fold 107, range 15850 -> kept; probe 2 is
    # 3000/800/900: fold 3.75 -> dropped.
    bunch = load_golub(standardize=False)
    assert bunch.gene_accessions == ["X1_at"]
    expected = np.log10(np.clip([[200], [20000], [150], [300], [250]], 100, 16000))
    np.testing.assert_allclose(bunch.data, expected)
    # on all five: probe 0 reaches 700 (fold 7, range 600) and probe 2 spans 100..5000: kept
    everyone = load_golub(standardize=False, filter_on="all")
    assert everyone.gene_accessions == ["AFFX-BioB-5_at", "X1_at", "X2_at"]
    with pytest.raises(ValueError, match="filter_on must be 'train' or 'all'"):
        load_golub(filter_on="test")


def test_preprocess_expression_standardises_each_sample_and_names_errors():
    rng = np.random.default_rng(0)
    values = rng.uniform(50, 30000, size=(4, 200))
    out, kept = preprocess_expression(values, min_fold=None, min_range=None)
    assert len(kept) == 200
    np.testing.assert_allclose(out.mean(axis=1), 0, atol=1e-12)
    np.testing.assert_allclose(out.std(axis=1), 1)
    with pytest.raises(ValueError, match="log needs positive values"):
        preprocess_expression(-values, threshold=None, min_fold=None, min_range=None)
    with pytest.raises(ValueError, match="removed every gene"):
        preprocess_expression(values, min_range=1e9)
    with pytest.raises(ValueError, match="0 < floor < ceiling"):
        preprocess_expression(values, threshold=(10, 5))


# -- the real files ------------------------------------------------------------------------------
def _require(real_data_dir, name):
    for row in status(name, data_dir=real_data_dir):
        if row.state not in ("present", "present (unverified)"):
            pytest.skip(f"{row.file} is {row.state} in {real_data_dir}")
    return real_data_dir


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_real_splice_counts(real_data_dir):
    bunch = load_splice(data_dir=_require(real_data_dir, "splice"))
    assert bunch.data.shape == (3190, 240)
    assert np.bincount(bunch.target).tolist() == [767, 768, 1655]  # EI, IE, N (MANIFEST.md)
    assert sum(set(s) - set("ACGT") != set() for s in bunch.sequences) == 15
    assert bunch.names[0] == "ATRINS-DONOR-521"


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_real_golub_counts_and_the_standard_preprocessing(real_data_dir):
    folder = _require(real_data_dir, "golub")
    raw = load_golub(threshold=None, min_fold=None, min_range=None, log=False,
                     standardize=False, data_dir=folder)
    assert raw.data.shape == (72, 7129)
    assert raw.patients.tolist() == list(range(1, 73))
    assert np.bincount(raw.target[raw.train_rows]).tolist() == [27, 11]
    assert np.bincount(raw.target[raw.test_rows]).tolist() == [20, 14]
    assert raw.data[0, 0] == -214  # AFFX-BioB-5_at of patient 1 (first value of the file)
    # Dudoit, Fridlyand & Speed (2002) keep 3,571 genes with the filter on all 72 samples
    assert load_golub(filter_on="all", data_dir=folder).data.shape == (72, 3571)
