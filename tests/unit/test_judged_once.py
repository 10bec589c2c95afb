"""The headless faces judge each state of the home once (tests/support/judgements.py): `doctor --fix` judges the
home from disk before and after, its repair's candidates once each, and its preview is the repair's own
judgement, not a second one.  The TUI is held to the same in tests/tui/test_judged_once.py."""

from __future__ import annotations

from judgements import count_judgements

from hermes_wizard.faces.cli import main


def test_doctor_fix_judges_before_and_after_and_no_state_twice(demo, monkeypatch, capsys):
    judged = count_judgements(monkeypatch)
    assert main(["doctor", "--fix", "--yes", "--no-verify", "--home", str(demo)]) == 0, capsys.readouterr().out
    assert judged.from_disk == 2, judged.states  # the home as found, and as written
    assert judged.repeated() == []


def test_doctor_preview_judges_no_state_twice(demo, monkeypatch, capsys):
    judged = count_judgements(monkeypatch)
    assert main(["doctor", "--home", str(demo)]) == 1  # changes pending
    assert "After these changes: the gateway will start" in capsys.readouterr().out
    assert judged.from_disk == 1 and judged.repeated() == [], judged.states
