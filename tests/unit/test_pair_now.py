"""Pairing from the screen that says "not paired" (pairing where the need is said): which Hermes command, with which
environment, and when it must not run here (root on a user's home, no Node.js for WhatsApp, no Hermes at all).

The command line is checked against the real Hermes's own parser (0.19.0 and 0.18.2): `hermes whatsapp`
reaches WhatsApp's setup (which then refuses a non-terminal), and `hermes gateway setup` offers Weixin."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import oracle
import pytest

from hermes_wizard.faces.pair_now import Login, login_for
from hermes_wizard.hermes.loader.plugins import HostFacts
from hermes_wizard.judge.engine import evaluate


def whatsapp_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".env").write_text("WHATSAPP_ENABLED=true\nWHATSAPP_MODE=bot\nWHATSAPP_DM_POLICY=pairing\n")
    (home / ".env").chmod(0o600)
    return home


def with_hermes(home: Path, hermes: Path) -> object:
    """The home's report, judged with `hermes`'s venv as the Hermes that runs it."""
    return evaluate(home, facts=HostFacts.detect(home, hermes_python=str(hermes.with_name("python"))))


@pytest.mark.parametrize("version", oracle.VERSIONS)
@pytest.mark.parametrize("platform, hermes_says", [
    ("whatsapp", "'hermes whatsapp' requires an interactive terminal"),
    ("weixin", "Weixin"),
])
def test_the_command_is_hermess_own_login(tmp_path, version, platform, hermes_says):
    oracle.require_oracle(version)
    # Hermes's own install names its command `hermes`, found next to its python; a repackaged oracle may not
    # (0.20.1's is `hermesx`): there it is a `hermes` on PATH, the other place the tool looks
    hermes = oracle.venv_python(version).with_name("hermes")
    if not hermes.exists():
        hermes = tmp_path / "bin" / "hermes"
        hermes.parent.mkdir()
        hermes.symlink_to(oracle.hermes_command(version))
    home = whatsapp_home(tmp_path)
    facts = HostFacts.detect(home, hermes_python=str(oracle.venv_python(version)))
    login = login_for(evaluate(home, facts=facts), platform, {"PATH": f"{hermes.parent}:/usr/bin:/bin"})
    assert isinstance(login, Login), login
    assert login.argv[0] == str(hermes) and login.env["HERMES_HOME"] == str(home)
    done = subprocess.run(list(login.argv), env=login.env, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=120)
    said = done.stdout + done.stderr
    assert "unrecognized arguments" not in said and "invalid choice" not in said
    if platform == "weixin" and version == "0.22.2":
        # the fork's `gateway setup` stops under its platforms heading when it has no terminal: the command is
        # still the one that reaches Weixin's QR login from there
        hermes_says = "Messaging Platforms"
    assert hermes_says in said, said[-2000:]


def test_whatsapp_without_node_says_what_to_install_first(tmp_path):
    home = whatsapp_home(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "hermes").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "hermes").chmod(0o755)
    said = login_for(evaluate(home), "whatsapp", {"PATH": str(bin_dir)})
    assert isinstance(said, str) and "needs Node.js" in said and f"HERMES_HOME={home}" in said


def test_without_hermes_it_says_what_to_run_where(tmp_path):
    home = whatsapp_home(tmp_path)
    said = login_for(evaluate(home), "weixin", {"PATH": str(tmp_path / "nowhere")})
    assert isinstance(said, str) and "install Hermes" in said and "hermes gateway setup" in said


def test_root_never_runs_a_users_login_in_its_terminal(tmp_path):
    """The login is the owner's code and needs a terminal: root is told the owner's command instead."""
    if os.geteuid() != 0:
        pytest.skip("needs root")
    import pwd

    nobody = pwd.getpwnam("nobody")
    home = whatsapp_home(tmp_path)
    os.chown(home, nobody.pw_uid, nobody.pw_gid)
    said = login_for(evaluate(home), "whatsapp", {"PATH": "/usr/bin:/bin"})
    assert isinstance(said, str)
    assert said.startswith("This home belongs to nobody") and "sudo -u nobody env HERMES_HOME=" in said


def fake_login(tmp_path: Path, monkeypatch) -> None:
    """Node.js and a `hermes` on PATH whose `hermes whatsapp` pairs at once (it writes creds.json, as Hermes's does)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, body in (("node", "exit 0"), ("hermes", 'mkdir -p "$HERMES_HOME/platforms/whatsapp/session"\n'
                       'printf \'{"me": {"id": "15557654321@s.whatsapp.net"}}\' '
                       '> "$HERMES_HOME/platforms/whatsapp/session/creds.json"')):
        (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
        (bin_dir / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ.get('PATH', '')}")


def test_the_plain_face_offers_the_login_and_reads_the_home_again(tmp_path, monkeypatch):
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from hermes_wizard.cases.fixing import Fixing
    from hermes_wizard.faces.plain.ask import Asker
    from hermes_wizard.faces.plain.platforms import offer_login

    home = whatsapp_home(tmp_path)
    fake_login(tmp_path, monkeypatch)
    fixing = Fixing(home)
    assert fixing.report.transports["whatsapp"].dead
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("y\r")
        offer_login(Asker(width=80), fixing, "whatsapp")
    assert not fixing.report.transports["whatsapp"].dead
    assert fixing.report.transports["whatsapp"].detail == "paired as +15557654321"


def test_the_plain_setup_offers_pair_now_in_the_tuis_words_where_whatsapp_is_not_set_up(tmp_path, monkeypatch,
                                                                                         capsys):
    """The TUI offers Pair now on WhatsApp's screen; the plain face asked only for a WhatsApp already enabled
    and not connecting, so a first setup of WhatsApp never met it (Faces, round 3, item 5.2)."""
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from hermes_wizard.faces import pair_now
    from hermes_wizard.faces.plain import run_plain

    home = tmp_path / "home"
    fake_login(tmp_path, monkeypatch)
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        # WhatsApp, Pair now (Enter: yes, it is needed), pairing, no IDs, group chats as they are, review, apply
        pipe.send_text("whatsapp\r" + "\r" * 4 + "review\r" + "y\r")
        pipe.close()  # a question more or less than these keys ends the run (cancelled), never waits
        rc = run_plain("setup", home, ssh=False, echo_hidden=True, width=80)
    out = " ".join(capsys.readouterr().out.split())
    assert "bin/hermes whatsapp for " in out and "hermes whatsapp ended." in out, out  # the one hand-over ran
    assert (home / "platforms" / "whatsapp" / "session" / "creds.json").is_file()
    assert "Verified: the gateway will start (whatsapp)." in out and rc == 0, out
    assert pair_now.offer_words("whatsapp") == "Pair now (hermes whatsapp)"  # what it was offered as: the TUI's button


async def test_the_access_screen_shows_who_reaches_the_agent_today(tmp_path):
    """The TUI's access view: allowlisted and paired people and the requests waiting, as `access` decides."""
    import json
    import time

    from hermes_wizard.screens.access_screen import AccessScreen
    from hermes_wizard.screens.app import WizardApp

    home = tmp_path / "home"
    (home / "platforms" / "pairing").mkdir(parents=True)
    (home / ".env").write_text("TELEGRAM_BOT_TOKEN=123456789:AAEhBP0av28c6kEX7b3ZpQ9rT1yU2iO3pLm\n"
                               "TELEGRAM_ALLOWED_USERS=111, 222\n")
    (home / ".env").chmod(0o600)
    (home / "platforms" / "pairing" / "telegram-approved.json").write_text(json.dumps({"111": {"user_name": "Ann"}}))
    (home / "platforms" / "pairing" / "telegram-pending.json").write_text(json.dumps(
        {"e1": {"user_id": "333", "user_name": "Pat", "created_at": time.time() - 600}}))
    app = WizardApp(home, mode="setup")
    async with app.run_test(size=(100, 60)) as pilot:
        app.push_screen(AccessScreen("telegram"))
        await pilot.pause()
        who = str(app.screen.query_one("#who").visual)
    assert "Who reaches the agent through Telegram today" in who and "does not start" not in who
    assert "only 111 (Ann), 222 [TELEGRAM_ALLOWED_USERS]" in who and "paired:  111 (Ann)" in who
    assert "waiting: Pat (10 min ago)" in who


async def test_the_access_screen_says_nobody_is_heard_where_access_does(demo):
    """On the demo home (the gateway refuses to start) the TUI's Access screen says first the same sentence
    `access` prints: one source (`judge/access.py` `nobody_heard`), worded once."""
    from hermes_wizard.judge.access import load_view, nobody_heard
    from hermes_wizard.screens.access_screen import AccessScreen
    from hermes_wizard.screens.app import WizardApp

    said = nobody_heard(load_view(demo))
    assert said is not None and said.startswith("nobody: the gateway does not start — Hermes stops at whatsapp")
    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(100, 60)) as pilot:
        app.push_screen(AccessScreen("telegram"))
        await pilot.pause()
        who = str(app.screen.query_one("#who").visual)
    assert f"{said}. Once it starts:" in " ".join(who.split()), who


def test_the_plain_faces_access_step_shows_who_reaches_the_agent_today(demo, capsys):
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from hermes_wizard.faces.plain.ask import Asker
    from hermes_wizard.faces.plain.platforms import choose_access
    from hermes_wizard.plan.session import Session

    session = Session(evaluate(demo))
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("\r\r")  # the access it has (allowlist), the IDs it has
        choose_access(Asker(width=100), session, "telegram")
    out = capsys.readouterr().out
    assert "Who reaches the agent through Telegram today" in out and "only 123456789" in out
