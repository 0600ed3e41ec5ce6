"""Fake corpus files for the dataset tests: archives written here, registered in place of the
real registry entry (so that ``locate``/``load_*`` accept exactly them)."""

from __future__ import annotations

import hashlib
import io
import tarfile
from pathlib import Path

from sslviz.datasets import REGISTRY
from sslviz.datasets.registry import AcceptedCopy, DataFile, Dataset


def make_tar_gz(path: Path, members: dict[str, bytes], dirs=()) -> Path:
    """Write a .tar.gz whose members are added in the given (deliberately unsorted) order."""
    with tarfile.open(path, "w:gz") as tar:
        for name in dirs:
            info = tarfile.TarInfo(name)
            info.type = tarfile.DIRTYPE
            tar.addfile(info)
        for name, payload in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
    return path


def register_fake(monkeypatch, name: str, path: Path, *, point_data_dir=True) -> Path:
    """Replace registry entry ``name`` by one that accepts exactly the file at ``path``; with
    ``point_data_dir``, ``SSLVIZ_DATA`` names the file's folder. Returns ``path``."""
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    copy = AcceptedCopy(path.name, sha, "fake for tests")
    dataset = Dataset(name, f"FAKE {name} corpus", (DataFile(path.name, path.as_uri(), (copy,)),))
    monkeypatch.setitem(REGISTRY, name, dataset)
    if point_data_dir:
        monkeypatch.setenv("SSLVIZ_DATA", str(path.parent))
    return path
