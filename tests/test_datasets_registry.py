"""Registry, data folders, locating/verifying, fetching and the command line of sslviz.datasets.

Everything runs on small files made in ``tmp_path``; registry entries are swapped with
``monkeypatch.setitem(REGISTRY, ...)`` so that their sha256 match those files.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import PATIENCE_S

from sslviz.datasets import (
    REGISTRY,
    ChecksumMismatchError,
    DataFolderError,
    DatasetMissingError,
    cache_dir,
    data_dir,
    ensure,
    fetch,
    file_sha256,
    locate,
    status,
)
from sslviz.datasets.__main__ import main
from sslviz.datasets.download import MirrorError
from sslviz.datasets.registry import AcceptedCopy, DataFile, Dataset, get_dataset
from sslviz.datasets.verify import NOT_A_FILE

fetch_module = importlib.import_module("sslviz.datasets.fetch")
verify_module = importlib.import_module("sslviz.datasets.verify")
paths_module = importlib.import_module("sslviz.paths")

REPO = Path(__file__).resolve().parent.parent
PAYLOAD = b"hello, semi-supervised world\n" * 50
PAYLOAD_SHA = hashlib.sha256(PAYLOAD).hexdigest()
OTHER_SHA = "0" * 64


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _register(monkeypatch, *files: DataFile, name="toy") -> Dataset:
    dataset = Dataset(name, f"a toy dataset called {name}", tuple(files))
    monkeypatch.setitem(REGISTRY, name, dataset)
    return dataset


def _toy_file(url=None, sha=PAYLOAD_SHA, name="toy.bin", extra=()) -> DataFile:
    return DataFile(name, url, (AcceptedCopy(name, sha, "test copy"), *extra), source="the test")


@pytest.fixture
def source_file(tmp_path) -> Path:
    """A file to download from, outside the data folder."""
    path = tmp_path / "server" / "toy.bin"
    path.parent.mkdir()
    path.write_bytes(PAYLOAD)
    return path


@pytest.fixture
def folder(tmp_path) -> Path:
    path = tmp_path / "data"
    path.mkdir()
    return path


# --------------------------------------------------------------------------- registry


def test_registry_names_the_nine_datasets_of_the_manifest():
    assert set(REGISTRY) == {
        "20newsgroups", "webkb", "reuters21578", "smart_stoplist", "senseval",
        "r8", "webkb_stemmed", "golub", "splice",
    }
    assert all(name == dataset.name for name, dataset in REGISTRY.items())


def test_registry_checksums_are_sha256_hex_or_none():
    for dataset in REGISTRY.values():
        for data_file in dataset.files:
            for copy in data_file.accepted:
                assert copy.sha256 is None or re.fullmatch(r"[0-9a-f]{64}", copy.sha256), copy
                assert copy.note


def test_registry_entries_are_frozen():
    dataset = REGISTRY["20newsgroups"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        dataset.name = "other"
    with pytest.raises(dataclasses.FrozenInstanceError):
        dataset.files[0].accepted[0].sha256 = OTHER_SHA


def test_20newsgroups_accepts_sklearn_archive_and_course_copy():
    data_file = REGISTRY["20newsgroups"].file()
    assert data_file.url == "https://ndownloader.figshare.com/files/5975967"
    shas = {copy.filename: copy.sha256 for copy in data_file.accepted}
    assert shas == {
        "20news-bydate.tar.gz": "8f1b2514ca22a5ade8fbb9cfa5727df95fa587f4c87b786e15c759fa66d95610",
        "20news-bydate-repacked.tar.gz": (
            "662e7576aab23a795ecf112e43a19ee30fc294d0d539d3391b06bacbe374735f"
        ),
    }


@pytest.mark.parametrize("name", ["webkb", "reuters21578"])
def test_official_archives_without_checksum_are_accepted_unverified(name):
    data_file = REGISTRY[name].file()
    official = [copy for copy in data_file.accepted if copy.filename == data_file.name]
    assert data_file.url and [copy.sha256 for copy in official] == [None]
    assert any(copy.sha256 for copy in data_file.accepted)  # the course copy is checked


def test_golub_cannot_be_downloaded_and_says_where_to_get_it():
    for data_file in REGISTRY["golub"].files:
        assert data_file.url is None
        assert "kaggle.com" in data_file.source
        assert data_file.accepted[0].filename.startswith("golub_leukemia/")


def test_dataset_file_selection_names_the_valid_files():
    r8 = REGISTRY["r8"]
    assert r8.file("r8-test-all-terms.txt").name == "r8-test-all-terms.txt"
    with pytest.raises(ValueError, match="r8-train-all-terms.txt"):
        r8.file()
    with pytest.raises(ValueError, match="'nope.txt'.*r8-train-all-terms.txt"):
        r8.file("nope.txt")
    assert REGISTRY["20newsgroups"].file("20news-bydate-repacked.tar.gz").name == (
        "20news-bydate.tar.gz"
    )


def test_unknown_dataset_lists_the_registered_ones():
    with pytest.raises(ValueError, match=r"'20news'.*20newsgroups"):
        get_dataset("20news")


# --------------------------------------------------------------------------- folders


def test_sslviz_data_must_exist(monkeypatch, tmp_path):
    missing = tmp_path / "no-such-folder"
    monkeypatch.setenv("SSLVIZ_DATA", str(missing))
    with pytest.raises(DataFolderError) as info:
        data_dir()
    message = str(info.value)
    assert "SSLVIZ_DATA" in message and str(missing) in message and "does not exist" in message
    assert isinstance(info.value, FileNotFoundError)


def test_sslviz_data_must_be_a_folder(monkeypatch, tmp_path):
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    monkeypatch.setenv("SSLVIZ_DATA", str(a_file))
    with pytest.raises(DataFolderError, match="is not a folder"):
        data_dir()


def test_sslviz_data_wins(monkeypatch, folder):
    monkeypatch.setenv("SSLVIZ_DATA", str(folder))
    assert data_dir() == folder


def test_source_checkout_uses_repo_data_folder(monkeypatch, tmp_path):
    (tmp_path / "sslviz").mkdir()
    (tmp_path / "pyproject.toml").write_text("[project]\n")
    monkeypatch.delenv("SSLVIZ_DATA", raising=False)
    monkeypatch.setattr(paths_module, "_PACKAGE_DIR", tmp_path / "sslviz")
    assert data_dir() == tmp_path / "data"


def test_installed_package_uses_user_data_folder(monkeypatch, tmp_path):
    (tmp_path / "site-packages" / "sslviz").mkdir(parents=True)
    monkeypatch.delenv("SSLVIZ_DATA", raising=False)
    monkeypatch.setattr(paths_module, "_PACKAGE_DIR", tmp_path / "site-packages" / "sslviz")
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == tmp_path / "xdg" / "sslviz"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert data_dir() == tmp_path / "home" / ".local" / "share" / "sslviz"
    monkeypatch.setattr(sys, "platform", "darwin")
    assert data_dir() == tmp_path / "home" / "Library" / "Application Support" / "sslviz"


def test_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("SSLVIZ_CACHE", str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c"
    monkeypatch.delenv("SSLVIZ_CACHE")
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "sslviz"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "sslviz"
    monkeypatch.setattr(sys, "platform", "darwin")
    assert cache_dir() == tmp_path / "home" / "Library" / "Caches" / "sslviz"
    assert not (tmp_path / "home").exists()  # nothing is created


# --------------------------------------------------------------------------- hashing


def test_file_sha256_is_memoized_per_size_and_mtime(monkeypatch, tmp_path):
    calls = []
    real_hash = verify_module._hash_file

    def counting_hash(path):
        calls.append(path)
        return real_hash(path)

    monkeypatch.setattr(verify_module, "_hash_file", counting_hash)
    path = tmp_path / "f.bin"
    path.write_bytes(PAYLOAD)
    assert file_sha256(path) == PAYLOAD_SHA
    assert file_sha256(str(path)) == PAYLOAD_SHA
    assert len(calls) == 1
    path.write_bytes(PAYLOAD + b"more")
    assert file_sha256(path) == hashlib.sha256(PAYLOAD + b"more").hexdigest()
    assert len(calls) == 2


# --------------------------------------------------------------------------- locate / status


def test_locate_returns_verified_copy(monkeypatch, folder):
    _register(monkeypatch, _toy_file())
    (folder / "toy.bin").write_bytes(PAYLOAD)
    assert locate("toy", data_dir=folder) == folder / "toy.bin"


def test_locate_reads_sslviz_data(monkeypatch, folder):
    _register(monkeypatch, _toy_file())
    (folder / "toy.bin").write_bytes(PAYLOAD)
    monkeypatch.setenv("SSLVIZ_DATA", str(folder))
    assert locate("toy") == folder / "toy.bin"


def test_missing_file_message_tells_what_to_do(monkeypatch, folder):
    _register(monkeypatch, _toy_file(url="file:///nowhere/toy.bin"))
    monkeypatch.setenv("SSLVIZ_DATA", str(folder))
    with pytest.raises(DatasetMissingError) as info:
        locate("toy")
    message = str(info.value)
    assert isinstance(info.value, FileNotFoundError)
    assert "toy.bin" in message
    assert str(folder) in message
    assert "SSLVIZ_DATA" in message.split("Looked in:")[1].splitlines()[0]  # how it was chosen
    assert "python -m sslviz.datasets fetch toy" in message
    assert "SSLVIZ_DATA=/path/to/folder" in message
    assert info.value.files == ("toy.bin",) and info.value.folder == folder


def test_missing_file_message_names_the_default_folder(monkeypatch, tmp_path):
    (tmp_path / "sslviz").mkdir()
    (tmp_path / "pyproject.toml").write_text("")
    monkeypatch.delenv("SSLVIZ_DATA", raising=False)
    monkeypatch.setattr(paths_module, "_PACKAGE_DIR", tmp_path / "sslviz")
    _register(monkeypatch, _toy_file(url="file:///nowhere/toy.bin"))
    with pytest.raises(DatasetMissingError, match=r"Looked in: .*data .*default"):
        locate("toy")


def test_missing_file_without_url_says_where_to_get_it(monkeypatch, folder):
    _register(monkeypatch, _toy_file(url=None))
    with pytest.raises(DatasetMissingError) as info:
        locate("toy", data_dir=folder)
    assert "cannot be downloaded automatically; get it from the test" in str(info.value)


def test_corrupt_file_is_refused_with_both_checksums(monkeypatch, folder):
    _register(monkeypatch, _toy_file(url="file:///nowhere/toy.bin"))
    bad = folder / "toy.bin"
    bad.write_bytes(PAYLOAD[:-1])
    with pytest.raises(ChecksumMismatchError) as info:
        locate("toy", data_dir=folder)
    message = str(info.value)
    assert isinstance(info.value, ValueError)
    assert PAYLOAD_SHA in message and _sha(bad) in message and str(bad) in message
    assert "fetch toy" in message and "rm " in message
    assert info.value.expected == (PAYLOAD_SHA,) and info.value.actual == _sha(bad)
    _register(monkeypatch, _toy_file(url=None))
    with pytest.raises(ChecksumMismatchError, match="fresh copy from the test"):
        locate("toy", data_dir=folder)


def test_unverified_copy_is_accepted_with_a_warning_showing_its_sha(monkeypatch, folder):
    official = AcceptedCopy("official.bin", None, "no checksum published")
    course = AcceptedCopy("course.bin", OTHER_SHA, "course copy")
    _register(monkeypatch, DataFile("official.bin", None, (course, official)))
    # No checksum is known for the name official.bin: its bytes are accepted, "unverified".
    (folder / "official.bin").write_bytes(PAYLOAD)
    with pytest.warns(fetch_module.UnverifiedFileWarning, match=PAYLOAD_SHA):
        assert locate("toy", data_dir=folder) == folder / "official.bin"
    [row] = status("toy", data_dir=folder)
    assert row.state == "present (unverified)"


def test_a_name_with_a_known_checksum_cannot_also_be_unverified():
    with pytest.raises(ValueError, match="'same.bin' has a known sha256 and also an unverified"):
        DataFile("same.bin", None, (AcceptedCopy("same.bin", PAYLOAD_SHA, "course copy"),
                                    AcceptedCopy("same.bin", None, "official, no checksum")))


@pytest.mark.parametrize(("name", "file"), [("r8", "r8-train-all-terms.txt"),
                                            ("r8", "r8-test-all-terms.txt"),
                                            ("webkb_stemmed", "webkb-train-stemmed.txt"),
                                            ("splice", "splice.data")])
def test_course_copies_under_official_names_are_the_reference(monkeypatch, folder, name, file):
    """Defect 4 of issue 13: a truncated file of such a name was "present (unverified)"."""
    data_file = REGISTRY[name].file(file)
    assert [copy.filename for copy in data_file.accepted] == [file]
    assert all(copy.sha256 for copy in data_file.accepted)
    (folder / file).write_bytes(b"label\tsome words\n")  # the wrong bytes under the right name
    [row] = [row for row in status(name, data_dir=folder) if row.file == file]
    assert row.state == "corrupt"
    with pytest.raises(ChecksumMismatchError, match="matches no accepted copy"):
        locate(name, file, data_dir=folder)
    monkeypatch.setenv("SSLVIZ_DATA", str(folder))
    assert main(["missing", name]) == 1
    assert main(["status", name]) == 1


def test_verified_copy_preferred_over_unverified(monkeypatch, folder):
    official = AcceptedCopy("official.bin", None, "no checksum published")
    _register(monkeypatch, DataFile("official.bin", None, (official, AcceptedCopy(
        "course.bin", PAYLOAD_SHA, "course copy"))))
    (folder / "official.bin").write_bytes(b"something else")
    (folder / "course.bin").write_bytes(PAYLOAD)
    assert locate("toy", data_dir=folder) == folder / "course.bin"


def test_status_reports_each_state(monkeypatch, folder):
    files = [_toy_file(name=f"{state}.bin") for state in ("ok", "gone", "bad")]
    _register(monkeypatch, *files)
    (folder / "ok.bin").write_bytes(PAYLOAD)
    (folder / "bad.bin").write_bytes(b"junk")
    rows = status("toy", data_dir=folder)
    assert [(row.dataset, row.file, row.state, row.path) for row in rows] == [
        ("toy", "ok.bin", "present", folder / "ok.bin"),
        ("toy", "gone.bin", "missing", folder / "gone.bin"),
        ("toy", "bad.bin", "corrupt", folder / "bad.bin"),
    ]


def test_ensure_lists_problems_without_raising(monkeypatch, folder, tmp_path):
    _register(monkeypatch, _toy_file(name="ok.bin"), _toy_file(name="gone.bin"))
    (folder / "ok.bin").write_bytes(PAYLOAD)
    [problem] = ensure(["toy"], data_dir=folder)
    assert "gone.bin" in problem and "ok.bin" not in problem.split("Looked in")[0]
    (folder / "gone.bin").write_bytes(PAYLOAD)
    assert ensure(["toy"], data_dir=folder) == []
    (folder / "ok.bin").write_bytes(b"x")
    [problem] = ensure(["toy"], data_dir=folder)
    assert "sha256" in problem and "ok.bin" in problem
    assert "no-such" in ensure(["no-such"], data_dir=folder)[0]
    monkeypatch.setenv("SSLVIZ_DATA", str(tmp_path / "absent"))
    [problem] = ensure(["toy"])
    assert "SSLVIZ_DATA" in problem and "absent" in problem


# --------------------------------------------------------------------------- fetch


def test_fetch_downloads_verifies_and_places_the_file(monkeypatch, folder, source_file):
    _register(monkeypatch, _toy_file(url=source_file.as_uri()))
    paths = fetch(["toy"], data_dir=folder, progress=False)
    assert paths == [folder / "toy.bin"]
    assert (folder / "toy.bin").read_bytes() == PAYLOAD
    assert sorted(os.listdir(folder)) == ["toy.bin"]  # no temporary file left
    source_file.unlink()  # a second fetch finds the file and does not download
    assert fetch("toy", data_dir=folder, progress=False) == [folder / "toy.bin"]


def test_a_mirror_serves_the_best_copy_it_has_checked_by_its_checksum(
        monkeypatch, folder, source_file):
    course_copy = AcceptedCopy("toy-course.bin", PAYLOAD_SHA, "course copy")
    _register(monkeypatch, _toy_file(url=None, sha=OTHER_SHA, extra=(course_copy,)))
    (source_file.parent / "toy-course.bin").write_bytes(PAYLOAD)  # the mirror lacks toy.bin
    monkeypatch.setenv("SSLVIZ_MIRROR", source_file.parent.as_uri())
    source_file.unlink()
    assert fetch("toy", data_dir=folder, progress=False) == [folder / "toy-course.bin"]
    assert os.listdir(folder) == ["toy-course.bin"]


def test_a_mirror_without_the_file_says_so(monkeypatch, folder, tmp_path):
    _register(monkeypatch, _toy_file(url="https://example.org/toy.bin"))
    monkeypatch.setenv("SSLVIZ_MIRROR", tmp_path.as_uri())
    with pytest.raises(DatasetMissingError) as info:
        fetch("toy", data_dir=folder, progress=False)
    assert (f"the mirror {tmp_path.as_uri()} (SSLVIZ_MIRROR) has none of toy.bin; put one "
            "there or unset SSLVIZ_MIRROR") in " ".join(str(info.value).split())


def test_a_mirror_copy_with_wrong_bytes_is_refused(monkeypatch, folder, source_file):
    _register(monkeypatch, _toy_file(url=None, sha=OTHER_SHA))
    monkeypatch.setenv("SSLVIZ_MIRROR", source_file.parent.as_uri() + "/")
    with pytest.raises(ChecksumMismatchError, match="from file:///.*toy.bin was refused"):
        fetch("toy", data_dir=folder, progress=False)
    assert os.listdir(folder) == []


def test_fetch_creates_the_default_folder(monkeypatch, tmp_path, source_file):
    target = tmp_path / "new" / "folder"
    _register(monkeypatch, _toy_file(url=source_file.as_uri()))
    fetch("toy", data_dir=target, progress=False)
    assert locate("toy", data_dir=target) == target / "toy.bin"


def test_fetch_refuses_mismatching_bytes_and_leaves_nothing(monkeypatch, folder, source_file):
    _register(monkeypatch, _toy_file(url=source_file.as_uri(), sha=OTHER_SHA))
    with pytest.raises(ChecksumMismatchError) as info:
        fetch("toy", data_dir=folder, progress=False)
    assert OTHER_SHA in str(info.value) and PAYLOAD_SHA in str(info.value)
    assert os.listdir(folder) == []


def test_fetch_replaces_a_corrupt_file(monkeypatch, folder, source_file):
    _register(monkeypatch, _toy_file(url=source_file.as_uri()))
    (folder / "toy.bin").write_bytes(b"truncated")
    fetch("toy", data_dir=folder, progress=False)
    assert (folder / "toy.bin").read_bytes() == PAYLOAD


def test_fetch_without_checksum_keeps_file_and_prints_sha(monkeypatch, folder, source_file, capsys):
    _register(monkeypatch, _toy_file(url=source_file.as_uri(), sha=None))
    fetch("toy", data_dir=folder, progress=False)
    err = capsys.readouterr().err
    assert "UNVERIFIED" in err and PAYLOAD_SHA in err
    assert status("toy", data_dir=folder)[0].state == "present (unverified)"


def test_fetch_without_network_names_missing_files(monkeypatch, folder, tmp_path):
    url = (tmp_path / "offline" / "toy.bin").as_uri()  # urlopen fails like a dead network
    _register(monkeypatch, _toy_file(url=url), _toy_file(url=None, name="manual.csv"))
    with pytest.raises(DatasetMissingError) as info:
        fetch("toy", data_dir=folder, progress=False)
    message = str(info.value)
    assert "toy.bin" in message and "failed" in message and url in message
    assert "manual.csv" in message and "cannot be downloaded automatically" in message
    assert "SSLVIZ_DATA" in message
    assert os.listdir(folder) == []


def test_fetch_into_unwritable_folder_says_so(monkeypatch, folder, source_file):
    _register(monkeypatch, _toy_file(url=source_file.as_uri()))

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("sslviz._io.tempfile.mkstemp", refuse)
    with pytest.raises(DatasetMissingError, match=r"cannot write into .*Permission denied"):
        fetch("toy", data_dir=folder, progress=False)


# --------------------------------------------------------------------------- command line


def test_cli_status_exit_codes(monkeypatch, folder, capsys):
    _register(monkeypatch, _toy_file(url="file:///nowhere/toy.bin"))
    monkeypatch.setenv("SSLVIZ_DATA", str(folder))
    assert main(["status", "toy"]) == 1
    captured = capsys.readouterr()
    assert re.search(r"toy\s+toy\.bin\s+missing", captured.out)
    assert "python -m sslviz.datasets fetch toy" in captured.err
    (folder / "toy.bin").write_bytes(PAYLOAD)
    assert main(["status", "toy"]) == 0
    row = r"toy\s+toy\.bin\s+present\s+" + re.escape(str(folder))
    assert re.search(row, capsys.readouterr().out)


def test_cli_fetch_missing_and_path(monkeypatch, folder, source_file, capsys):
    _register(monkeypatch, _toy_file(url=source_file.as_uri()))
    monkeypatch.setenv("SSLVIZ_DATA", str(folder))
    assert main(["missing", "toy"]) == 1
    assert capsys.readouterr().out.split() == ["toy.bin"]
    assert main(["fetch", "toy"]) == 0
    assert (folder / "toy.bin").read_bytes() == PAYLOAD
    assert main(["missing", "toy"]) == 0
    capsys.readouterr()
    assert main(["path"]) == 0
    assert str(folder) in capsys.readouterr().out


def test_cli_bad_arguments_exit_2_in_one_line(monkeypatch, tmp_path, capsys):
    assert main(["status", "no-such-dataset"]) == 2
    err = capsys.readouterr().err
    assert "no-such-dataset" in err and len(err.splitlines()) == 1
    monkeypatch.setenv("SSLVIZ_DATA", str(tmp_path / "absent"))
    assert main(["path"]) == 2
    err = capsys.readouterr().err
    assert "SSLVIZ_DATA" in err and len(err.splitlines()) == 1


def test_python_dash_m_runs_the_cli(tmp_path):
    env = {**os.environ, "SSLVIZ_DATA": str(tmp_path), "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-m", "sslviz.datasets", "status", "smart_stoplist"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=PATIENCE_S,
    )
    assert result.returncode == 1
    assert "missing" in result.stdout
    assert "python -m sslviz.datasets fetch smart_stoplist" in result.stderr


# --------------------------------------------------------------------------- mirrors (issue 32)


@pytest.mark.parametrize("mirror", ["/media/stick/corpora", "data:text/plain,x",
                                    "ftp://mirror.example.org/corpora/", "javascript:alert(1)",
                                    "https://", "http://host:port/", "file:"])
def test_a_mirror_that_is_not_an_address_is_refused_before_anything_is_fetched(
        monkeypatch, folder, mirror, capsys):
    _register(monkeypatch, _toy_file(url="https://example.org/toy.bin"))
    monkeypatch.setenv("SSLVIZ_MIRROR", mirror)
    expected = (f"SSLVIZ_MIRROR is set to {mirror!r}, which is not a mirror's address: give an "
                "https://, http:// or file:// URL")
    with pytest.raises(MirrorError) as info:
        fetch("toy", data_dir=folder, progress=False)
    assert str(info.value).startswith(expected)
    assert os.listdir(folder) == []
    assert main(["status", "toy"]) == 2  # the command checks it at its start: one line
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {expected}")


def test_a_mirror_folder_that_is_missing_cannot_be_reached(monkeypatch, folder, tmp_path):
    _register(monkeypatch, _toy_file(url="https://example.org/toy.bin"))
    gone = tmp_path / "unmounted-stick"
    monkeypatch.setenv("SSLVIZ_MIRROR", gone.as_uri())
    with pytest.raises(DatasetMissingError) as info:
        fetch("toy", data_dir=folder, progress=False)
    text = " ".join(str(info.value).split())
    assert f"cannot reach the mirror {gone.as_uri()} (SSLVIZ_MIRROR): {gone} does not exist" \
        in text
    assert "has none of" not in text


def test_a_mirror_on_a_closed_port_cannot_be_reached_it_does_not_lack_the_file(monkeypatch,
                                                                                folder):
    import socket

    with socket.socket() as probe:  # a port that was free a moment ago: nobody listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    _register(monkeypatch, _toy_file(url="https://example.org/toy.bin"))
    monkeypatch.setenv("SSLVIZ_MIRROR", f"http://127.0.0.1:{port}/corpora")
    with pytest.raises(DatasetMissingError) as info:
        fetch("toy", data_dir=folder, progress=False)
    text = " ".join(str(info.value).split())
    assert f"cannot reach the mirror http://127.0.0.1:{port}/corpora (SSLVIZ_MIRROR):" in text
    assert "Connection refused" in text and "has none of" not in text


def test_an_http_mirror_without_the_file_says_so(monkeypatch, folder, tmp_path):
    import functools
    import http.server
    import threading

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        _register(monkeypatch, _toy_file(url="https://example.org/toy.bin"))
        mirror = f"http://127.0.0.1:{server.server_address[1]}/"
        monkeypatch.setenv("SSLVIZ_MIRROR", mirror)
        with pytest.raises(DatasetMissingError) as info:
            fetch("toy", data_dir=folder, progress=False)
    finally:
        server.shutdown()
        server.server_close()
    assert (f"the mirror {mirror} (SSLVIZ_MIRROR) has none of toy.bin"
            in " ".join(str(info.value).split()))


# --------------------------------------------------------------------------- a file for a folder


def test_a_file_where_a_datasets_folder_should_be_is_reported_not_a_folder(folder):
    (folder / "golub_leukemia").write_text("not the folder")
    rows = status("golub", data_dir=folder)
    assert {row.state for row in rows} == {NOT_A_FILE}
    problems = " ".join(" ".join(ensure("golub", data_dir=folder)).split())
    assert (f"{folder / 'golub_leukemia'} is not a folder (it is a file), where the folder "
            "holding actual.csv should be") in problems
    assert "missing" not in problems.split("golub")[-1]
