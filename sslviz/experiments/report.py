"""The replication report: every source's headline claims beside what the stored results show.

``python -m sslviz.experiments report [--out FILE] [--check] [--partial]`` writes
``docs/replication.md`` (also a page of the site, :mod:`sslviz.site`). For each of the five
sources in the shared papers folder -- Fujino, Ueda & Saito (lecture 09), Takamura & Okumura
(06), Amini & Gallinari (07), Szummer & Jaakkola (08) and Wiegand's introductory lecture (01-05,
10, 11) -- one row per headline claim or table cell: the paper's number and where it stands,
ours (mean, spread, number of sets), the verdict by the rules of :data:`RULES`, the setting it
depends on and the lecture section that shows it. A claim a lecture adds beyond its paper is
marked *ours*.

Nothing is computed here. The paper numbers are data (the experiment modules' tables, and the
few in :data:`.report_sources.PAPER_NUMBERS`); ours come from what the project stores: the
paper-scale summaries (``sslviz/stored_results/*_paper_scale.json``) and the cached entries each
lecture reads (``sslviz/stored_results/cache``). Those are read through the lectures' own
experiment functions with :func:`stored_only`, which lets their jobs be read from the project's
store and never run: a missing entry stops the report with the lecture and the command that
stores it (:class:`NotStored`); ``--partial`` writes the page with that source marked as missing
instead. Only the corpora are loaded (their vectorized forms live in the user's cache).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import cli
from .._io import atomic_write
from ..paths import STORED_RESULTS
from . import runner

__all__ = ["FAIR_SELECTION", "NOT", "NOT_TRIED", "PARTLY", "REPORT_FILE", "REPRODUCED", "RULES",
           "NotStored", "Ours", "Row", "Section", "main", "order_text", "order_verdict", "render",
           "report_sections", "stored_only", "summary_table", "value_text", "value_verdict"]

REPORT_FILE = Path(__file__).resolve().parents[2] / "docs" / "replication.md"
COMMAND = "python -m sslviz.experiments report"
STORE = STORED_RESULTS / "cache"
REPRODUCED, PARTLY, NOT, NOT_TRIED = "reproduced", "partly", "not reproduced", "not tried"
MIN_SETS = 3
OURS_WORDS = {REPRODUCED: "holds", NOT: "does not hold"}  # a claim of ours reproduces no paper
ORDER_SHARE = (0.8, 0.5)  # an ordering holds on at least this share of sets: reproduced, partly
FAIR_SELECTION = "labeled-rows"  # the name lecture 09's results file gives the fair selection

RULES = f"""\
The verdicts follow five rules, fixed before any outcome was read:

1. **A number of the paper** (a table cell): *{REPRODUCED}* when our mean is within the larger
   of the two standard deviations (the paper's, where it prints one, and ours over our sets) of
   the paper's value; *{PARTLY}* within twice that; *{NOT}* otherwise.
2. **An ordering the paper reports** (A above B): *{REPRODUCED}* when A is above B on at least
   {ORDER_SHARE[0]:.0%} of our sets; *{PARTLY}* on at least {ORDER_SHARE[1]:.0%}; *{NOT}* below.
3. With fewer than {MIN_SETS} sets a verdict is at most *{PARTLY}*.
4. *{NOT_TRIED}*: no stored run of that setting; the reason says which and how to make it.
5. Where a results file holds a cell under several selections of the settings, the verdict is
   the fair selection's (every setting chosen on the labeled rows only, *{FAIR_SELECTION}*);
   the others are printed beside it under their names and decide nothing. A cell the fair
   selection has not run is *{NOT_TRIED}*, whatever another selection holds.

A claim the lectures add beyond a paper (*ours*) is judged by the same rules and said to
*hold*, hold *partly* or *not hold*.

"Ours" is the mean ± standard deviation over our sets (n = their number); for an ordering, the
mean difference A − B and the share of sets on which A is above B. Accuracies, error rates and
average precision (AP) in %; leukemia errors as a count among 34; perplexity in its own units."""


class NotStored(cli.UsageError):
    """A result the report reads is not in the project's store (the message says how to make
    it)."""


@dataclass(frozen=True)
class Ours:
    """Our values over the sets (one per set; for an ordering, the differences A − B)."""

    values: tuple

    @property
    def n(self):
        return len(self.values)

    @property
    def mean(self):
        return float(np.mean(self.values))

    @property
    def sd(self):
        return float(np.std(self.values))

    @property
    def share_above(self):
        """The share of sets with a positive difference (A above B)."""
        return float(np.mean(np.asarray(self.values) > 0))


def _ours(values):
    values = np.asarray(values, dtype=float).ravel()
    return Ours(tuple(float(v) for v in values[np.isfinite(values)]))


def value_verdict(paper, paper_sd, ours):
    """The verdict (rule 1, 3) on the paper's ``paper`` value (its sd ``paper_sd`` or ``None``)
    against ``ours`` (:class:`Ours`); returns ``(verdict, reason)``."""
    if ours is None or ours.n == 0:
        return NOT_TRIED, "no stored run"
    spread = max(paper_sd or 0.0, ours.sd)
    gap = abs(ours.mean - paper)
    if gap <= spread:
        verdict, reason = REPRODUCED, f"{gap:.1f} points from the paper, within {spread:.1f}"
    elif gap <= 2 * spread:
        verdict, reason = PARTLY, f"{gap:.1f} points from the paper, within 2 × {spread:.1f}"
    else:
        verdict, reason = NOT, f"{gap:.1f} points from the paper, beyond 2 × {spread:.1f}"
    return _few_sets(verdict, reason, ours.n)


def order_verdict(ours):
    """The verdict (rules 2, 3) on an ordering A above B the paper reports, from ``ours`` (the
    differences A − B per set); returns ``(verdict, reason)``."""
    if ours is None or ours.n == 0:
        return NOT_TRIED, "no stored run"
    share = ours.share_above
    verdict = (REPRODUCED if share >= ORDER_SHARE[0] else PARTLY if share >= ORDER_SHARE[1]
               else NOT)
    return _few_sets(verdict, f"holds on {share:.0%} of {_sets(ours.n)}", ours.n)


def _few_sets(verdict, reason, n):
    if n < MIN_SETS and verdict == REPRODUCED:
        return PARTLY, f"{reason}; only {_sets(n)}"
    return verdict, reason


def _sets(n):
    return f"{n} set{'s' * (n != 1)}"


@dataclass(frozen=True)
class Row:
    """One claim: the paper's number (text, with its place in the paper) and ours."""

    claim: str
    paper: str
    where: str
    ours: str
    verdict: str
    reason: str
    setting: str
    section: str
    beside: str = ""  # the same cell under other selections (rule 5), each under its name


def value_row(claim, paper, paper_sd, values, *, where, setting, section, unit=""):
    """A :class:`Row` for a number of the paper (rule 1)."""
    ours = _ours(values) if values is not None else None
    verdict, reason = value_verdict(paper, paper_sd, ours)
    paper_text = f"{paper:.1f}{unit}" + ("" if paper_sd is None else f" ± {paper_sd:.1f}")
    return Row(claim, paper_text, where, value_text(ours, unit), verdict, reason, setting,
               section)


def order_row(claim, paper, differences, *, where, setting, section, reason=None):
    """A :class:`Row` for an ordering (rule 2): ``differences`` A − B per set, ``None`` when
    not run (then ``reason`` says why)."""
    ours = _ours(differences) if differences is not None else None
    verdict, why = order_verdict(ours)
    if ours is None or ours.n == 0:
        return Row(claim, paper, where, "—", NOT_TRIED, reason or why, setting, section)
    return Row(claim, paper, where, order_text(ours), verdict, why, setting, section)


def order_text(ours):
    """Our differences A − B: mean ± sd, sets and the share above (``—`` without a set)."""
    if ours is None or ours.n == 0:
        return "—"
    mean = round(ours.mean, 1) + 0.0  # no "-0.0"
    return f"{mean:+.1f} ± {ours.sd:.1f} (n = {ours.n}; above on {ours.share_above:.0%})"


def value_text(ours, unit=""):
    if ours is None or ours.n == 0:
        return "—"
    return f"{ours.mean:.1f}{unit} ± {ours.sd:.1f} (n = {ours.n})"


@dataclass(frozen=True)
class Section:
    """One source: its citation, a note on what is and is not compared, and its rows."""

    title: str
    citation: str
    note: str
    rows: tuple
    ours_rows: tuple = ()


# -- reading the store, never computing

def stored_only(lecture, command):
    """Within the block, every experiment function reads its jobs' results from the project's
    store (:data:`STORE`) and computes nothing (:func:`.runner.stored_only`): a job the store
    lacks raises :class:`NotStored` naming ``lecture`` and the ``command`` that stores it."""

    def missing(kind, n_missing, n_jobs):
        return NotStored(f"lecture {lecture}: {n_missing} of {n_jobs} results of kind {kind!r} "
                         "are not in sslviz/stored_results/cache (the report computes "
                         f"nothing): run `{command}`, then `{COMMAND}`")

    return runner.stored_only(STORE, missing)


def store_command(stem):
    """The command that stores lecture ``stem``'s long sweeps."""
    return f"python -m sslviz.experiments store notebooks/{stem}.ipynb"


def read_summary(name):
    """A paper-scale summary ``sslviz/stored_results/<name>`` as a dict, ``None`` if absent."""
    path = STORED_RESULTS / name
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def summary_selections(summary, default):
    """``[(selection name, {corpus: entry})]`` of a paper-scale summary: one per selection when
    it holds several (``"selections"``: a dict name -> ``{"corpora": ...}``, or a list of
    ``{"selection": name, "corpora": ...}``), else its ``corpora`` under the name it records
    (``"selection"``) or ``default``."""
    selections = summary.get("selections")
    if isinstance(selections, dict):
        return [(name, entry["corpora"]) for name, entry in selections.items()]
    if isinstance(selections, list):
        return [(entry.get("selection", default), entry["corpora"]) for entry in selections]
    return [(summary.get("selection", default), summary["corpora"])]


# -- rendering

def render(sections):
    """The report as Markdown."""
    lines = ["# What reproduced: the five sources against the stored results", "",
             f"Generated by `{COMMAND}` from the results stored with the project "
             "(`sslviz/stored_results/`) and the papers' tables; do not edit by hand. A test "
             "regenerates it and fails when it and the stored results disagree.", "", RULES, "",
             *summary_table(sections), ""]
    for section in sections:
        lines += [f"## {section.title}", "", section.citation, "", section.note, ""]
        for heading, rows, words in (("The paper's claims", section.rows, {}),
                                     ("Ours: what the lectures add beyond the paper",
                                      section.ours_rows, OURS_WORDS)):
            if not rows:
                continue
            lines += [f"### {heading}", "", *_table(rows, words), ""]
    return "\n".join(lines).rstrip() + "\n"


def _table(rows, words):
    """Markdown lines of one table of rows; a column for other selections when a row has one."""
    beside = any(row.beside for row in rows)
    head = ["claim", "paper", "where", "ours", *(["beside: other selections"] * beside),
            "verdict", "why", "setting", "lecture"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = (row.claim, row.paper, row.where, row.ours, *([row.beside] * beside),
                 f"**{words.get(row.verdict, row.verdict)}**", row.reason, row.setting,
                 row.section)
        lines.append("| " + " | ".join(_cell(v) for v in cells) + " |")
    return lines


def summary_table(sections):
    """Markdown lines: per source, how many of the paper's claims got each verdict (the claims
    a lecture adds are not counted)."""
    verdicts = (REPRODUCED, PARTLY, NOT, NOT_TRIED)
    lines = ["| source | " + " | ".join(verdicts) + " |", "|---|" + "---:|" * len(verdicts)]
    for section in sections:
        found = [row.verdict for row in section.rows]
        counts = " | ".join(str(found.count(v)) for v in verdicts)
        lines.append(f"| {_cell(section.title)} | {counts} |" if section.rows
                     else f"| {_cell(section.title)} | not reported: its stored results are "
                     "missing (below) |" + " |" * (len(verdicts) - 1))
    return lines


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def report_sections(*, partial=False):
    """Every source's :class:`Section`, in the order of the lectures (see
    :func:`.report_sources.sections` for ``partial``)."""
    from . import report_sources

    return report_sources.sections(partial=partial)


def report_text(*, partial=False):
    """The Markdown of the report (reads the store; computes nothing)."""
    return render(report_sections(partial=partial))


@cli.command
def main(argv=None):
    """``python -m sslviz.experiments report [--out FILE] [--check] [--partial]``."""
    parser = cli.Parser(prog=COMMAND, description="Write the replication report (docs/"
                        "replication.md) from the stored results and the papers' tables; "
                        "nothing is computed.")
    parser.add_argument("--out", default=str(REPORT_FILE), help="the Markdown file to write "
                        "(default: docs/replication.md)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when the "
                        "file differs from what the stored results give")
    parser.add_argument("--partial", action="store_true", help="a source whose stored results "
                        "are missing is marked so on the page, with the command that stores "
                        "them (by default the report stops and names them)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    if not args.check:
        out.parent.mkdir(parents=True, exist_ok=True)
        cli.check_output_file(out, option="--out")
    text = report_text(partial=args.partial)
    if args.check:
        same = out.is_file() and out.read_text(encoding="utf-8") == text
        print(f"{out}: " + ("matches the stored results" if same else
                            f"differs from the stored results: run `{COMMAND}`"))
        return 0 if same else 1
    with atomic_write(out, "w") as file:
        file.write(text)
    print(f"wrote {out}")
    return 0
