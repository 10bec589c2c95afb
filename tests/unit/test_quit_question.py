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


def _login_writes(tmp_path, monkeypatch, name: str) -> None:
    """Node.js and a `hermes` on PATH whose `hermes whatsapp` pairs at once, writing creds.json and `name`."""
    import os

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    login = ('mkdir -p "$HERMES_HOME/platforms/whatsapp/session"\n'
             'printf \'{"me": {"id": "15557654321@s.whatsapp.net"}}\' '
             '> "$HERMES_HOME/platforms/whatsapp/session/creds.json"\n'
             f'printf x > "$HERMES_HOME/{name}"')
    for program, body in (("node", "exit 0"), ("hermes", login)):
        (bin_dir / program).write_text(f"#!/bin/sh\n{body}\n")
        (bin_dir / program).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ.get('PATH', '')}")


def _pair_in_the_plain_face(fixing) -> None:
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from hermes_wizard.faces.plain.ask import Asker
    from hermes_wizard.faces.plain.platforms import offer_login

    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("y\r")
        pipe.close()
        offer_login(Asker(width=80), fixing, "whatsapp")


def test_what_hermes_login_wrote_is_named_as_written_and_kept(tmp_path, monkeypatch):
    """The hand-over to Hermes's own login lists the files it changed; the quit question once said "Nothing has
    been written yet" after it (Faces, round 3, item 5.5)."""
    home = _home(tmp_path)
    _login_writes(tmp_path, monkeypatch, "whatsapp-mode.txt")
    fixing = _fixing(home)
    _pair_in_the_plain_face(fixing)
    assert (home / "platforms" / "whatsapp" / "session" / "creds.json").is_file()  # the login ran
    fixing.session.set_access("telegram", "allowlist", ["111"])
    question = fixing.quit_question()
    assert question is not None and "Nothing has been written yet" not in question, question
    assert "whatsapp-mode.txt, platforms/whatsapp/session/creds.json (by hermes whatsapp)" in question, question


def test_a_file_name_a_login_wrote_reaches_the_question_escaped(tmp_path, monkeypatch):
    """The names come from the home (its owner's, or Hermes's plugins'): a name carrying a terminal escape is shown
    escaped, never sent to the terminal as it is."""
    home = _home(tmp_path)
    _login_writes(tmp_path, monkeypatch, "evil\x1b]0;owned\x07name")
    fixing = _fixing(home)
    _pair_in_the_plain_face(fixing)
    fixing.session.set_access("telegram", "allowlist", ["111"])
    question = fixing.quit_question() or ""
    assert "evil" in question and "\x1b" not in question and "\x07" not in question, repr(question)
