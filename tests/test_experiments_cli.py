"""python -m sslviz.experiments hands a lecture's command to that lecture's own parser."""

from __future__ import annotations

import pytest

from sslviz.experiments.__main__ import COMMANDS, main


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


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_sub_commands_help_lists_the_scheduler_under_its_own_name(command, capsys):
    with pytest.raises(SystemExit) as stop:
        main([command, "--help"])
    assert stop.value.code == 0
    help_text = capsys.readouterr().out
    assert f"usage: python -m sslviz.experiments {command} " in help_text
    assert "--scheduler ADDRESS" in help_text and "Dask cluster" in help_text
