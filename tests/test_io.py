"""Atomic writes: all or nothing, and the permissions a plain ``open()`` would give."""

from __future__ import annotations

import os

import pytest

from sslviz._io import atomic_write, atomic_write_path


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_written_file_has_the_usual_mode(tmp_path, umask_022):
    with atomic_write(tmp_path / "a.txt", mode="w") as handle:
        handle.write("hello")
    with atomic_write_path(tmp_path / "b.png") as tmp:
        tmp.write_bytes(b"x")
    assert (tmp_path / "a.txt").read_text() == "hello"
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "b.png").stat().st_mode & 0o777 == 0o644


def test_failure_leaves_the_old_file_and_no_temporary_file(tmp_path):
    target = tmp_path / "cache.npz"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError, match="disk full"), atomic_write(target) as handle:
        handle.write(b"half")
        raise RuntimeError("disk full")
    with pytest.raises(RuntimeError, match="disk full"), atomic_write_path(target) as tmp:
        tmp.write_bytes(b"half")
        raise RuntimeError("disk full")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["cache.npz"]


def test_bad_mode_is_refused(tmp_path):
    with pytest.raises(ValueError, match="atomic_write mode must be 'wb' or 'w', got 'a'"), \
            atomic_write(tmp_path / "x", mode="a"):
        pass
