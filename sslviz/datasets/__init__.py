"""Course corpora: where they live, how they are verified and fetched, and how they are loaded.

Quick start::

    from sslviz.datasets import load_20newsgroups
    news = load_20newsgroups(subset="train")

If a file is missing, the error says what to run (``python -m sslviz.datasets fetch NAME``) and
how to point ``SSLVIZ_DATA`` at a folder that already holds the files. ``python -m
sslviz.datasets status`` shows what is present.

Modules: :mod:`~sslviz.datasets.registry` (what the files are, their official URLs and accepted
sha256), :mod:`~sslviz.paths` (data and cache folders), :mod:`~sslviz.datasets.fetch`
(locate, verify, download), :mod:`~sslviz.datasets.loaders` (``load_*`` of the document
corpora and stop lists), :mod:`~sslviz.datasets.senseval` (the sense-tagged instances).
"""

from sslviz.datasets.fetch import (
    ChecksumMismatchError,
    DatasetMissingError,
    ensure,
    fetch,
    file_sha256,
    locate,
    status,
)
from sslviz.datasets.golub import load_golub
from sslviz.datasets.loaders import (
    check_remove,
    load_20newsgroups,
    load_reuters,
    load_stoplist,
    load_webkb,
)
from sslviz.datasets.registry import REGISTRY
from sslviz.datasets.senseval import SensevalCorpus, load_senseval
from sslviz.datasets.splice import load_splice
from sslviz.errors import DataError
from sslviz.paths import DataFolderError, cache_dir, data_dir

__all__ = [
    "REGISTRY",
    "ChecksumMismatchError",
    "DataError",
    "DataFolderError",
    "DatasetMissingError",
    "SensevalCorpus",
    "cache_dir",
    "check_remove",
    "data_dir",
    "ensure",
    "fetch",
    "file_sha256",
    "load_20newsgroups",
    "load_golub",
    "load_reuters",
    "load_senseval",
    "load_splice",
    "load_stoplist",
    "load_webkb",
    "locate",
    "status",
]
