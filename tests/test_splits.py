"""split_labeled and Split: disjoint, sorted, exactly sized, stratified, seeded.

"""

import re

import numpy as np
import pytest

from sslviz.splits import UNLABELED, Split, split_labeled

# Imbalanced classes 0..3 of sizes 60, 30, 20, 10 (shuffled order, so rows are not grouped).
Y = np.random.default_rng(42).permutation(np.repeat([0, 1, 2, 3], [60, 30, 20, 10]))


def check_partition(split, n_samples):
    """The three sets are sorted, duplicate-free, disjoint and within range."""
    for rows in (split.labeled, split.unlabeled, split.test):
        assert rows.dtype.kind == "i"
        assert np.all(np.diff(rows) > 0), "not sorted or has duplicates"
        assert len(rows) == 0 or (rows[0] >= 0 and rows[-1] < n_samples)
    assert not set(split.labeled) & set(split.unlabeled)
    assert not set(split.labeled) & set(split.test)
    assert not set(split.unlabeled) & set(split.test)


def test_defaults_labeled_plus_everything_else_unlabeled():
    split = split_labeled(Y, 12, random_state=0)
    check_partition(split, len(Y))
    assert len(split.labeled) == 12 and len(split.test) == 0
    assert len(split.unlabeled) == len(Y) - 12
    np.testing.assert_array_equal(np.union1d(split.labeled, split.unlabeled), np.arange(len(Y)))


@pytest.mark.parametrize("n_labeled", [5, 7, 12, 25, 50])
def test_stratified_every_class_and_within_one_of_its_share(n_labeled):
    split = split_labeled(Y, n_labeled, random_state=1)
    counts = np.bincount(Y[split.labeled], minlength=4)
    assert counts.sum() == n_labeled
    assert np.all(counts >= 1)
    exact = np.array([60, 30, 20, 10]) / 120 * n_labeled
    if np.all(exact >= 1):  # when the at-least-one rule does not bind
        assert np.all(np.abs(counts - exact) < 1), (counts, exact)


def test_stratified_exact_shares_are_met_exactly():
    counts = np.bincount(Y[split_labeled(Y, 24, random_state=3).labeled], minlength=4)
    assert counts.tolist() == [12, 6, 4, 2]


@pytest.mark.parametrize("sizes, n_labeled, expected", [
    ([1, 1, 98], 3, [1, 1, 1]),
    ([60, 30, 20, 10], 4, [1, 1, 1, 1]),  # gives [2, 1, 1, 0]
])
def test_every_class_labeled_even_when_the_minimum_binds(sizes, n_labeled, expected):
    y = np.repeat(np.arange(len(sizes)), sizes)
    split = split_labeled(y, n_labeled, random_state=0)
    assert np.bincount(y[split.labeled], minlength=len(sizes)).tolist() == expected


def test_per_class_counts():
    split = split_labeled(Y, 5, per_class=True, n_unlabeled=40, random_state=0)
    check_partition(split, len(Y))
    assert np.bincount(Y[split.labeled], minlength=4).tolist() == [5, 5, 5, 5]
    assert len(split.unlabeled) == 40


def test_test_rows_are_kept_and_excluded_from_the_other_sets():
    test_rows = np.arange(0, 120, 4)[::-1]  # unsorted on purpose
    split = split_labeled(Y, 8, test_rows=test_rows, random_state=0)
    check_partition(split, len(Y))
    np.testing.assert_array_equal(split.test, np.sort(test_rows))
    assert np.all(split.labeled % 4 != 0) and np.all(split.unlabeled % 4 != 0)
    assert len(split.labeled) + len(split.unlabeled) == len(Y) - len(test_rows)


def test_n_test_smaller_than_the_number_of_classes_takes_the_largest_classes():
    split = split_labeled(Y, 8, n_test=2, random_state=0)
    check_partition(split, len(Y))
    assert np.bincount(Y[split.test], minlength=4).tolist() == [1, 1, 0, 0]
    assert np.all(np.bincount(Y[split.labeled], minlength=4) >= 1)


def test_test_rows_win_over_n_test():
    split = split_labeled(Y, 8, test_rows=[3, 1, 2], n_test=50, random_state=0)
    assert split.test.tolist() == [1, 2, 3]


def test_n_test_draws_a_stratified_test_set_first():
    split = split_labeled(Y, 8, n_test=24, n_unlabeled=30, random_state=0)
    check_partition(split, len(Y))
    assert np.bincount(Y[split.test], minlength=4).tolist() == [12, 6, 4, 2]
    assert (len(split.labeled), len(split.unlabeled)) == (8, 30)


@pytest.mark.parametrize("n_unlabeled", [0, 1, 37, 112])
def test_n_unlabeled_exact(n_unlabeled):
    split = split_labeled(Y, 8, n_unlabeled=n_unlabeled, random_state=0)
    check_partition(split, len(Y))
    assert len(split.unlabeled) == n_unlabeled


def test_same_seed_same_split_different_seed_different_split():
    kwargs = dict(n_unlabeled=50, n_test=20)
    a = split_labeled(Y, 10, random_state=7, **kwargs)
    b = split_labeled(Y, 10, random_state=7, **kwargs)
    c = split_labeled(Y, 10, random_state=8, **kwargs)
    for name in ("labeled", "unlabeled", "test"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert any(not np.array_equal(getattr(a, name), getattr(c, name))
               for name in ("labeled", "unlabeled", "test"))
    # a generator is used as given (state advances), an int seed is not
    rng = np.random.RandomState(7)
    first = split_labeled(Y, 10, random_state=rng, **kwargs)
    np.testing.assert_array_equal(first.labeled, a.labeled)


def test_split_does_not_touch_the_global_numpy_generator():
    np.random.seed(123)
    expected = np.random.random_sample()
    np.random.seed(123)
    split_labeled(Y, 10, n_unlabeled=20, n_test=10, random_state=0)
    assert np.random.random_sample() == expected


def test_train_and_semi_supervised_targets():
    split = split_labeled(Y, 8, n_unlabeled=30, n_test=10, random_state=0)
    train = split.train
    np.testing.assert_array_equal(train, np.concatenate([split.labeled, split.unlabeled]))
    targets = split.semi_supervised_targets(Y)
    assert targets.shape == (38,)
    np.testing.assert_array_equal(targets == UNLABELED, np.arange(38) >= 8)
    np.testing.assert_array_equal(targets[:8], Y[split.labeled])
    assert UNLABELED == -1 and not np.any(Y == UNLABELED)


def test_split_is_frozen():
    split = Split(np.array([0]), np.array([1]), np.array([], dtype=int))
    with pytest.raises(AttributeError):
        split.labeled = np.array([2])


def test_semi_supervised_targets_with_string_labels_keep_minus_one():
    y = np.array(["a", "b", "c"])[np.arange(30) % 3]
    split = split_labeled(y, 3, random_state=0)
    targets = split.semi_supervised_targets(y)
    assert sum(label == UNLABELED for label in targets) == 27


def test_error_fewer_labeled_rows_than_classes():
    message = ("n_labeled=3 is smaller than the number of classes (4): every class needs at "
               "least one labeled row")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        split_labeled(Y, 3, random_state=0)


def test_error_n_unlabeled_too_large():
    message = "n_unlabeled=111 exceeds the 110 rows left after the labeled and test rows"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        split_labeled(Y, 6, test_rows=[0, 1, 2, 3], n_unlabeled=111, random_state=0)
    split_labeled(Y, 6, test_rows=[0, 1, 2, 3], n_unlabeled=110, random_state=0)


def test_error_labeled_set_larger_than_the_corpus():
    with pytest.raises(ValueError, match=r"^asked for 121 rows but only 120 are available$"):
        split_labeled(Y, 121, random_state=0)


def test_error_class_too_small_for_per_class():
    with pytest.raises(ValueError, match=r"has only 10 rows left; 11 were asked for$"):
        split_labeled(Y, 11, per_class=True, random_state=0)


def test_error_class_too_small_after_test_rows():
    test_rows = np.flatnonzero(Y == 3)[:8]  # 2 rows of class 3 left
    with pytest.raises(ValueError, match=r"has only 2 rows left; 3 were asked for$"):
        split_labeled(Y, 3, per_class=True, test_rows=test_rows, random_state=0)


def test_error_class_too_small_names_the_class_plainly():
    message = "class 3 has only 10 rows left; 11 were asked for"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        split_labeled(Y, 11, per_class=True, random_state=0)


def test_is_unlabeled_reads_minus_one_in_numeric_and_object_targets():
    from sslviz.splits import is_unlabeled

    np.testing.assert_array_equal(is_unlabeled([0, -1, 2, -1]), [False, True, False, True])
    np.testing.assert_array_equal(is_unlabeled([0.0, -1.0]), [False, True])
    labels = np.array(["spam", -1, "ham", "-1"], dtype=object)
    np.testing.assert_array_equal(is_unlabeled(labels), [False, True, False, False])
