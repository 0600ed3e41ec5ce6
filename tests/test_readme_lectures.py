"""The README's lecture paragraphs quote only numbers their lectures show.

Each paragraph that opens with ``**NN — `` (NN = 01 … 12) summarises lecture NN. Every number in
it that the lectures' own rule counts (``prose_checks.markdown_numbers``: a number with a decimal
point, or an integer above 10; exempt are years 1950–2030, references such as "Table 1",
"eq. 9–11", "lecture 03", names such as "20 Newsgroups" or "R8", and anything in code spans or
math), and every smaller integer written as a percentage ("5 %"), must occur as a whole number in
lecture NN's committed notebook: its markdown text (paper quotes included) or its stored text
outputs. A number's sign (+, -, −) is not part of the comparison, thousands separators are ignored
("2,500" = "2500"), "98" is found in "98.0", and a small percentage must be shown with its "%".

Generated blocks (``<!-- … written by … -->`` up to ``<!-- end of … -->``, such as the hybrid
paper-scale table) have their own generator and test, and are left out. No notebook is executed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from prose_checks import _CODE, _MATH, is_printed, markdown_numbers, output_text

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
_GENERATED = re.compile(r"^<!--[^\n]*written by.*?^<!-- end of [^\n]*-->\n?",
                        re.DOTALL | re.MULTILINE)
_LECTURE = re.compile(r"^\*\*(\d\d) — ", re.MULTILINE)
_SMALL_PERCENT = re.compile(r"(?<![\w.,])(\d|10)\s?%")


def lecture_paragraphs(text):
    """``{"04": paragraph}``: each ``**NN — `` paragraph up to its first blank line, one line."""
    text = _GENERATED.sub("", text)
    found = {}
    for match in _LECTURE.finditer(text):
        end = text.find("\n\n", match.start())
        found[match.group(1)] = " ".join(text[match.start():end if end >= 0 else None].split())
    return found


def lecture_text(number):
    """Everything lecture ``number`` shows as text: its markdown and its stored text outputs."""
    (path,) = (ROOT / "notebooks").glob(f"{number}_*.ipynb")
    nb = json.loads(path.read_text(encoding="utf-8"))
    markdown = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    return "\n".join(markdown + [output_text(nb)])


def numbers_not_in_lecture(paragraph, shown):
    """The numbers of ``paragraph`` that ``shown`` (a lecture's text) does not hold."""
    missing = [n for n in markdown_numbers(paragraph) if not is_printed(n, shown)]
    prose = _CODE.sub(" ", _MATH.sub(" ", paragraph))
    for match in _SMALL_PERCENT.finditer(prose):
        if not re.search(rf"(?<![\d.]){match.group(1)}\s?%", shown):
            missing.append(f"{match.group(1)} %")
    return missing


PARAGRAPHS = lecture_paragraphs(README.read_text(encoding="utf-8"))


def test_every_lecture_has_one_paragraph():
    lectures = sorted(p.name[:2] for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert sorted(PARAGRAPHS) == lectures


@pytest.mark.parametrize("number", sorted(PARAGRAPHS))
def test_every_number_of_the_paragraph_is_in_its_lecture(number):
    missing = numbers_not_in_lecture(PARAGRAPHS[number], lecture_text(number))
    assert not missing, (f"README's paragraph on lecture {number} quotes {missing}, which the "
                         f"lecture's markdown and stored outputs do not show: quote what it prints")


@pytest.mark.parametrize("paragraph, shown, missing", [
    # signs and the minus sign do not count; a number the lecture does not print does
    ("hybrid − EM-λ at 40 labels: +8.3 points", "40 labels: hybrid - EM-λ -8.3", []),
    ("hybrid − EM-λ at 40 labels: +8.4 points", "40 labels: hybrid - EM-λ -8.3", ["8.4"]),
    ("accuracy 73.8 % on 2,500 pages", "acc 73.8% pages 2500", []),
    ("accuracy 73.8 % on 2,500 pages", "acc 73.85% pages 25000", ["73.8", "2,500"]),
    ("98 % with two labels", "0.98 98.0", []),
    ("Tables 1–3, eq. 9–11, lecture 03, 20 Newsgroups, R8, Nigam et al. 2000, `C = 1e4`, 7 splits",
     "", []),
    ("at 16 labels, 42 splits", "16 labels", ["42"]),
    ("from 5 % labeled on", "from 5% labeled on", []),
    ("from 7 % labeled on", "7 labels, 17%", ["7 %"]),
])
def test_the_rule_finds_a_number_the_lecture_does_not_show(paragraph, shown, missing):
    assert numbers_not_in_lecture(paragraph, shown) == missing


@pytest.mark.parametrize("number", sorted(PARAGRAPHS))
def test_a_doctored_paragraph_fails(number):
    """A stale number in a paragraph that passes is caught, whatever the lecture."""
    shown = lecture_text(number)
    paragraph = PARAGRAPHS[number]
    doctored = paragraph.replace(". ", ". The gain is 987.65 points. ", 1)
    assert numbers_not_in_lecture(paragraph, shown) == []
    assert numbers_not_in_lecture(doctored, shown) == ["987.65"]


def test_generated_blocks_are_left_out():
    text = ("**09 — x** 1.5 points.\n<!-- t: written by `cmd` -->\n| 99.9 |\n"
            "<!-- end of the t -->\nafter 2.5.\n\n**10 — y** 3.5.\n")
    assert lecture_paragraphs(text) == {"09": "**09 — x** 1.5 points. after 2.5.",
                                        "10": "**10 — y** 3.5."}


def test_the_readmes_hybrid_table_is_a_generated_block():
    blocks = _GENERATED.findall(README.read_text(encoding="utf-8"))
    assert any(b.startswith("<!-- hybrid paper-scale table") for b in blocks)
