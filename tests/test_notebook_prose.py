"""Every lecture says only what it prints, tells no history, fits one slot and keeps its claims.

The rules are in ``tests/prose_checks.py`` (and CONTRIBUTING.md); these tests read the committed
notebooks, so a number typed into the prose without a cell that prints it fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prose_checks import (
    failed_claims,
    history_sentences,
    is_printed,
    markdown_numbers,
    pacing_problems,
    unprinted_numbers,
)

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9]*.ipynb"))


def _load(path):
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_number_in_the_prose_is_printed_by_the_notebook(path):
    missing = unprinted_numbers(_load(path))
    assert not missing, "numbers in the prose that no cell prints (print them, or mark a " \
        'paper\'s number with <span class="paper">): ' + ", ".join(
            f"cell {i}: {n}" for i, n in missing)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_lecture_tells_the_history_of_its_earlier_versions(path):
    assert not history_sentences(_load(path))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_each_lecture_has_a_core_path_of_at_most_an_hour(path):
    assert not pacing_problems(_load(path))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_committed_claim_says_it_does_not_hold(path):
    assert not failed_claims(_load(path))


def test_prose_numbers_skip_references_names_math_code_and_paper_quotes():
    text = ("In Table 2 (Nigam et al. 2000, section 5.2) on 20 Newsgroups and Reuters-21578, "
            "EM reaches 87.7 % with 2,500 unlabeled posts in 2-D; $\\alpha = 0.01$, `k=25`, "
            'the paper reports <span class="paper">12.9 %</span> after 3 steps, lecture 04, '
            "Tables 1–3, eq. 4–7.")
    assert markdown_numbers(text) == ["87.7", "2,500"]


def test_the_pacing_tables_minutes_are_not_results():
    text = ("Intro 87.7.\n\n| section | minutes | path |\n|---|---|---|\n| 1. Why | 15 | core |\n"
            "| 2. More | 25 | going further |\n\nAfter the table: 42 posts.")
    assert markdown_numbers(text) == ["87.7", "42"]


def test_a_number_is_printed_only_as_a_whole_number():
    assert is_printed("87.7", "accuracy 87.7 %")
    assert not is_printed("87.7", "accuracy 187.75 %")
    assert is_printed("2,500", "n_unlabeled = 2500")
    assert is_printed("2500", "2,500 posts")
    assert not is_printed("12", "1.12")
