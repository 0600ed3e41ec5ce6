"""What a lecture's prose may say: numbers it prints, no history, a pacing table.

Used by ``tests/test_notebook_prose.py``; run it directly to list the problems of notebooks::

    python tests/prose_checks.py notebooks/04_em_naive_bayes.ipynb

Rules (CONTRIBUTING.md, "Numbers in the prose"):

* Every number in a markdown cell is printed by a code cell of the same notebook (its committed
  text outputs: stdout, ``text/plain``, ``text/html``, ``text/markdown``). Exempt: numbers inside
  ``<span class="paper">…</span>`` (quoted from a paper), inside LaTeX math or code spans, years,
  integers up to 10, references ("Table 1", "eq. 4", "section 5.2", "lecture 04", "Exercise 2"…)
  and numbers that are part of a name ("20 Newsgroups", "Reuters-21578", "2-D").
* No history of earlier versions of a lecture.
* A pacing table near the top: ``| section | minutes | path |`` whose ``core`` rows add up to at
  most 60 minutes; every other row's path is ``going further`` or ``exercises`` (homework under
  a ``## Exercises`` heading).
"""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

PATHS = ("core", "going further", "exercises")
CORE_MINUTES = 60
HISTORY = re.compile(r"earlier version|previous version|older version|earlier revision|"
                     r"this lecture used to|an earlier run of this|before this change",
                     re.IGNORECASE)
_PAPER_SPAN = re.compile(r'<span class="paper">.*?</span>', re.DOTALL)
_MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.DOTALL)
_CODE = re.compile(r"```.*?```|`[^`\n]+`", re.DOTALL)
_LINK_TARGET = re.compile(r"\]\([^)]*\)|https?://\S+")
_TAG = re.compile(r"<[^>]+>")
_NAMES = re.compile(r"20\s*Newsgroups|20\s*NG|20news\w*|Reuters-21578|R8|R52|\b\d-D\b|"
                    r"\bt-SNE\b|\bk-NN\b|\b[Ll][12]\b|\bWebKB-?\d+|\bReuters-?\d+|"
                    r"\b20news-?\d+|\bPython 3[\d.]*", re.IGNORECASE)
_REFERENCE_WORDS = (r"tables?|figures?|figs?\.|eqs?\.|equations?|sections?|secs?\.|§|lectures?|"
                    r"chapters?|exercises?|ex\.|parts?|steps?|cells?|notebooks?|appendix|"
                    r"pages?|pp?\.|algorithm|theorem|lemma|proposition|definition|footnote|"
                    r"rules?|proposals?|issue|version|ch\.")
_REFERENCE = re.compile(rf"\b(?:{_REFERENCE_WORDS})\s*\d+(?:\.\d+)*"
                        r"(?:\s*(?:[–\-,/]|and|or|to)\s*\d+(?:\.\d+)*)*", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.])[+\-−]?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w])")


_PACING_ROWS = re.compile(r"^\|\s*section\s*\|\s*minutes\s*\|\s*path\s*\|.*?(?=^[^|]|\Z)",
                          re.IGNORECASE | re.MULTILINE | re.DOTALL)


def markdown_numbers(source):
    """The numbers of one markdown cell that must be printed, as strings (e.g. ``"87.7"``).

    The pacing table (``| section | minutes | path |``) is planning, not a result: exempt.
    """
    text = _PACING_ROWS.sub(" ", source)
    text = _PAPER_SPAN.sub(" ", text)
    text = _CODE.sub(" ", _MATH.sub(" ", text))
    text = _TAG.sub(" ", _LINK_TARGET.sub(" ", text))
    text = _REFERENCE.sub(" ", _NAMES.sub(" ", text))
    text = re.sub(r"^\s*#+ *\d+(\.\d+)*\.?", " ", text, flags=re.MULTILINE)  # "## 3. Heading"
    text = re.sub(r"^\s*\d+\.\s", " ", text, flags=re.MULTILINE)  # numbered list items
    found = []
    for match in _NUMBER.finditer(text):
        integer, fraction = match.group(1), match.group(2) or ""
        plain = integer.replace(",", "")
        if not fraction and int(plain) <= 10:
            continue
        if not fraction and len(plain) == 4 and 1950 <= int(plain) <= 2030:
            continue
        found.append(integer + fraction)
    return found


def output_text(nb):
    """Everything the code cells printed (text forms only), one string."""
    parts = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                parts.append(_joined(output.get("text", "")))
                continue
            data = output.get("data", {})
            for mime in ("text/plain", "text/markdown", "text/html"):
                if mime in data:
                    text = _joined(data[mime])
                    parts.append(html.unescape(_TAG.sub(" ", text)) if mime == "text/html"
                                 else text)
    return "\n".join(parts)


def _joined(text):
    return "".join(text) if isinstance(text, list) else text


def is_printed(number, printed):
    """``number`` (as written in prose) appears as a whole number in ``printed``."""
    variants = {number, number.replace(",", "")}
    plain = number.replace(",", "")
    integer = plain.split(".")[0]
    if len(integer) > 3 and "." not in plain:
        variants.add(f"{int(integer):,}")
    return any(re.search(rf"(?<![\d.]){re.escape(v)}(?![\d])", printed) for v in variants)


def unprinted_numbers(nb):
    """``(cell index, number)`` for every prose number the notebook does not print."""
    printed = output_text(nb)
    missing = []
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        for number in markdown_numbers(_joined(cell["source"])):
            if not is_printed(number, printed):
                missing.append((index, number))
    return missing


def history_sentences(nb):
    """``(cell index, phrase)`` for every mention of an earlier version of the lecture."""
    return [(i, m.group(0)) for i, cell in enumerate(nb["cells"])
            for m in HISTORY.finditer(_joined(cell["source"]))
            if cell["cell_type"] == "markdown"]


def pacing_table(nb):
    """``[(section, minutes, path)]`` from the first markdown cell with a pacing table, or []."""
    for cell in nb["cells"][:4]:
        if cell["cell_type"] != "markdown":
            continue
        rows = [line for line in _joined(cell["source"]).splitlines() if line.startswith("|")]
        if not rows:
            continue
        header = [h.strip().lower() for h in rows[0].strip("|").split("|")]
        if header[:3] != ["section", "minutes", "path"]:
            continue
        table = []
        for row in rows[2:]:
            section, minutes, path = (c.strip() for c in row.strip("|").split("|")[:3])
            table.append((section, int(minutes), path.lower()))
        return table
    return []


def pacing_problems(nb):
    """What is wrong with the pacing table (empty when it is fine)."""
    table = pacing_table(nb)
    if not table:
        return ["no pacing table (| section | minutes | path |) in the first four cells"]
    problems = [f"path of {section!r} is {path!r}, not 'core', 'going further' or 'exercises'"
                for section, _, path in table if path not in PATHS]
    core = sum(minutes for _, minutes, path in table if path == "core")
    if core > CORE_MINUTES:
        problems.append(f"the core path takes {core} minutes (at most {CORE_MINUTES})")
    headings = " ".join(_joined(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    if any(path == "going further" for _, _, path in table) and "Going further" not in headings:
        problems.append("going-further rows but no heading that says 'Going further'")
    if any(path == "exercises" for _, _, path in table) and "## Exercises" not in headings:
        problems.append("an exercises row but no '## Exercises' heading")
    return problems


def failed_claims(nb):
    """Cell indices whose committed output says a claim DOES NOT HOLD."""
    def printed(cell):
        return "".join(_joined(o.get("text", "")) for o in cell.get("outputs", []))

    return [i for i, cell in enumerate(nb["cells"])
            if cell["cell_type"] == "code" and "DOES NOT HOLD" in printed(cell)]


def main(paths):
    bad = 0
    for path in paths:
        nb = json.loads(Path(path).read_text(encoding="utf-8"))
        problems = [f"cell {i}: {n} is not printed" for i, n in unprinted_numbers(nb)]
        problems += [f"cell {i}: history: {p!r}" for i, p in history_sentences(nb)]
        problems += pacing_problems(nb)
        problems += [f"cell {i}: a claim DOES NOT HOLD" for i in failed_claims(nb)]
        print(f"{path}: {len(problems)} problem(s)")
        for problem in problems:
            print(f"  {problem}")
        bad += bool(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
