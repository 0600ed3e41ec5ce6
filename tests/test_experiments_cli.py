"""python -m sslviz.experiments hands a lecture's command to that lecture's own parser."""

from __future__ import annotations

import pytest

from sslviz.experiments.__main__ import main


def test_hybrid_command_goes_to_lecture_09s_parser(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["hybrid", "--help"])
    assert stop.value.code == 0
    assert "Fujino, Ueda & Saito" in capsys.readouterr().out


def test_unknown_command_is_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["hybrids"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'hybrids'" in err and len(err.strip().splitlines()) == 1
