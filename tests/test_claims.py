"""A lecture's claims: printed with their numbers, and fatal under the test command when false."""

from __future__ import annotations

import numpy as np
import pytest

from sslviz.claims import ClaimFailed, claim


def test_a_claim_that_holds_prints_its_numbers_and_verdict(capsys, monkeypatch):
    monkeypatch.setenv("SSLVIZ_STRICT_CLAIMS", "1")
    result = claim("EM beats NB on every line", bool(np.all(np.array([62.4, 56.1]) > [49.5, 49.1])),
                   NB=np.array([49.5, 49.1]), EM=np.array([62.4, 56.1]), seeds=3)
    assert result.holds
    assert capsys.readouterr().out == ("claim: EM beats NB on every line\n  NB = [49.5, 49.1]\n"
                                       "  EM = [62.4, 56.1]\n  seeds = 3\n  -> holds\n")


def test_a_false_claim_prints_does_not_hold_in_class_and_raises_under_the_tests(capsys,
                                                                               monkeypatch):
    monkeypatch.delenv("SSLVIZ_STRICT_CLAIMS", raising=False)
    assert not claim("NB wins", False, gap=-1.25).holds
    assert capsys.readouterr().out.endswith("gap = -1.2\n  -> DOES NOT HOLD\n")
    monkeypatch.setenv("SSLVIZ_STRICT_CLAIMS", "1")
    with pytest.raises(ClaimFailed, match="the lecture's claim does not hold: NB wins"):
        claim("NB wins", False)


@pytest.mark.parametrize("holds", [[True, False], "yes", 1, None])
def test_the_verdict_must_be_one_bool(holds):
    with pytest.raises(ValueError, match="holds must be one bool"):
        claim("x", holds)


def test_the_statement_must_be_text():
    with pytest.raises(ValueError, match="statement must be a non-empty str"):
        claim("  ", True)


def test_a_claim_at_the_end_of_a_cell_shows_nothing_more(capsys):
    from IPython.core.formatters import DisplayFormatter

    result = claim("two is more", True)
    data, _ = DisplayFormatter().format(result)
    assert data == {}  # a notebook shows the printed report only, no Claim(...) repr


@pytest.mark.parametrize("numbers", [{"gap": float("nan")}, {"EM": np.array([61.0, np.nan])},
                                     {"rows": [[1.0, 2.0], [np.nan]]},
                                     {"table": {"NB": np.nan}}])
def test_a_claim_resting_on_a_nan_does_not_hold_and_says_why(numbers, capsys, monkeypatch):
    monkeypatch.delenv("SSLVIZ_STRICT_CLAIMS", raising=False)
    name = next(iter(numbers))
    result = claim("EM beats NB", True, **numbers)
    assert not result.holds
    why = f"NaN in {name}: a number the claim rests on is missing"
    assert capsys.readouterr().out.endswith(f"  -> DOES NOT HOLD ({why})\n")
    monkeypatch.setenv("SSLVIZ_STRICT_CLAIMS", "1")
    with pytest.raises(ClaimFailed, match=f"does not hold: EM beats NB \\({why}\\)"):
        claim("EM beats NB", True, **numbers)


def test_numbers_without_nan_keep_the_verdict(capsys):
    assert claim("counts", True, n=[1, 2], label="EM", inf=np.inf, none=None).holds


@pytest.mark.parametrize("digits", [-1, 1.5, True, "2", 16, None])
def test_digits_out_of_range_are_refused_by_name(digits):
    with pytest.raises(ValueError, match=r"digits must be an integer from 0 to 15 \(decimals"):
        claim("x", True, digits=digits, a=1.0)


@pytest.mark.parametrize(("value", "printed"), [
    (np.complex128(1 + 2j), "1.00+2.00j"), ([[1.0, 2.0], [3.0]], "[[1.00, 2.00], [3.00]]"),
    (np.float16(0.5), "0.50"), (np.longdouble(1) / 3, "0.33"), (10**30, str(10**30)),
    ({"a": 1}, "{'a': 1}"), (np.array([]), "[]"), (np.inf, "inf")])
def test_unusual_numbers_are_printed_not_crashed_on(value, printed, capsys):
    claim("x", True, digits=2, v=value)
    assert f"  v = {printed}\n" in capsys.readouterr().out
