"""The question before quitting (wizard/cases/fixing.py `quit_question`) is true about what is written: after an
apply, answers typed since are lost by quitting, but what was applied is not — it once said "Nothing has been
written yet" whatever was written."""

from __future__ import annotations

from hermes_wizard.cases.fixing import Fixing
from hermes_wizard.hermes.loader.plugins import HostFacts
from hermes_wizard.hermes.versions import judgement

TOKEN = "7123456789:AAHdemoTokenNotReal_0123"


def _home(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".env").write_text(f"TELEGRAM_BOT_TOKEN={TOKEN}\n")
    (home / ".env").chmod(0o600)
    (home / "config.yaml").write_text("model:\n  default: x\n")
    return home


def _fixing(home) -> Fixing:
    return Fixing(home, base_env={}, facts=HostFacts(modules=None).judged_as(judgement("0.19.0", None, "given")))


def test_nothing_to_lose_asks_nothing_and_an_unwritten_answer_says_so(tmp_path):
    fixing = _fixing(_home(tmp_path))
    assert fixing.quit_question() is None
    fixing.session.set_access("telegram", "allowlist", ["111"])
    assert fixing.quit_question() == "Discard 2 changes? Nothing has been written yet."


def test_after_an_apply_the_question_names_what_is_written(tmp_path):
    home = _home(tmp_path)
    fixing = _fixing(home)
    fixing.session.set_access("telegram", "allowlist", ["111"])
    fixing.apply(fixing.propose(), reason="test")
    assert "TELEGRAM_ALLOWED_USERS=111" in (home / ".env").read_text()
    assert fixing.quit_question() is None  # the answers are spent: nothing would be lost
    fixing.session.set_access("telegram", "allowlist", ["222"])
    question = fixing.quit_question() or ""
    assert "Nothing has been written yet" not in question
    assert question.startswith("Discard 1 change (not written)?") and "2 changes applied" in question
