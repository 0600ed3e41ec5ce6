"""The sources the lectures cite: authors, year, title and venue.

The site (:mod:`sslviz.site_reference`) builds ``bibliography.html`` from :data:`SOURCES` and
links the first citation of each source on every lecture page to its entry. Authors, titles and
venues are written as a course paper's text gives them (the paper itself, or the reference list of
one of the papers the lectures reproduce: Fujino, Ueda & Saito; Takamura & Okumura; Szummer &
Jaakkola; Amini & Gallinari; Wiegand's lecture); where none of those texts names a work, the
authors (as surnames) and the title are the lecture's, and ``venue`` is empty. ``pattern`` finds
a citation in a lecture's prose.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    """One cited work: ``key`` is its anchor on the bibliography page."""

    key: str
    authors: str
    year: int | None
    title: str
    venue: str
    pattern: str


_AUTHORS = r"(?:,? (?:&|and) [A-Z][\w-]+|, [A-Z][\w-]+| et al\.)*"


def _cite(surname, year=None):
    """A citation of a work whose first author is ``surname``: the name, co-authors, the year
    (required if given; when the lectures cite the work without one, they name the authors)."""
    if year is None:
        return rf"\b{surname}{_AUTHORS}"
    return rf"\b{surname}{_AUTHORS}(?: \((?:eds\., )?{year}\)|,? {year}\b)"


SOURCES = (
    Source("abney2004", "S. Abney", 2004, "Understanding the Yarowsky algorithm",
           "Computational Linguistics, vol. 30", _cite("Abney", 2004)),
    Source("amini2002", "M. R. Amini and P. Gallinari", 2002, "Semi-supervised logistic "
           "regression", "Proceedings of 15th European Conference on Artificial Intelligence, "
           "390–394", _cite("Amini") + r"(?: \(2002\))?"),
    Source("blum1998", "A. Blum and T. Mitchell", 1998, "Combining labeled and unlabeled data "
           "with co-training", "Proc. 11th Annual Conference on Computational Learning Theory, "
           "pp. 92–100", _cite("Blum", 1998)),
    Source("celeux1992", "G. Celeux and G. Govaert", 1992, "A classification EM algorithm for "
           "clustering and two stochastic versions", "Computational Statistics & Data Analysis, "
           "14, 315–332", _cite("Celeux", 1992)),
    Source("chapelle2006", "O. Chapelle, B. Schölkopf and A. Zien (editors)", 2006,
           "Semi-Supervised Learning", "MIT Press", _cite("Chapelle", 2006)),
    Source("dempster1977", "A. P. Dempster, N. M. Laird and D. B. Rubin", 1977,
           "Maximum likelihood from incomplete data via the EM algorithm",
           "Journal of the Royal Statistical Society, Series B, 39(1):1–38",
           _cite("Dempster", 1977)),
    Source("dudoit2002", "Dudoit, Fridlyand and Speed", 2002, "", "",
           _cite("Dudoit", 2002)),
    Source("fujino2005", "A. Fujino, N. Ueda and K. Saito", 2005, "A hybrid generative/"
           "discriminative approach to semi-supervised classifier design",
           "American Association for Artificial Intelligence (AAAI) 2005",
           _cite("Fujino") + r"(?: \(2005\))?"),
    Source("golub", "Golub et al.", None, "", "", r"\bGolub et al\."),
    Source("grandvalet2005", "Y. Grandvalet and Y. Bengio", 2005, "Semi-supervised learning by "
           "entropy minimization", "Advances in Neural Information Processing Systems 17 "
           "(pp. 529–536), MIT Press", _cite("Grandvalet", 2005)),
    Source("hofmann2000", "T. Hofmann", 2000, "Learning the similarity of documents: an "
           "information geometric approach to document retrieval and categorization",
           "Advances in Neural Information Processing Systems 12, pages 914–920",
           _cite("Hofmann", 2000)),
    Source("jaakkola1998", "T. Jaakkola and D. Haussler", 1998, "Exploiting generative models "
           "in discriminative classifiers", "Advances in Neural Information Processing Systems "
           "11, pages 487–493", _cite("Jaakkola", 1998)),
    Source("joachims1999", "T. Joachims", 1999, "Transductive inference for text classification "
           "using support vector machines", "Proceedings of 16th International Conference on "
           "Machine Learning (ICML '99), pages 200–209", r"(?<=\()Joachims(?=;)"),
    Source("joachims2003", "T. Joachims", 2003, "Transductive learning via spectral graph "
           "partitioning", "Proceedings of ICML 2003", _cite("Joachims", 2003)),
    Source("kupiec1995", "J. Kupiec, J. Pedersen and F. Chen", 1995, "A trainable document "
           "summarizer", "Proceedings of the 18th ACM SIGIR, 68–73", _cite("Kupiec", 1995)),
    Source("leacock1993", "Leacock, Towell and Voorhees", 1993, "", "",
           _cite("Leacock", 1993)),
    Source("manning2008", "Manning, Raghavan and Schütze", 2008,
           "Introduction to Information Retrieval", "", _cite("Manning", 2008)),
    Source("mackay1995", "MacKay and Peto", 1995, "", "", _cite("MacKay", 1995)),
    Source("ng2002", "A. Y. Ng and M. I. Jordan", 2002, "On discriminative vs. generative "
           "classifiers: a comparison of logistic regression and naive Bayes",
           "Advances in Neural Information Processing Systems 14 (pp. 841–848), MIT Press",
           _cite("Ng", 2002)),
    Source("nigam2000", "K. Nigam, A. McCallum, S. Thrun and T. Mitchell", 2000,
           "Text classification from labeled and unlabeled documents using EM",
           "Machine Learning, 39(2/3):103–134", _cite("Nigam", 2000)),
    Source("niu2005", "Z.-Y. Niu, D. Ji and C. Tan", 2005, "Word sense disambiguation using "
           "label propagation based semi-supervised learning", "Proceedings of ACL 2005",
           _cite("Niu", 2005)),
    Source("szummer2001", "M. Szummer and T. Jaakkola", 2001, "Kernel expansions with "
           "unlabeled examples", "Advances in Neural Information Processing Systems 13 "
           "(pp. 626–632), MIT Press", _cite("Szummer")),
    Source("takamura", "H. Takamura and M. Okumura", None, "A comparative study on the use of "
           "labeled and unlabeled data for large margin classifiers", "", _cite("Takamura")),
    Source("ueda1998", "N. Ueda and R. Nakano", 1998, "Deterministic annealing EM algorithm",
           "Neural Networks, 11(2):271–282", _cite("Ueda", 1998)),
    Source("wiegand2009", "M. Wiegand", 2009, "An Introduction to Semi-Supervised Learning",
           "Lecture slides, Foundations of Language Science and Technology, November 27th, 2009",
           r"\bWiegand(?:'s)?"),
    Source("yang1997", "Yang and Pedersen", 1997, "A comparative study on feature "
           "selection in text categorization", "", _cite("Yang", 1997)),
    Source("yarowsky1995", "D. Yarowsky", 1995, "Unsupervised word sense disambiguation rivaling "
           "supervised methods", "", _cite("Yarowsky", 1995)),
    Source("zhou2004", "Zhou, Bousquet, Lal, Weston and Schölkopf", 2004,
           "Learning with local and global consistency", "", _cite("Zhou", 2004)),
    Source("zhu2002", "X. Zhu and Z. Ghahramani", 2002, "", "", _cite("Zhu", 2002)),
    Source("zhu2003", "X. Zhu, Z. Ghahramani and J. Lafferty", 2003, "Semi-supervised learning "
           "using Gaussian fields and harmonic functions", "Proceedings of the 20th International "
           "Conference on Machine learning (ICML-2003), 912–919", _cite("Zhu", 2003)),
)
"""The cited works, by first author."""
