"""Fault tests of the data layer: damaged, swapped, misplaced and unreachable files and folders.

Every case ends in a clear message (naming the file and what to do) or in a correct result,
never in a wrong one. A small registry entry is swapped in for each test; downloads come from a
``file://`` URL or from a plain-HTTP server on localhost started by the test. Read-only folders
are simulated by making the write fail (the tests run as root in CI, where ``chmod`` does not
stop writes).
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import http.client
import http.server
import io
import os
import random
import tarfile
import threading
import time
from pathlib import Path

import pytest

from sslviz.datasets import REGISTRY, ChecksumMismatchError, DatasetMissingError, locate, status
from sslviz.datasets import fetch as fetch_files
from sslviz.datasets.__main__ import main
from sslviz.datasets.registry import AcceptedCopy, DataFile, Dataset
from sslviz.datasets.verify import file_sha256

TRAIN = b"earn\tprofit rose sharply in the quarter\n" * 40
TEST = b"grain\twheat exports fell after the harvest\n" * 30


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def folder(tmp_path) -> Path:
    path = tmp_path / "data"
    path.mkdir()
    return path


@pytest.fixture
def server(tmp_path):
    """A plain-HTTP server on localhost serving ``tmp_path / 'www'``; yields (root, base URL)."""
    root = tmp_path / "www"
    root.mkdir()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def register(monkeypatch, url_base=None, *, unverified_name=None) -> Dataset:
    """A two-file dataset like R8 (course copies under the official names, with sha256), and
    optionally a third file whose name has no known checksum at all (like WebKB's archive)."""
    files = [DataFile(name, url_base and f"{url_base}/{name}",
                      (AcceptedCopy(name, sha(data), "course copy"),), source="the test")
             for name, data in (("train.txt", TRAIN), ("test.txt", TEST))]
    if unverified_name:
        files.append(DataFile(unverified_name, url_base and f"{url_base}/{unverified_name}",
                              (AcceptedCopy(unverified_name, None, "official, no checksum"),)))
    dataset = Dataset("faulty", "a dataset for fault tests", tuple(files))
    monkeypatch.setitem(REGISTRY, "faulty", dataset)
    return dataset


def states(folder):
    return {row.file: row.state for row in status("faulty", data_dir=folder)}


def cli(monkeypatch, folder, *argv):
    monkeypatch.setenv("SSLVIZ_DATA", str(folder))
    return main([*argv, "faulty"])


def flip_one_bit(data: bytes, position: int) -> bytes:
    return data[:position] + bytes([data[position] ^ 0x01]) + data[position + 1:]


# -- damaged files --------------------------------------------------------------------------------
@pytest.mark.parametrize("damage", [
    pytest.param(lambda data: data[: len(data) // 2], id="truncated"),
    pytest.param(lambda data: b"", id="emptied"),
    pytest.param(lambda data: flip_one_bit(data, 0), id="first-bit-flipped"),
    pytest.param(lambda data: flip_one_bit(data, len(data) - 1), id="last-bit-flipped"),
    pytest.param(lambda data: data + b"\n", id="one-byte-appended"),
    pytest.param(lambda data: data.replace(b"\n", b"\r\n"), id="line-endings-changed"),
])
def test_a_damaged_file_is_corrupt_everywhere(monkeypatch, folder, capsys, damage):
    register(monkeypatch)
    (folder / "train.txt").write_bytes(damage(TRAIN))
    (folder / "test.txt").write_bytes(TEST)
    assert states(folder) == {"train.txt": "corrupt", "test.txt": "present"}
    with pytest.raises(ChecksumMismatchError) as info:
        locate("faulty", "train.txt", data_dir=folder)
    assert str(folder / "train.txt") in str(info.value) and sha(TRAIN) in str(info.value)
    assert locate("faulty", "test.txt", data_dir=folder) == folder / "test.txt"
    assert cli(monkeypatch, folder, "status") == 1
    assert "Refusing" in capsys.readouterr().err
    assert cli(monkeypatch, folder, "missing") == 1
    assert capsys.readouterr().out.split() == ["train.txt"]


def test_swapped_files_are_both_refused(monkeypatch, folder):
    register(monkeypatch)
    (folder / "train.txt").write_bytes(TEST)
    (folder / "test.txt").write_bytes(TRAIN)
    assert states(folder) == {"train.txt": "corrupt", "test.txt": "corrupt"}


def test_a_damaged_file_is_replaced_by_fetch_and_a_sound_one_kept(monkeypatch, folder, tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    (source / "train.txt").write_bytes(TRAIN)
    (source / "test.txt").write_bytes(TEST)
    register(monkeypatch, source.as_uri())
    (folder / "train.txt").write_bytes(TRAIN[:10])
    (folder / "test.txt").write_bytes(TEST)
    before = (folder / "test.txt").stat().st_mtime_ns
    fetch_files("faulty", data_dir=folder, progress=False)
    assert (folder / "train.txt").read_bytes() == TRAIN
    assert (folder / "test.txt").stat().st_mtime_ns == before  # not downloaded again
    assert states(folder) == {"train.txt": "present", "test.txt": "present"}


def test_a_file_changed_after_it_was_hashed_is_hashed_again(monkeypatch, folder):
    register(monkeypatch)
    path = folder / "train.txt"
    path.write_bytes(TRAIN)
    assert file_sha256(path) == sha(TRAIN)
    path.write_bytes(TRAIN[:-1])
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 10_000))
    assert states(folder)["train.txt"] == "corrupt"


# -- wrong types: folders where files should be, files where folders should be --------------------
def test_a_folder_where_the_file_should_be(monkeypatch, folder, tmp_path, capsys):
    source = tmp_path / "source"
    source.mkdir()
    (source / "train.txt").write_bytes(TRAIN)
    register(monkeypatch, source.as_uri())
    (folder / "train.txt").mkdir()
    (folder / "test.txt").write_bytes(TEST)
    assert states(folder)["train.txt"] == "not a file"
    with pytest.raises(DatasetMissingError, match=r"is a folder, where the file train\.txt "
                                                  r"should be; move it away"):
        locate("faulty", "train.txt", data_dir=folder)
    with pytest.raises(DatasetMissingError) as info:
        fetch_files("faulty", data_dir=folder, progress=False)
    assert "is a folder" in str(info.value) and "no network" not in str(info.value)
    assert (folder / "train.txt").is_dir()  # left as it was
    assert cli(monkeypatch, folder, "missing") == 1
    assert capsys.readouterr().out.split() == ["train.txt"]
    assert cli(monkeypatch, folder, "status") == 1
    assert "is a folder" in capsys.readouterr().err


def test_a_file_where_the_data_folder_should_be(monkeypatch, tmp_path, server):
    root, base = server
    (root / "train.txt").write_bytes(TRAIN)
    register(monkeypatch, base)
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder")
    with pytest.raises(DatasetMissingError) as info:
        fetch_files("faulty", data_dir=blocker / "data", progress=False)
    message = str(info.value)
    assert "is a file, not a folder" in message and "no network" not in message
    assert blocker.read_text() == "not a folder"


@pytest.mark.parametrize(("code", "fix"), [
    (errno.EACCES, "choose a writable folder"),
    (errno.EROFS, "choose a writable folder"),
    (errno.ENOSPC, "check that the disk has room"),
])
def test_an_unwritable_data_folder_is_named_not_blamed_on_the_network(monkeypatch, folder,
                                                                      server, code, fix):
    root, base = server
    (root / "train.txt").write_bytes(TRAIN)
    (root / "test.txt").write_bytes(TEST)
    register(monkeypatch, base)

    def refuse(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr("sslviz.datasets.download.tempfile.TemporaryFile", refuse)
    with pytest.raises(DatasetMissingError) as info:
        fetch_files("faulty", data_dir=folder, progress=False)
    message = str(info.value)
    assert f"cannot write into {folder} ({os.strerror(code)}); {fix}" in message
    assert "no network" not in message and os.listdir(folder) == []


def test_an_unreadable_file_is_named_with_the_fix(monkeypatch, folder, capsys):
    register(monkeypatch)
    (folder / "train.txt").write_bytes(TRAIN)
    (folder / "test.txt").write_bytes(TEST)

    def refuse(path):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr("sslviz.datasets.verify._SHA_CACHE", {})
    monkeypatch.setattr("sslviz.datasets.verify._hash_file", refuse)
    assert states(folder) == {"train.txt": "unreadable", "test.txt": "unreadable"}
    with pytest.raises(DatasetMissingError, match=r"cannot be read \(Permission denied\); fix "
                                                  r"its permissions"):
        locate("faulty", "train.txt", data_dir=folder)
    assert cli(monkeypatch, folder, "status") == 1


# -- downloads: plain HTTP, broken transfers, leftovers -------------------------------------------
def test_plain_http_cannot_replace_a_checked_file_with_other_bytes(monkeypatch, folder, server):
    root, base = server
    (root / "train.txt").write_bytes(b"<html>moved</html>")  # an error page, or a tampered file
    (root / "test.txt").write_bytes(TEST)
    register(monkeypatch, base)
    with pytest.raises(ChecksumMismatchError) as info:
        fetch_files("faulty", data_dir=folder, progress=False)
    assert sha(TRAIN) in str(info.value) and f"{base}/train.txt" in str(info.value)
    assert not (folder / "train.txt").exists()
    assert [p.name for p in folder.iterdir() if p.name.endswith(".part")] == []


def test_plain_http_file_without_any_checksum_is_kept_as_unverified(monkeypatch, folder, server,
                                                                     capsys):
    root, base = server
    official = gzip.compress(b"bytes")  # of its format: an unverified file is checked for that
    for name, data in (("train.txt", TRAIN), ("test.txt", TEST), ("official.gz", official)):
        (root / name).write_bytes(data)
    register(monkeypatch, base, unverified_name="official.gz")
    fetch_files("faulty", data_dir=folder, progress=False)
    err = capsys.readouterr().err
    assert "over plain HTTP" in err and "UNVERIFIED" in err and sha(official) in err
    assert states(folder) == {"train.txt": "present", "test.txt": "present",
                              "official.gz": "present (unverified)"}


def test_a_missing_page_or_a_dead_server_is_a_network_problem(monkeypatch, folder, server):
    _, base = server  # nothing is served: 404
    register(monkeypatch, base)
    with pytest.raises(DatasetMissingError) as info:
        fetch_files("faulty", data_dir=folder, progress=False)
    message = str(info.value)
    assert "the server answered HTTP 404" in message and "no network" not in message
    register(monkeypatch, "http://127.0.0.1:9")  # the discard port: nobody answers
    with pytest.raises(DatasetMissingError, match="no network"):
        fetch_files("faulty", data_dir=folder, progress=False)
    assert os.listdir(folder) == []


def test_a_transfer_cut_short_leaves_nothing(monkeypatch, folder, server):
    root, base = server
    (root / "train.txt").write_bytes(TRAIN)
    (root / "test.txt").write_bytes(TEST)
    register(monkeypatch, base)
    real_read = http.client.HTTPResponse.read

    def cut(self, amt=None):
        if self.fp is not None and self.length and self.length > 100:
            real_read(self, 100)
            raise http.client.IncompleteRead(b"x" * 100, self.length)
        return real_read(self, amt)

    monkeypatch.setattr(http.client.HTTPResponse, "read", cut)
    with pytest.raises(DatasetMissingError, match=r"failed \(IncompleteRead.*no network"):
        fetch_files("faulty", data_dir=folder, progress=False)
    assert os.listdir(folder) == []


def test_stale_temporary_files_of_a_killed_download_are_swept(monkeypatch, folder, tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    (source / "train.txt").write_bytes(TRAIN)
    (source / "test.txt").write_bytes(TEST)
    register(monkeypatch, source.as_uri())
    stale, fresh = folder / ".train.txt.abc123.part", folder / ".train.txt.def456.part"
    stale.write_bytes(TRAIN[:7])
    fresh.write_bytes(TRAIN[:9])  # perhaps another process downloading right now
    hours_ago = time.time() - 2 * 3600
    os.utime(stale, (hours_ago, hours_ago))
    fetch_files("faulty", data_dir=folder, progress=False)
    assert not stale.exists() and fresh.exists()
    assert (folder / "train.txt").read_bytes() == TRAIN


# -- the real registry -----------------------------------------------------------------------------
def test_every_name_with_a_known_checksum_is_checked_in_the_real_registry():
    """No registered file name is both checked and accepted unverified (defect 4)."""
    for dataset in REGISTRY.values():
        for data_file in dataset.files:
            for filename in data_file.filenames:
                shas = [c.sha256 for c in data_file.accepted if c.filename == filename]
                assert None not in shas or not any(shas), (dataset.name, filename)


# -- issue 22: a file without a published checksum must at least be of its format ------------------
def _tar_gz(members) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


STOP_WORDS = b"a\na's\nable\nabout\nabove\naccording\nacross\nafter\nagain\nall\nc'mon\n"
NOISE = random.Random(0).randbytes(60_000)
ARCHIVE = _tar_gz({f"docs/{i}.txt": NOISE[3000 * i: 3000 * (i + 1)] for i in range(20)})


@pytest.mark.parametrize(("name", "data", "reason"), [
    pytest.param("english.stop", b"<html><body><h1>404 Not Found</h1></body></html>\n",
                 "'<html><body>", id="stop-list-html"),
    pytest.param("english.stop", NOISE[:4000], "not a stop list", id="stop-list-random-bytes"),
    pytest.param("english.stop", b"the\nand\n", "only 2 word(s)", id="stop-list-two-words"),
    pytest.param("official.tar.gz", ARCHIVE[: len(ARCHIVE) // 2], "does not open as the archive",
                 id="tar-gz-truncated"),
    pytest.param("official.tar.gz", b"<html>moved</html>", "does not open as the archive",
                 id="tar-gz-html"),
    pytest.param("official.zip", b"PK\x03\x04 not really a zip", "does not open as the archive",
                 id="zip-damaged"),
    pytest.param("official.csv", b"a,b,c\n1,2\n", "different numbers of columns",
                 id="csv-ragged"),
])
def test_an_unverified_file_that_is_not_of_its_format_is_corrupt(monkeypatch, folder, capsys, name,
                                                                  data, reason):
    register(monkeypatch, unverified_name=name)
    for good, payload in (("train.txt", TRAIN), ("test.txt", TEST)):
        (folder / good).write_bytes(payload)
    (folder / name).write_bytes(data)
    assert states(folder)[name] == "corrupt"
    with pytest.raises(ChecksumMismatchError) as info:
        locate("faulty", name, data_dir=folder)
    message = str(info.value)
    assert reason in message and "no published checksum" in message and str(folder) in message
    assert cli(monkeypatch, folder, "status") == 1
    assert reason in capsys.readouterr().err
    assert cli(monkeypatch, folder, "missing") == 1
    assert name in capsys.readouterr().out.split()


@pytest.mark.parametrize(("name", "data"), [
    pytest.param("english.stop", b"# SMART\n" + STOP_WORDS, id="stop-list"),
    pytest.param("official.tar.gz", ARCHIVE, id="tar-gz"),
    pytest.param("official.csv", b"a,b,c\n1,2,3\n", id="csv"),
    pytest.param("official.bin", b"any bytes: no format is known for this name", id="other"),
])
def test_an_unverified_file_of_its_format_is_used(monkeypatch, folder, name, data):
    register(monkeypatch, unverified_name=name)
    (folder / name).write_bytes(data)
    assert states(folder)[name] == "present (unverified)"
    assert locate("faulty", name, data_dir=folder) == folder / name


def test_the_smart_stop_list_refuses_an_error_page_saved_under_its_official_name(monkeypatch,
                                                                                tmp_path):
    from sslviz.datasets import load_stoplist

    (tmp_path / "english.stop").write_bytes(b"<!DOCTYPE html>\n<html><title>Moved</title>\n")
    with pytest.raises(ChecksumMismatchError, match="it is not a stop list"):
        load_stoplist("smart", data_dir=tmp_path)
    (tmp_path / "english.stop").write_bytes(STOP_WORDS)
    assert "c'mon" in load_stoplist("smart", data_dir=tmp_path)


def test_a_downloaded_error_page_without_a_checksum_is_refused_and_not_kept(monkeypatch, folder,
                                                                           server):
    root, base = server
    for name, data in (("train.txt", TRAIN), ("test.txt", TEST),
                       ("official.tar.gz", b"<html>this page has moved</html>")):
        (root / name).write_bytes(data)
    register(monkeypatch, base, unverified_name="official.tar.gz")
    with pytest.raises(ChecksumMismatchError, match="refused and not saved: it does not open"):
        fetch_files("faulty", data_dir=folder, progress=False)
    assert not (folder / "official.tar.gz").exists()
    assert [p.name for p in folder.iterdir() if p.name.endswith(".part")] == []
