"""The registry of corpora used by the notebooks: what each file is, where it comes from, which
copies are accepted.

Every dataset is a :class:`Dataset` made of one or more :class:`DataFile`. A data file has an
*official* name and, where one exists, an official direct download URL. It also lists the copies
of it that the package accepts (:class:`AcceptedCopy`), each with the sha256 that copy must have:

* the official archive, when its distributor (or scikit-learn, for 20 Newsgroups) publishes a
  checksum;
* the redistributed course copies described in the data manifest (``MANIFEST.md`` of the course
  data folder), with the sha256 computed when they were assembled;
* the official file with ``sha256=None`` where no checksum has been published anywhere (WebKB's
  CMU archive, Reuters' UCI archive, ...). Such a copy is accepted but always reported as
  *unverified*, together with its computed sha256, so that nobody mistakes it for a checked file.

One rule keeps damaged files out: **a file name with a known checksum must match it.** Where the
course copy has the official name (R8, stemmed WebKB, splice), its sha256 is the reference for
that name, and no unverified entry of the same name may exist (a :class:`DataFile` refuses one):
otherwise a truncated copy would pass as "present (unverified)".

The registry holds facts only; finding, hashing and downloading the files is done in
:mod:`sslviz.datasets.fetch`. ``REGISTRY`` is an ordinary dict so that tests can substitute an
entry (``monkeypatch.setitem(REGISTRY, name, dataset)``); the entries themselves are frozen.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["AcceptedCopy", "DataFile", "Dataset", "REGISTRY", "get_dataset"]

_MANIFEST = "see MANIFEST.md of the course data folder"


@dataclass(frozen=True)
class AcceptedCopy:
    """One acceptable copy of a data file.

    Parameters
    ----------
    filename : str
        Path of the copy relative to the data folder (may contain a sub-folder, with ``/``).
    sha256 : str or None
        Expected sha256 (lower-case hex). ``None`` means no checksum is published: the copy is
        accepted but reported as "present (unverified)".
    note : str
        Where the copy comes from and how far it is trustworthy.
    """

    filename: str
    sha256: str | None
    note: str

    @property
    def verified(self) -> bool:
        """Whether a checksum is known for this copy."""
        return self.sha256 is not None


@dataclass(frozen=True)
class DataFile:
    """One file of a dataset, under its official name.

    Parameters
    ----------
    name : str
        The official file name (the name a download is saved under).
    url : str or None
        Official direct download URL; ``None`` when there is no public direct URL, in which case
        ``source`` says where to get the file by hand.
    accepted : tuple of AcceptedCopy
        The copies accepted in the data folder, best first.
    source : str
        Human-readable origin (home page, how to obtain the file manually).
    """

    name: str
    url: str | None
    accepted: tuple[AcceptedCopy, ...]
    source: str = ""

    def __post_init__(self):
        if not self.accepted:
            raise ValueError(f"DataFile {self.name!r} must accept at least one copy")
        for filename in self.filenames:
            shas = [copy.sha256 for copy in self.accepted if copy.filename == filename]
            if None in shas and any(shas):
                raise ValueError(
                    f"DataFile {self.name!r}: {filename!r} has a known sha256 and also an "
                    "unverified entry (sha256=None); a name with a known checksum must match "
                    "it, so drop the unverified entry (or give that copy another name)")

    @property
    def filenames(self) -> tuple[str, ...]:
        """The distinct file names of the accepted copies, in order."""
        return tuple(dict.fromkeys(copy.filename for copy in self.accepted))

    @property
    def downloadable(self) -> bool:
        """Whether :func:`sslviz.datasets.fetch` can download this file."""
        return self.url is not None


@dataclass(frozen=True)
class Dataset:
    """A named corpus made of one or more files.

    Parameters
    ----------
    name : str
        Registry key, used on the command line (``python -m sslviz.datasets fetch NAME``).
    description : str
        What the data is, where it comes from and what to cite.
    files : tuple of DataFile
        The files the dataset consists of.
    """

    name: str
    description: str
    files: tuple[DataFile, ...]

    def file(self, name: str | None = None) -> DataFile:
        """Return the data file called ``name`` (official name or any accepted copy's name).

        Parameters
        ----------
        name : str or None, default=None
            May be omitted when the dataset has exactly one file.

        Raises
        ------
        ValueError
            If ``name`` is ambiguous or unknown; the message lists the valid names.
        """
        if name is None:
            if len(self.files) == 1:
                return self.files[0]
            raise ValueError(
                f"dataset {self.name!r} has {len(self.files)} files; pass file= one of "
                f"{[f.name for f in self.files]}"
            )
        for data_file in self.files:
            if name == data_file.name or name in data_file.filenames:
                return data_file
        raise ValueError(
            f"dataset {self.name!r} has no file {name!r}; valid files: "
            f"{[f.name for f in self.files]}"
        )


def _unverified_official(name: str, where: str) -> AcceptedCopy:
    return AcceptedCopy(name, None, f"official file from {where}; no checksum is published")


def _twenty_news() -> Dataset:
    official = "http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz"
    return Dataset(
        name="20newsgroups",
        description=(
            "20 Newsgroups, 'bydate' version (Jason Rennie): 18,846 Usenet posts from 20 "
            "newsgroups, split by date into 11,314 training and 7,532 test posts; duplicates and "
            "most headers except From/Subject/Organization/Lines removed. Collected by Ken Lang, "
            "'NewsWeeder: learning to filter netnews', ICML 1995. Home page: "
            "http://qwone.com/~jason/20Newsgroups/."
        ),
        files=(
            DataFile(
                name="20news-bydate.tar.gz",
                url="https://ndownloader.figshare.com/files/5975967",
                accepted=(
                    AcceptedCopy(
                        "20news-bydate.tar.gz",
                        "8f1b2514ca22a5ade8fbb9cfa5727df95fa587f4c87b786e15c759fa66d95610",
                        f"official archive ({official}) as mirrored by scikit-learn on figshare; "
                        "sha256 published by scikit-learn (sklearn.datasets.fetch_20newsgroups)",
                    ),
                    AcceptedCopy(
                        "20news-bydate-repacked.tar.gz",
                        "662e7576aab23a795ecf112e43a19ee30fc294d0d539d3391b06bacbe374735f",
                        "course copy re-packed from the extracted files: members identical to "
                        "three independent copies, archive bytes differ from the official; "
                        + _MANIFEST,
                    ),
                ),
                source=official,
            ),
        ),
    )


def _webkb() -> Dataset:
    page = "http://www.cs.cmu.edu/afs/cs.cmu.edu/project/theo-20/www/data/"
    return Dataset(
        name="webkb",
        description=(
            "WebKB '4 Universities' raw pages (CMU World Wide Knowledge Base project, 1997): 8,282 "
            "web pages with their HTTP headers, in 7 classes and 5 university folders (cornell, "
            "texas, washington, wisconsin, misc). The 4 classes course/faculty/project/student "
            "give the 4,199 pages used by Nigam et al. (2000). Cite M. Craven et al., 'Learning "
            "to extract symbolic knowledge from the World Wide Web', AAAI 1998. Page: " + page
        ),
        files=(
            DataFile(
                name="webkb-data.gtar.gz",
                url=page + "webkb-data.gtar.gz",
                accepted=(
                    AcceptedCopy(
                        "webkb-data-repacked.tar.gz",
                        "1a8a2bf4f7f3d954089a421240638221d2923d398e3d5586e3f5d85a3fa47610",
                        f"course copy re-packed from the extracted pages; {_MANIFEST}",
                    ),
                    _unverified_official("webkb-data.gtar.gz", "CMU"),
                ),
                source=page,
            ),
        ),
    )


def _reuters() -> Dataset:
    page = "http://kdd.ics.uci.edu/databases/reuters21578/"
    return Dataset(
        name="reuters21578",
        description=(
            "Reuters-21578, Distribution 1.0 (David D. Lewis): 21,578 Reuters newswire stories "
            "from 1987 in SGML (22 reut2-0NN.sgm files). The ModApte split (LEWISSPLIT TRAIN/TEST "
            "with TOPICS='YES') has 9,603 training and 3,299 test stories; its single-label "
            "stories in the 8 largest classes form R8 (5,485 / 2,189). Page: "
            + page
            + "reuters21578.html (UCI KDD archive)."
        ),
        files=(
            DataFile(
                name="reuters21578.tar.gz",
                url=page + "reuters21578.tar.gz",
                accepted=(
                    AcceptedCopy(
                        "reuters21578-repacked.tar.gz",
                        "dd1363b4d0b1a960f062e2a2887842674c05960d052003b5536265cb0b9b30f6",
                        f"course copy re-packed from the 31 original files; {_MANIFEST}",
                    ),
                    _unverified_official("reuters21578.tar.gz", "the UCI KDD archive"),
                ),
                source=page + "reuters21578.html",
            ),
        ),
    )


def _smart() -> Dataset:
    url = "http://www.jmlr.org/papers/volume5/lewis04a/a11-smart-stop-list/english.stop"
    return Dataset(
        name="smart_stoplist",
        description=(
            "SMART stop list (Gerard Salton, SMART information retrieval system): 571 English "
            "stop words, as distributed with RCV1 (Lewis et al., JMLR 5, 2004, online appendix "
            "11). Original location ftp://ftp.cs.cornell.edu/pub/smart/english.stop."
        ),
        files=(
            DataFile(
                name="english.stop",
                url=url,
                accepted=(
                    AcceptedCopy(
                        "SmartStoplist.txt",
                        "3d873815f0cd12bde3c123fb63760daee2a88689fb9d2f869ede806bd6505923",
                        "course copy (aneesha/RAKE): one '#' comment line, then the 571 words, "
                        f"byte-identical to two independent english.stop copies; {_MANIFEST}",
                    ),
                    _unverified_official("english.stop", "the JMLR RCV1 appendix"),
                ),
                source=url,
            ),
        ),
    )


def _senseval() -> Dataset:
    url = "https://raw.githubusercontent.com/nltk/nltk_data/gh-pages/packages/corpora/senseval.zip"
    return Dataset(
        name="senseval",
        description=(
            "NLTK's 'senseval' corpus: POS- and sense-tagged instances of the ambiguous words "
            "hard, interest, line and serve (Leacock, Towell & Voorhees 1993; Bruce & Wiebe "
            "1994). NLTK labels it 'SENSEVAL 2', but it is not the Senseval-2 task data."
        ),
        files=(
            DataFile(
                name="senseval.zip",
                url=url,
                accepted=(
                    AcceptedCopy(
                        "senseval.zip",
                        "fbcb658b562969e47a19a45e04c452d874755d157db936d815ca391ca88bfdea",
                        "NLTK's distribution; its md5 and size equal those in nltk_data's "
                        "index.xml (sha256 computed from that verified file)",
                    ),
                ),
                source="https://www.nltk.org/nltk_data/",
            ),
        ),
    )


def _cachopo(name: str, shas: dict[str, str], description: str) -> Dataset:
    page = "https://ana.cachopo.org/datasets-for-single-label-text-categorization"
    legacy = "http://web.ist.utl.pt/~acardoso/datasets/"
    files = tuple(
        DataFile(
            name=filename,
            url=legacy + filename,
            accepted=(
                AcceptedCopy(
                    filename, sha,
                    "course copy, verbatim from a public repository; no official checksum is "
                    "published, so this sha256 is the reference for the name (Cardoso-Cachopo's "
                    f"own file must equal it to be accepted); {_MANIFEST}",
                ),
            ),
            source=f"{page} (older direct links under {legacy})",
        )
        for filename, sha in shas.items()
    )
    return Dataset(name=name, description=description, files=files)


def _r8() -> Dataset:
    return _cachopo(
        "r8",
        {
            "r8-train-all-terms.txt": (
                "f2cebcc0203f9092db55fc11b98377a5c30407121b1d633583580e36d0668ed9"
            ),
            "r8-test-all-terms.txt": (
                "2cda485b855244b8995a67b81edc691470059225776627d3c45545206f61a1b2"
            ),
        },
        "R8 (Ana Cardoso-Cachopo, 'Improving methods for single-label text categorization', "
        "PhD thesis, 2007): the single-label Reuters-21578 ModApte stories of the 8 largest "
        "classes, lower-cased, all terms; one document per line, 'label<TAB>text'. 5,485 "
        "training / 2,189 test documents.",
    )


def _webkb_stemmed() -> Dataset:
    return _cachopo(
        "webkb_stemmed",
        {
            "webkb-train-stemmed.txt": (
                "5cd71f89603cb48261c2f8fbf59a611383ef9b9f7b1007f18fcdbbeba62f7334"
            ),
            "webkb-test-stemmed.txt": (
                "2ecc8135835fa2151080488524eaeda757e254160a93d21eac951b13357a0df9"
            ),
        },
        "WebKB, 4 classes, stemmed (Ana Cardoso-Cachopo, 2007): one page per line, "
        "'label<TAB>text'; 2,803 training / 1,396 test pages.",
    )


def _golub() -> Dataset:
    kaggle = "https://www.kaggle.com/datasets/crawford/gene-expression"
    shas = {
        "data_set_ALL_AML_train.csv": (
            "697e46bc396878dcd735a28cf56f04dd7be82d7e35a05c96a104a314c15b6f0b"
        ),
        "data_set_ALL_AML_independent.csv": (
            "d89649c714ae356ff3f9ea79aef024e3932096d71b72600592c0baaef830de6c"
        ),
        "actual.csv": (
            "af291eced4116e257af0b73043e83b55d9b42f0d815440a4c5bc72424d2f44e1"
        ),
    }
    files = tuple(
        DataFile(
            name=filename,
            url=None,
            accepted=(
                AcceptedCopy(
                    f"golub_leukemia/{filename}",
                    sha,
                    f"consensus copy of the Kaggle CSV (unverified); {_MANIFEST}",
                ),
            ),
            source=(
                f"Kaggle 'Gene expression dataset (Golub et al.)', {kaggle} (needs a Kaggle "
                "login); save it as golub_leukemia/" + filename + " in the data folder"
            ),
        )
        for filename, sha in shas.items()
    )
    return Dataset(
        name="golub",
        description=(
            "Golub et al. (1999), 'Molecular classification of cancer', Science 286:531: "
            "Affymetrix expression of 7,129 probes for 72 leukemia patients (ALL/AML), as the "
            "widely used Kaggle CSV conversion: 38 training and 34 independent samples plus labels."
        ),
        files=files,
    )


def _splice() -> Dataset:
    url = (
        "https://archive.ics.uci.edu/ml/machine-learning-databases/molecular-biology/"
        "splice-junction-gene-sequences/splice.data"
    )
    return Dataset(
        name="splice",
        description=(
            "UCI 'Molecular Biology (Splice-junction Gene Sequences)' (Towell, Noordewier & "
            "Shavlik): 3,190 DNA sequences of 60 nucleotides, classes EI / IE / N."
        ),
        files=(
            DataFile(
                name="splice.data",
                url=url,
                accepted=(
                    AcceptedCopy(
                        "splice.data",
                        "ebbae10c85d3c285e2a2489a37e42bc2ee8d91d15005e391a9962fa3389a114f",
                        "course copy: a repository's splice.csv minus its added header line; "
                        "no official checksum is published, so this sha256 is the reference "
                        "for the name (UCI's file must equal it to be accepted); " + _MANIFEST,
                    ),
                ),
                source="https://archive.ics.uci.edu/dataset/69/molecular+biology+splice+junction+gene+sequences",
            ),
        ),
    )


REGISTRY: dict[str, Dataset] = {
    dataset.name: dataset
    for dataset in (
        _twenty_news(),
        _webkb(),
        _reuters(),
        _smart(),
        _senseval(),
        _r8(),
        _webkb_stemmed(),
        _golub(),
        _splice(),
    )
}


def get_dataset(name: str) -> Dataset:
    """Return the registered dataset ``name``.

    Raises
    ------
    ValueError
        If no dataset has that name; the message lists the registered names.
    """
    try:
        return REGISTRY[name]
    except KeyError:
        valid = sorted(REGISTRY)
        raise ValueError(f"unknown dataset {name!r}; registered datasets: {valid}") from None
