"""The 2-D toy generator of Lecture 1: seeded, labels by the rotated line, clear errors."""

import numpy as np
import pytest

from sslviz.datasets.toy import class_of, make_rotated_clusters


def test_same_seed_same_points_and_the_angle_changes_only_the_labels():
    X0, y0 = make_rotated_clusters(300, angle=0, random_state=3)
    X0_again, y0_again = make_rotated_clusters(300, angle=0, random_state=3)
    X90, y90 = make_rotated_clusters(300, angle=90, random_state=3)
    np.testing.assert_array_equal(X0, X0_again)
    np.testing.assert_array_equal(y0, y0_again)
    np.testing.assert_array_equal(X0, X90)
    assert not np.array_equal(y0, y90)
    X_other, _ = make_rotated_clusters(300, angle=0, random_state=4)
    assert not np.allclose(X0, X_other)


@pytest.mark.parametrize("angle", [0, 30, 45, 90])
def test_labels_are_the_side_of_the_rotated_line(angle):
    X, y = make_rotated_clusters(500, angle=angle, random_state=0)
    theta = angle * np.pi / 180
    expected = (np.cos(theta) * X[:, 0] + np.sin(theta) * X[:, 1] > 0).astype(int)
    np.testing.assert_array_equal(y, expected)
    np.testing.assert_array_equal(class_of(X, angle), expected)
    assert y.dtype.kind == "i" and set(np.unique(y)) == {0, 1}


def test_labels_follow_the_clusters_at_0_and_cut_them_in_half_at_90():
    X, y0, clusters = make_rotated_clusters(4000, angle=0, return_clusters=True, random_state=1)
    _, y90 = make_rotated_clusters(4000, angle=90, random_state=1)
    assert np.mean(y0 == clusters) > 0.99  # 1 - P(noise > 1.6 / 0.55) = 0.998
    assert 0.45 < np.mean(y90 == clusters) < 0.55
    for c, centre in ((0, -1.6), (1, 1.6)):
        members = X[clusters == c]
        np.testing.assert_allclose(members.mean(axis=0), [centre, 0], atol=0.15)
        np.testing.assert_allclose(members.std(axis=0), [0.55, 2.0], rtol=0.06)


def test_parameters_shape_the_clusters():
    X, _, clusters = make_rotated_clusters(4000, separation=3.0, spread=(0.2, 0.5),
                                           return_clusters=True, random_state=2)
    members = X[clusters == 1]
    np.testing.assert_allclose(members.mean(axis=0), [3.0, 0], atol=0.05)
    np.testing.assert_allclose(members.std(axis=0), [0.2, 0.5], rtol=0.06)


@pytest.mark.parametrize("kwargs, message", [
    ({"n_samples": 1}, r"n_samples must be an integer >= 2, got 1"),
    ({"n_samples": 10.0}, r"n_samples must be an integer >= 2, got 10.0"),
    ({"angle": -1}, r"angle must be a number of degrees in \[0, 90\], got -1"),
    ({"angle": 91}, r"angle must be a number of degrees in \[0, 90\], got 91"),
    ({"angle": "flat"}, r"angle must be a number of degrees in \[0, 90\], got 'flat'"),
    ({"separation": 0}, r"separation must be a positive number, got 0"),
    ({"spread": (1.0,)}, r"spread must be two positive standard deviations \(across, along\), "
                         r"got \[1.0\]"),
    ({"spread": (1.0, -2.0)}, r"spread must be two positive standard deviations"),
])
def test_bad_parameters_are_refused_with_a_clear_message(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_rotated_clusters(**kwargs)
